// allfives: play, watch and replay All Fives in the browser. The server checks every move;
// this page only draws the state it is sent and posts the person's choices.
import { MARGIN, board, fit } from "./board.js";

const $ = (id) => document.getElementById(id);
const NS = "http://www.w3.org/2000/svg";
const PIPS = {
  0: [], 1: [[.5, .5]], 2: [[.25, .25], [.75, .75]], 3: [[.25, .25], [.5, .5], [.75, .75]],
  4: [[.25, .25], [.75, .25], [.25, .75], [.75, .75]],
  5: [[.25, .25], [.75, .25], [.5, .5], [.25, .75], [.75, .75]],
  6: [[.25, .2], [.25, .5], [.25, .8], [.75, .2], [.75, .5], [.75, .8]],
};
const STATUS = {
  your_turn: "Your turn", agent_turn: "Agents to move", hand_over: "Hand over",
  match_over: "Match over", replay: "Replay", closed: "Game closed",
};
const SEAT_COLOURS = ["#d9480f", "#1971c2", "#9c36b5", "#2b8a3e"];
const UNIT_MIN = 24;   // px per half-tile: a tile is at least 48×24, an open end as large
const UNIT_MAX = 44;
const HINT_KEY = "allfives.hinted";

let options = null;   // GET /api/options
let state = null;     // the last state the server sent
let tab = "play";
let selected = null;  // "a-b": the tile of the person's hand chosen to place
let timer = null;     // the next paced step (agents' moves, auto-play)
let autoplay = false; // watching: step by itself

window.allfivesBoard = board;

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, "the server cannot be reached: is allfives serve still running?");
  }
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new ApiError(response.status, data.error || `HTTP ${response.status}`);
  return data;
}

function showError(e) {
  $("error").textContent = e ? String(e.message || e) : "";
  $("error").hidden = !e;
}

// An error during a game, where the player looks: above the hand, saying what to do.
function showGameError(e) {
  if (!e) { $("game-error").hidden = true; return; }
  let text = String(e.message || e);
  if (e.status === 404) {
    text = "This game is gone from the server: it expired after a long pause, or was closed. "
      + "Start a new one.";
    closeGame();
  }
  $("game-error-text").textContent = text;
  $("new-game-button").hidden = e.status !== 404 && e.status !== 0;
  $("game-error").hidden = false;
}

function closeGame() {
  stopTimer();
  if (!state) return;
  state = { ...state, status: "closed", legal: [], current_player: null };
  history.replaceState(null, "", location.pathname);
  render(state, false);
}

function el(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// ------------------------------------------------------------------ dominoes

function half(g, x, y, v) {
  for (const [px, py] of PIPS[v]) el("circle", { cx: x + px, cy: y + py, r: .1, class: "pip" }, g);
}

// A domino at (x, y): w×h is 2×1 (a left, b right) or 1×2 (a top, b bottom).
function domino(g, x, y, w, h, a, b, back = false) {
  el("rect", { x, y, width: w, height: h, rx: .1, class: back ? "back" : "face" }, g);
  if (back) return;
  if (w > h) {
    el("line", { x1: x + 1, y1: y + .1, x2: x + 1, y2: y + .9, class: "bar" }, g);
    half(g, x, y, a); half(g, x + 1, y, b);
  } else {
    el("line", { x1: x + .1, y1: y + 1, x2: x + .9, y2: y + 1, class: "bar" }, g);
    half(g, x, y, a); half(g, x, y + 1, b);
  }
}

function tileSvg(a, b, back = false, size = null) {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "-0.05 -0.05 1.1 2.1");
  if (size) { svg.setAttribute("width", size); svg.setAttribute("height", size * 2); }
  svg.classList.add("tile");
  domino(svg, 0, 0, 1, 2, a, b, back);
  return svg;
}

// ------------------------------------------------------------------ the table

const isPhone = () => window.matchMedia("(max-width: 760px)").matches;

// On a phone the board gets the height the rest leaves on the screen (at least 200 px): from
// its top, as the page lies unscrolled, to the hand's dock.
function sizeBoard() {
  const wrap = $("board-wrap");
  if (!isPhone()) { wrap.style.height = ""; return; }
  const top = wrap.getBoundingClientRect().top + window.scrollY;
  const room = window.innerHeight - top - $("dock").offsetHeight - 8;
  wrap.style.height = `${Math.max(200, Math.floor(room))}px`;
}

