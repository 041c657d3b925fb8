// allfives: play, watch and replay All Fives in the browser. The server checks every move;
// this page only draws the state it is sent and posts the person's choices.
"use strict";

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
  match_over: "Match over", replay: "Replay",
};

let options = null;   // GET /api/options
let state = null;     // the last state the server sent
let tab = "play";
let selected = null;  // "a-b": the tile of the person's hand chosen to place
let timer = null;     // auto-play

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(e) {
  $("error").textContent = e ? String(e.message || e) : "";
  $("error").hidden = !e;
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
  for (const [px, py] of PIPS[v]) el("circle", { cx: x + px, cy: y + py, r: .09, class: "pip" }, g);
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

function tileSvg(a, b, back = false, size = 28) {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "-0.05 -0.05 1.1 2.1");
  svg.setAttribute("width", size);
  svg.setAttribute("height", size * 2);
  svg.classList.add("tile");
  domino(svg, 0, 0, 1, 2, a, b, back);
  return svg;
}

// ------------------------------------------------------------------ the table

// Where each tile and each open place goes: the line along y = 0, the first spinner's N and
// S branches up and down its column, every other branch as a row below.
function board(layout) {
  const items = [];
  const places = [];
  const open = new Map(layout.open.map((o) => [o.slot, o]));
  if (!layout.line.length) {
    places.push({ slot: 0, name: "lead", value: "", x: 0, y: -.5, w: 2, h: 1 });
    return { items, places, labels: [] };
  }
  let x = 0;
  let spin = null;
  layout.line.forEach(([a, b, dbl], i) => {
    if (dbl) { items.push({ x, y: -1, w: 1, h: 2, a, b: a }); if (i === layout.spinner) spin = x; x += 1; }
    else { items.push({ x, y: -.5, w: 2, h: 1, a, b }); x += 2; }
  });
  if (open.has(0)) places.push({ ...open.get(0), x: -2, y: -.5, w: 2, h: 1 });
  if (open.has(1)) places.push({ ...open.get(1), x, y: -.5, w: 2, h: 1 });
  if (spin !== null) {
    let y = -1;
    for (const [near, far, dbl] of layout.north) {
      if (dbl) { items.push({ x: spin - .5, y: y - 1, w: 2, h: 1, a: near, b: near }); y -= 1; }
      else { items.push({ x: spin, y: y - 2, w: 1, h: 2, a: far, b: near }); y -= 2; }
    }
    if (open.has(2)) places.push({ ...open.get(2), x: spin, y: y - 2, w: 1, h: 2 });
    y = 1;
    for (const [near, far, dbl] of layout.south) {
      if (dbl) { items.push({ x: spin - .5, y, w: 2, h: 1, a: near, b: near }); y += 1; }
      else { items.push({ x: spin, y, w: 1, h: 2, a: near, b: far }); y += 2; }
    }
    if (open.has(3)) places.push({ ...open.get(3), x: spin, y, w: 1, h: 2 });
  }
  const bottom = Math.max(1, ...items.map((t) => t.y + t.h), ...places.map((p) => p.y + p.h));
  const labels = [];
  layout.branches.forEach((br, i) => {
    const y = bottom + .6 + i * 1.4;
    labels.push({ x: -2, y: y + .65, text: `${br.name} from ${br.spinner}-${br.spinner}` });
    let bx = 1.5;
    for (const [near, far, dbl] of br.tiles) {
      if (dbl) { items.push({ x: bx, y: y - .5, w: 1, h: 2, a: near, b: near }); bx += 1; }
      else { items.push({ x: bx, y, w: 2, h: 1, a: near, b: far }); bx += 2; }
    }
    if (open.has(br.slot)) places.push({ ...open.get(br.slot), x: bx, y, w: 2, h: 1 });
  });
  return { items, places, labels };
}

function drawBoard() {
  const svg = $("board");
  svg.replaceChildren();
  const { items, places, labels } = board(state.layout);
  const legal = legalSlots();
  for (const t of items) domino(svg, t.x, t.y, t.w, t.h, t.a, t.b);
  for (const p of places) {
    const ok = legal.has(p.slot);
    const r = el("rect", {
      x: p.x + .05, y: p.y + .05, width: p.w - .1, height: p.h - .1, rx: .1,
      class: ok ? "target legal" : "target", "data-slot": p.name,
    }, svg);
    el("text", { x: p.x + p.w / 2, y: p.y + p.h / 2 + .15, class: "target-text" }, svg,
      p.name === "lead" ? "lead" : `${p.name} ${p.value}`);
    if (ok) r.addEventListener("click", () => place(legal.get(p.slot)));
  }
  for (const l of labels) el("text", { x: l.x, y: l.y, class: "label" }, svg, l.text);
  const all = [...items, ...places, ...labels.map((l) => ({ x: l.x, y: l.y - .5, w: 3, h: .6 }))];
  const x0 = Math.min(...all.map((t) => t.x)) - .5;
  const y0 = Math.min(...all.map((t) => t.y)) - .5;
  const x1 = Math.max(...all.map((t) => t.x + t.w)) + .5;
  const y1 = Math.max(...all.map((t) => t.y + t.h)) + .5;
  svg.setAttribute("viewBox", `${x0} ${y0} ${Math.max(x1 - x0, 12)} ${Math.max(y1 - y0, 5)}`);
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
  try {
    showError(null);
    render(await api("POST", `/api/games/${state.id}/${path}`, body));
  } catch (e) { showError(e); stopAuto(); }
}

