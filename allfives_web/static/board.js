// allfives: where each tile and each open place of a layout goes on a board of a given width,
// as on a domino table: the line runs out from its anchor (the first spinner, else the lead)
// and turns at the board's edges. Pure geometry, in half-tile units (a tile is 2×1); app.js
// draws it. Exposed to tests as window.allfivesBoard.
//
// The E arm runs right on the centre row; at the right edge it turns down (one tile along the
// turn) and runs back left on the row below, and so on, a snake; the W arm mirrors it, turning
// up. With a spinner, its N and S arms run up and down its column, and the snake's rows stay
// clear of that column. Every other spinner's branches get rows of their own, below. A double
// lies across the line, except at a turn, where it lies along it.

export const MIN_COLS = 11;  // the narrowest board (half-tiles) the layout is made for

const keyOf = (a, b) => (a <= b ? `${a}-${b}` : `${b}-${a}`);

function piece(x, y, w, h, a, b, extra = {}) {
  return { x, y, w, h, a, b, key: keyOf(a, b), ...extra };
}

// One arm that starts on a row: `tiles` outwards as [near, far, double]; the next tile attaches
// at x (its near edge) on the row centred on y, running h (+1 right, -1 left); rows turn vdir
// (+1 down, -1 up); a row running left stops at lo, one running right at hi. Returns where the
// open place at the arm's end goes.
function rowArm(tiles, x, y, h, vdir, lo, hi, out) {
  let row = [];
  let i = 0;
  while (i < tiles.length) {
    const [near, far, dbl] = tiles[i];
    const len = dbl ? 1 : 2;
    if (h > 0 ? x + len <= hi : x - len >= lo) {
      const x0 = h > 0 ? x : x - len;
      const p = dbl
        ? piece(x0, y - 1, 1, 2, near, near, { across: true })
        : piece(x0, y - 0.5, 2, 1, h > 0 ? near : far, h > 0 ? far : near);
      out.push(p);
      row.push(p);
      x += h * len;
      i += 1;
      continue;
    }
    // a turn: a double lying across at the row's end turns it instead, along the turn
    const last = row[row.length - 1];
    if (last && last.across) {
      out.splice(out.indexOf(last), 1);
      x -= h;
      i -= 1;
    }
    const [cn, cf] = tiles[i];
    const cx = h > 0 ? x - 1 : x;
    out.push(piece(cx, vdir > 0 ? y + 0.5 : y - 2.5, 1, 2, vdir > 0 ? cn : cf, vdir > 0 ? cf : cn));
    i += 1;
    y += 2 * vdir;
    h = -h;
    x = h > 0 ? cx + 1 : cx;
    row = [];
  }
  if (h > 0 ? x + 2 <= hi : x - 2 >= lo) return { x: h > 0 ? x : x - 2, y: y - 0.5, w: 2, h: 1 };
  const last = row[row.length - 1];
  if (last && last.across) return { x: last.x, y: vdir > 0 ? y + 1 : y - 3, w: 1, h: 2 };
  const cx = h > 0 ? x - 1 : x;
  return { x: cx, y: vdir > 0 ? y + 0.5 : y - 2.5, w: 1, h: 2 };
}

// One arm running up (vdir -1) or down (+1) a column whose left edge is x, from y.
function columnArm(tiles, x, y, vdir, out) {
  for (const [near, far, dbl] of tiles) {
    if (dbl) {
      out.push(piece(x - 0.5, vdir > 0 ? y : y - 1, 2, 1, near, near));
      y += vdir;
    } else {
      out.push(piece(x, vdir > 0 ? y : y - 2, 1, 2, vdir > 0 ? near : far, vdir > 0 ? far : near));
      y += 2 * vdir;
    }
  }
  return { x, y: vdir > 0 ? y : y - 2, w: 1, h: 2 };
}