function drawBoard() {
  sizeBoard();
  const wrap = $("board-wrap");
  const svg = $("board");
  svg.replaceChildren();
  const width = wrap.clientWidth;
  const height = wrap.clientHeight;
  const { unit, geometry } = fit(state.layout, width, height, UNIT_MIN, UNIT_MAX);
  const { items, places, labels, x0, x1, y0, y1 } = geometry;
  const legal = legalSlots();
  const last = new Map();
  (state.last_tiles || []).forEach((t, s) => { if (t) last.set(`${t[0]}-${t[1]}`, s); });
  for (const t of items) {
    domino(svg, t.x, t.y, t.w, t.h, t.a, t.b);
    if (last.has(t.key)) mark(svg, t, last.get(t.key));
  }
  const boxes = hitBoxes(places, unit);
  places.forEach((p, i) => {
    const ok = legal.has(p.slot);
    const r = el("rect", {
      x: p.x, y: p.y, width: p.w, height: p.h, rx: .1,
      class: ok ? "target legal" : "target", "data-slot": p.name,
    }, svg);
    el("text", { x: p.x + p.w / 2, y: p.y + p.h / 2 + .15, class: "target-text" }, svg,
      p.name === "lead" ? "lead" : `${p.name} ${p.value}`);
    if (ok) {
      const b = boxes[i];
      const hit = el("rect", { ...b, fill: "transparent", class: "hit", "data-slot": p.name }, svg);
      for (const node of [r, hit]) node.addEventListener("click", () => place(legal.get(p.slot)));
    }
  });
  for (const l of labels) el("text", { x: l.x, y: l.y, class: "label" }, svg, l.text);
  const w = x1 - x0 + 2 * MARGIN;
  const h = Math.max(y1 - y0 + 2 * MARGIN, height / unit);
  const cy = (y0 + y1) / 2;
  svg.setAttribute("viewBox", `${x0 - MARGIN} ${cy - h / 2} ${w} ${h}`);
  svg.setAttribute("width", Math.floor(w * unit));
  svg.setAttribute("height", Math.floor(h * unit));
  svg.dataset.unit = unit;
}

// Where a click on an open place counts: the place, grown towards 44 px a side where that
// reaches no other place's box.
function hitBoxes(places, unit) {
  const grow = (p, to) => {
    const w = Math.max(p.w, to / unit);
    const h = Math.max(p.h, to / unit);
    return { x: p.x + (p.w - w) / 2, y: p.y + (p.h - h) / 2, width: w, height: h };
  };
  const big = places.map((p) => grow(p, 44));
  const meets = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width
    && a.y < b.y + b.height && b.y < a.y + a.height;
  return big.map((b, i) => (big.some((o, j) => j !== i && meets(b, o)) ? grow(places[i], 0) : b));
}

// A seat's last tile on the table: outlined in the seat's colour, with its number.
function mark(svg, t, seat) {
  const colour = SEAT_COLOURS[seat % SEAT_COLOURS.length];
  el("rect", { x: t.x - .04, y: t.y - .04, width: t.w + .08, height: t.h + .08, rx: .12,
    class: "last", stroke: colour, "data-last-seat": seat }, svg);
  const bx = t.x + t.w - .15;
  const by = t.y + .15;
  el("circle", { cx: bx, cy: by, r: .24, fill: colour }, svg);
  el("text", { x: bx, y: by + .15, class: "badge-text" }, svg, String(seat));
}

// ------------------------------------------------------------------ the person's moves

const tileKey = (t) => `${t[0]}-${t[1]}`;

function legalSlots() {
  const out = new Map();
  if (!selected) return out;
  for (const a of state.legal) {
    if (a.kind === "place" && tileKey(a.tile) === selected) out.set(a.slot, a.text);
  }
  return out;
}

async function act(path, body) {
  stopTimer();
  try {
    const next = await api("POST", `/api/games/${state.id}/${path}`, body);
    showGameError(null);
    render(next);
  } catch (e) { autoplay = false; showGameError(e); drawControls(); }
}

function place(text) {
  selected = null;
  localStorage.setItem(HINT_KEY, "1");
  act("move", { action: text });
}

// ------------------------------------------------------------------ drawing the state

function seatName(s) {
  if (state.you === s) return `seat ${s} (you)`;
  const partner = state.you !== null && state.you !== s
    && state.seats[s].side === state.seats[state.you].side;
  return `seat ${s} (${state.names[s]}${partner ? ", partner" : ""})`;
}