function place(text) { selected = null; act("move", { action: text }); }

// ------------------------------------------------------------------ drawing the state

function seatName(s) {
  if (state.you === s) return `seat ${s} (you)`;
  const partner = state.you !== null && state.you !== s
    && state.seats[s].side === state.seats[state.you].side;
  return `seat ${s} (${state.names[s]}${partner ? ", partner" : ""})`;
}

function render(next) {
  state = next;
  window.allfivesState = state;
  document.body.dataset.gameId = state.id;
  document.body.dataset.status = state.status;
  $("setup").hidden = true;
  $("game").hidden = false;
  $("rules").textContent = state.rules.describe;
  $("hand-number").textContent = state.hand_number;
  $("count").textContent = state.layout.count;
  $("boneyard").textContent = state.boneyard;
  const who = state.current_player === null ? "" : ` — ${seatName(state.current_player)} to act`;
  $("status").textContent = STATUS[state.status] + (state.status === "agent_turn" ? who : "");
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
  drawOthers();
  drawHand();
  drawBoard();
  drawControls();
  drawLogs();
}

function drawOthers() {
  const box = $("others");
  box.replaceChildren();
  for (const seat of state.seats) {
    if (seat.seat === state.you) continue;
    const div = document.createElement("div");
    div.className = "seat" + (state.current_player === seat.seat ? " to-act" : "");
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
      svg.addEventListener("click", () => { selected = key === selected ? null : key; render(state); });
    } else if (state.status === "your_turn") svg.classList.add("dim");
    box.append(svg);
  }
}

function drawControls() {
  const kinds = new Set(state.legal.map((a) => a.kind));
  $("draw").hidden = !kinds.has("draw");
  $("pass").hidden = !kinds.has("pass");
  $("next-hand").hidden = !(state.mode === "play" && state.status === "hand_over");
  $("watch-controls").hidden = state.mode !== "watch";
  $("step").disabled = state.status === "match_over";
  $("replay-controls").hidden = state.mode !== "replay";
  if (state.mode === "replay") {
    $("position").max = state.steps - 1;
    $("position").value = state.at;
    $("position-text").textContent = `${state.at + 1} / ${state.steps}`;
  }
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
    li.textContent = `hand ${m.hand}: ${seatName(m.seat)} ${m.text}${m.points ? ` +${m.points}` : ""}`;
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

async function start(event) {
  event.preventDefault();
  stopAuto();
  const n = Number($("players").value);
  const seats = [];
  for (let s = 0; s < n; s++) {
    seats.push(tab === "play" && s === Number($("seat").value) ? "human" : $(`agent-${s}`).value);
  }
  const body = { preset: $("preset").value, players: n, seats };
  if (n === 4) body.partnerships = $("partnerships").checked;
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  try {
    showError(null);
    selected = null;
    render(await api("POST", "/api/games", body));
  } catch (e) { showError(e); }
}

async function openReplay(event) {
  event.preventDefault();
  const file = $("record-file").files[0];
  if (!file) { showError("choose a game record (a .json file) first"); return; }
  try {
    showError(null);
    render(await api("POST", "/api/replays", await file.text()));
  } catch (e) { showError(e); }
}

function setTab(name) {
  tab = name;
  stopAuto();
  document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
  $("setup").hidden = false;
  $("game").hidden = true;
  $("new-game").hidden = name === "replay";
  $("open-replay").hidden = name !== "replay";
  document.querySelectorAll(".play-only").forEach((x) => { x.hidden = name !== "play"; });
  showError(null);
  refreshSeats();
}

// ------------------------------------------------------------------ watching and replaying

function stopAuto() {
  if (timer) clearTimeout(timer);
  timer = null;
  $("autoplay").textContent = "Auto-play";
}

function autoStep() {
  if (!state || state.mode !== "watch" || state.status === "match_over") { stopAuto(); return; }
  act("step").then(() => { if (timer) timer = setTimeout(autoStep, Number($("delay").value)); });
}

function seek(at) { act("seek", { at }); }

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
  $("draw").addEventListener("click", () => act("move", { action: "draw" }));
  $("pass").addEventListener("click", () => act("move", { action: "pass" }));
  $("next-hand").addEventListener("click", () => act("next"));
  $("step").addEventListener("click", () => act("step"));
  $("autoplay").addEventListener("click", () => {
    if (timer) { stopAuto(); return; }
    $("autoplay").textContent = "Pause";
    timer = setTimeout(autoStep, 0);
  });
  $("first").addEventListener("click", () => seek(0));
  $("back").addEventListener("click", () => seek(state.at - 1));
  $("forward").addEventListener("click", () => seek(state.at + 1));
  $("last").addEventListener("click", () => seek(state.steps - 1));
  $("position").addEventListener("change", () => seek(Number($("position").value)));
  setTab("play");
}

init().catch(showError);