// The board for `layout` (table.py's layout_json) `cols` half-tiles wide: {items, places,
// labels, x0, x1, y0, y1}. items: the tiles (x, y, w, h, a, b: the halves left to right or top
// to bottom, key: "low-high"); places: the open places (slot, name, value and a box);
// labels: the side branches' names. Nothing lies outside x0..x1; no two things overlap.
export function board(layout, cols) {
  cols = Math.max(cols, MIN_COLS);
  const items = [];
  const places = [];
  const labels = [];
  const open = new Map(layout.open.map((o) => [o.slot, o]));
  const addPlace = (slot, box) => { if (open.has(slot)) places.push({ ...open.get(slot), ...box }); };
  const line = layout.line;
  if (!line.length) {
    const x0 = 1 - cols / 2;
    places.push({ slot: 0, name: "lead", value: "", x: 0, y: -0.5, w: 2, h: 1 });
    return { items, places, labels, x0, x1: x0 + cols, y0: -2, y1: 2 };
  }
  const at = layout.spinner >= 0 ? layout.spinner : layout.lead;
  const [aw, ae, adbl] = line[at];
  const spinner = layout.spinner >= 0;
  if (adbl) items.push(piece(0, -1, 1, 2, aw, aw));
  else items.push(piece(0, -0.5, 2, 1, aw, ae));
  const width = adbl ? 1 : 2;
  const x0 = width / 2 - cols / 2;
  const x1 = x0 + cols;
  // with a spinner, the snake's rows keep clear of its column (its N and S arms)
  const clearW = spinner ? -1 : x1;
  const clearE = spinner ? 2 : x0;
  const east = line.slice(at + 1).map(([w, e, d]) => [w, e, d]);
  const west = line.slice(0, at).reverse().map(([w, e, d]) => [e, w, d]);
  addPlace(1, rowArm(east, width, 0, +1, +1, clearE, x1, items));
  addPlace(0, rowArm(west, 0, 0, -1, -1, x0, clearW, items));
  if (spinner) {
    addPlace(2, columnArm(layout.north, 0, -1, -1, items));
    addPlace(3, columnArm(layout.south, 0, 1, +1, items));
  }
  // every other spinner's branches: blocks (a name, then the tiles in a row) set side by side
  // on shelves below, as words on lines; one too long for a shelf snakes on its own
  let top = Math.max(1, ...items.map((t) => t.y + t.h), ...places.map((p) => p.y + p.h)) + 0.6;
  let cursor = x0 + 0.3;
  let shelf = 0;  // the height of the current shelf's blocks so far
  for (const br of layout.branches) {
    const text = `${br.name} from ${br.spinner}-${br.spinner}`;
    const run = br.tiles.reduce((n, t) => n + (t[2] ? 1 : 2), 0) + (open.has(br.slot) ? 2 : 0);
    const wide = Math.max(text.length * 0.26, run);
    if (cursor + wide > x1 - 0.3 && cursor > x0 + 0.3) {
      top += shelf + 0.4;
      cursor = x0 + 0.3;
      shelf = 0;
    }
    labels.push({ x: cursor, y: top + 0.45, text });
    const start = items.length;
    const end = rowArm(br.tiles, cursor, top + 1.7, +1, +1, x0 + 0.3, x1 - 0.3, items);
    addPlace(br.slot, end);
    const drawn = [...items.slice(start), ...(open.has(br.slot) ? [end] : [])];
    const bottom = Math.max(top + 2.7, ...drawn.map((t) => t.y + t.h));
    if (bottom > top + 2.7) {  // it snaked: the next block starts a shelf of its own
      top = bottom + 0.4;
      cursor = x0 + 0.3;
      shelf = 0;
    } else {
      cursor += wide + 0.8;
      shelf = Math.max(shelf, bottom - top);
    }
  }
  const all = [...items, ...places];
  const y0 = Math.min(...all.map((t) => t.y)) - 0.4;
  const y1 = Math.max(...all.map((t) => t.y + t.h)) + 0.4;
  return { items, places, labels, x0, x1, y0, y1 };
}

export const MARGIN = 0.25;  // half-tiles of green left around the board's things

// The largest unit (pixels per half-tile) from `most` down to `least` at which the board, with
// its margins, fits a box of width × height pixels; at `least` it may be taller than the box
// (it then scrolls).
export function fit(layout, width, height, least, most) {
  let last = null;
  for (let unit = most; unit >= least; unit -= 1) {
    const cols = Math.floor(width / unit - 2 * MARGIN);
    if (cols < MIN_COLS) continue;
    last = { unit, cols, geometry: board(layout, cols) };
    if ((last.geometry.y1 - last.geometry.y0 + 2 * MARGIN) * unit <= height) return last;
  }
  if (last) return last;
  const unit = Math.max(1, Math.floor(width / MIN_COLS));
  return { unit, cols: MIN_COLS, geometry: board(layout, MIN_COLS) };
}