function render(next, schedule = true) {
  state = next;
  window.allfivesState = state;
  document.body.dataset.gameId = state.id;
  document.body.dataset.status = state.status;
  if (state.status !== "closed" && location.hash !== `#game=${state.id}`) {  // reloads resume it
    history.replaceState(null, "", `#game=${state.id}`);
  }
  $("setup").hidden = true;
  $("game").hidden = false;
  $("rules").textContent = state.rules.describe;
  $("hand-number").textContent = state.hand_number;
  $("count").textContent = state.layout.count;
  $("boneyard").textContent = state.boneyard;
  const who = state.current_player === null ? "" : `: ${seatName(state.current_player)}`;
  $("status").textContent = STATUS[state.status] + (state.status === "agent_turn" ? who : "");
  const move = state.moves[state.moves.length - 1];
  $("last-move").textContent = move ? `last: ${moveText(move)}` : "";
  drawScores();
  drawOthers();
  drawHand();
  drawControls();
  drawLogs();
  drawBoard();
  if (schedule) scheduleStep();
}

function moveText(m) {
  return `${seatName(m.seat)} ${m.text}${m.points ? ` +${m.points}` : ""}`;
}

function drawScores() {
  const scores = $("scores");
  scores.replaceChildren();
  state.rules.sides.forEach((seats, side) => {
    const tr = document.createElement("tr");
    if (state.you !== null && seats.includes(state.you)) tr.className = "mine";
    const name = document.createElement("td");
    name.textContent = seats.map(seatName).join(" + ");
    const score = document.createElement("td");
    score.textContent = state.scores[side];
    score.dataset.side = side;
    tr.append(name, score);
    scores.append(tr);
  });
  const target = document.createElement("caption");
  target.textContent = `first to ${state.rules.exact_target ? "exactly " : ""}${state.rules.target}`;
  scores.append(target);
}

function drawOthers() {
  const box = $("others");
  box.replaceChildren();
  for (const seat of state.seats) {
    if (seat.seat === state.you) continue;
    const div = document.createElement("div");
    div.className = "seat" + (state.current_player === seat.seat ? " to-act" : "");
    div.style.setProperty("--seat", SEAT_COLOURS[seat.seat % SEAT_COLOURS.length]);
    div.dataset.seat = seat.seat;
    div.textContent = `${seatName(seat.seat)}: ${seat.hand_size} tile${seat.hand_size === 1 ? "" : "s"}`;
    const tiles = document.createElement("div");
    tiles.className = "tiles";
    if (seat.tiles) for (const t of seat.tiles) tiles.append(tileSvg(t[0], t[1], false, 16));
    else for (let i = 0; i < seat.hand_size; i++) tiles.append(tileSvg(0, 0, true, 16));
    div.append(tiles);
    box.append(div);
  }
}

function drawHand() {
  const box = $("hand");
  box.replaceChildren();
  box.hidden = state.you === null;
  if (state.you === null) return;
  const playable = new Set(state.legal.filter((a) => a.kind === "place").map((a) => tileKey(a.tile)));
  if (selected && !playable.has(selected)) selected = null;
  for (const t of state.seats[state.you].tiles) {
    const key = tileKey(t);
    const svg = tileSvg(t[0], t[1]);
    svg.dataset.tile = key;
    if (playable.has(key)) {
      svg.classList.add("playable");
      if (key === selected) svg.classList.add("selected");
      svg.addEventListener("click", () => { selected = key === selected ? null : key; render(state, false); });
    } else if (state.status === "your_turn") svg.classList.add("dim");
    box.append(svg);
  }
  $("hint").hidden = !(state.status === "your_turn" && playable.size > 0
    && !localStorage.getItem(HINT_KEY));
}

function drawControls() {
  const kinds = new Set(state.legal.map((a) => a.kind));
  const playing = state.mode === "play" && state.status !== "closed";
  $("draw").hidden = !kinds.has("draw");
  $("pass").hidden = !kinds.has("pass");
  $("next-hand").hidden = !(playing && state.status === "hand_over");
  $("watch-controls").hidden = state.mode !== "watch" || state.status === "closed";
  $("step").disabled = state.status === "match_over";
  $("autoplay").textContent = autoplay ? "Pause" : "Auto-play";
  $("pace-control").hidden = !(playing || state.mode === "watch");
  $("delay-text").textContent = `${(Number($("delay").value) / 1000).toFixed(1)} s`;
  $("replay-controls").hidden = state.mode !== "replay";
  if (state.mode === "replay") {
    $("position").max = state.steps - 1;
    $("position").value = state.at;
    $("position-text").textContent = `${state.at + 1} / ${state.steps}`;
  }
  // with a person, the record holds the hands that have ended
  const recorded = state.mode !== "play" || state.results.length > 0;
  $("download").hidden = !recorded || state.status === "closed";
  $("download").href = `/api/games/${state.id}/record`;
  const banner = $("banner");
  const last = state.results[state.results.length - 1];
  banner.hidden = !(state.status === "hand_over" || state.status === "match_over"
    || (state.mode === "replay" && state.current_player === null && last));
  if (!banner.hidden) banner.textContent = resultText(last);
}

function sideName(side) { return state.rules.sides[side].map(seatName).join(" + "); }

function resultText(r) {
  const parts = [];
  if (r) {
    const how = r.end === "domino" ? `${seatName(r.domino_seat)} played out`
      : r.end === "blocked" ? "blocked: nobody can play" : "a side reached the target";
    parts.push(`Hand ${r.hand}: ${how}.`);
    if (r.end !== "target") {
      const award = r.award.map((x, i) => (x ? `${sideName(i)} +${x}` : null)).filter(Boolean);
      parts.push(`Award: ${award.join(", ") || "none"}.`);
      parts.push(`Pips left: ${r.pips.map((p, s) => `seat ${s} ${p}`).join(", ")}.`);
    }
  }
  if (state.winners) {
    const won = state.winners;
    const mine = state.you === null ? null : state.seats[state.you].side;
    parts.push(won.length === 1 && won[0] === mine ? "You win the match!"
      : `Match won by ${won.map(sideName).join(" and ")}.`);
  }
  return parts.join(" ");
}

function drawLogs() {
  const moves = $("moves");
  moves.replaceChildren();
  for (const m of state.moves.slice(-12)) {
    const li = document.createElement("li");
    li.textContent = `hand ${m.hand}: ${moveText(m)}`;
    moves.append(li);
  }
  moves.scrollTop = moves.scrollHeight;
  const results = $("results");
  results.replaceChildren();
  for (const r of state.results) {
    const li = document.createElement("li");
    li.textContent = `${r.end}; award ${r.award.join(" : ")}; pips left ${r.pips.join(", ")}`;
    results.append(li);
  }
}

// ------------------------------------------------------------------ pacing

function stopTimer() {
  if (timer) clearTimeout(timer);
  timer = null;
}

// Agents' moves come one at a time, after the chosen pause; watching, so does auto-play.
function scheduleStep() {
  stopTimer();
  const pacing = state.mode === "play" && state.status === "agent_turn";
  const auto = state.mode === "watch" && autoplay && state.status !== "match_over";
  if (state.mode === "watch" && state.status === "match_over") autoplay = false;
  if (!pacing && !auto) { drawControls(); return; }
  timer = setTimeout(() => { timer = null; act("step"); }, Number($("delay").value));
}

// ------------------------------------------------------------------ setup

function seatOptions(select, chosen) {
  select.replaceChildren();
  for (const a of options.agents) {
    const o = document.createElement("option");
    o.value = a.name;
    o.textContent = a.rules ? `${a.name} (${a.rules})` : a.name;
    select.append(o);
  }
  select.value = chosen;
}

function refreshSeats() {
  const n = Number($("players").value);
  $("partnerships-label").hidden = n !== 4;
  const seat = $("seat");
  const was = Number(seat.value) || 0;
  seat.replaceChildren();
  for (let s = 0; s < n; s++) {
    const o = document.createElement("option");
    o.value = s; o.textContent = s;
    seat.append(o);
  }
  seat.value = Math.min(was, n - 1);
  const box = $("seat-agents");
  const before = {};
  box.querySelectorAll("select").forEach((s) => { before[s.dataset.seat] = s.value; });
  box.replaceChildren();
  for (let s = 0; s < n; s++) {
    if (tab === "play" && s === Number(seat.value)) continue;
    const label = document.createElement("label");
    label.textContent = `Seat ${s} `;
    const select = document.createElement("select");
    select.id = `agent-${s}`;
    select.dataset.seat = s;
    seatOptions(select, before[s] || (tab === "play" ? "greedy" : ["heuristic", "greedy"][s % 2]));
    label.append(select);
    box.append(label);
  }
}

function refreshPartnerships() {
  const p = options.presets[$("preset").value];
  $("partnerships").checked = p.partnerships;
}

function begin(next) {
  showError(null);
  showGameError(null);
  selected = null;
  autoplay = false;
  render(next);
}

async function start(event) {
  event.preventDefault();
  stopTimer();
  const n = Number($("players").value);
  const seats = [];
  for (let s = 0; s < n; s++) {
    seats.push(tab === "play" && s === Number($("seat").value) ? "human" : $(`agent-${s}`).value);
  }
  const body = { preset: $("preset").value, players: n, seats, pace: "step" };
  if (n === 4) body.partnerships = $("partnerships").checked;
  const maxPip = Number($("max_pip").value);
  if (maxPip !== 6) body.max_pip = maxPip;
  if ($("hand_size").value !== "") body.hand_size = Number($("hand_size").value);
  if ($("target").value !== "") body.target = Number($("target").value);
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  try {
    begin(await api("POST", "/api/games", body));
  } catch (e) { showError(e); }
}

async function openReplay(event) {
  event.preventDefault();
  const file = $("record-file").files[0];
  if (!file) { showError("choose a game record (a .json file) first"); return; }
  try {
    begin(await api("POST", "/api/replays", await file.text()));
  } catch (e) { showError(e); }
}

function setTab(name) {
  tab = name;
  stopTimer();
  autoplay = false;
  document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
  $("setup").hidden = false;
  $("game").hidden = true;
  $("new-game").hidden = name === "replay";
  $("open-replay").hidden = name !== "replay";
  document.querySelectorAll(".play-only").forEach((x) => { x.hidden = name !== "play"; });
  showError(null);
  refreshSeats();
  if (location.hash) history.replaceState(null, "", location.pathname);
}

// A game named in the address (#game=ID): the page reloaded, or a link to a live game.
async function resume(hash) {
  const m = hash.match(/^#game=([\w-]+)$/);
  if (!m) return;
  try {
    const next = await api("GET", `/api/games/${m[1]}`);
    tab = next.mode;
    document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === tab));
    begin(next);
  } catch (e) {
    showError(e.status === 404 ? "That game is gone from the server (it expired, or was closed): start a new one." : e);
    history.replaceState(null, "", location.pathname);
  }
}

async function init() {
  options = await api("GET", "/api/options");
  for (const name of Object.keys(options.presets)) {
    const o = document.createElement("option");
    o.value = name; o.textContent = name;
    $("preset").append(o);
  }
  refreshPartnerships();
  $("preset").addEventListener("change", refreshPartnerships);
  $("players").addEventListener("change", refreshSeats);
  $("seat").addEventListener("change", refreshSeats);
  $("new-game").addEventListener("submit", start);
  $("open-replay").addEventListener("submit", openReplay);
  document.querySelectorAll("#tabs button").forEach((b) => b.addEventListener("click", () => setTab(b.dataset.tab)));
  $("new-game-button").addEventListener("click", () => setTab(tab));
  $("draw").addEventListener("click", () => act("move", { action: "draw" }));
  $("pass").addEventListener("click", () => act("move", { action: "pass" }));
  $("next-hand").addEventListener("click", () => act("next"));
  $("step").addEventListener("click", () => { autoplay = false; act("step"); });
  $("autoplay").addEventListener("click", () => {
    autoplay = !autoplay;
    if (autoplay) act("step"); else { stopTimer(); drawControls(); }
  });
  $("delay").addEventListener("input", () => {
    $("delay-text").textContent = `${(Number($("delay").value) / 1000).toFixed(1)} s`;
  });
  $("first").addEventListener("click", () => seek(0));
  $("back").addEventListener("click", () => seek(state.at - 1));
  $("forward").addEventListener("click", () => seek(state.at + 1));
  $("last").addEventListener("click", () => seek(state.steps - 1));
  $("position").addEventListener("change", () => seek(Number($("position").value)));
  let resizing = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => { if (state && !$("game").hidden) drawBoard(); }, 100);
  });
  window.addEventListener("hashchange", () => resume(location.hash));
  const hash = location.hash;
  setTab("play");
  await resume(hash);
}

function seek(at) { act("seek", { at }); }

init().catch(showError);
