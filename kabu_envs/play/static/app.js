// kabu-play web page: plain JavaScript, no build step. Everything drawn comes from the server's seat
// views (kabu_envs/core/views.py): the server never sends a card this seat may not see.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const DELAY = Number(params.get("delay") ?? 450); // ms between the opponents' moves (?delay=0: none)
let games = [];
let token = null;
let busy = false;
let replay = null; // {record, seat, total, pages: Map(first -> frames), pos}
let turns = 0; // states drawn so far (body[data-turn]: a test waits for it to move)
const PAGE = 100; // frames per replay request (the server sends at most 200)

const MONTH_COLORS = ["#2e7d32", "#c2185b", "#f48fb1", "#7e57c2", "#3949ab", "#d81b60", "#8d6e63",
  "#9e9d24", "#f9a825", "#e65100"];

function svg(tag, attrs, text) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

// One card as inline SVG (its picture is drawn here: no image files).
function cardEl(card, fresh) {
  const div = document.createElement("div");
  div.className = "card" + (fresh ? " fresh" : "");
  if (card.hidden) {
    div.classList.add("back");
    div.title = "face down";
    return div;
  }
  div.dataset.card = card.id;
  div.title = card.name;
  const s = svg("svg", { viewBox: "0 0 64 90" });
  const ink = card.red ? "#c62828" : "#1a1a1a";
  if (card.kind === "western") {
    s.append(svg("text", { x: 5, y: 17, "font-size": 15, fill: ink, "font-weight": "bold" }, card.rank));
    s.append(svg("text", { x: 5, y: 31, "font-size": 13, fill: ink }, card.suit));
    s.append(svg("text", { x: 32, y: 60, "font-size": 30, fill: ink, "text-anchor": "middle" }, card.suit));
    s.append(svg("text", { x: 59, y: 84, "font-size": 15, fill: ink, "text-anchor": "end",
      "font-weight": "bold" }, card.rank));
  } else if (card.kind === "hanafuda") {
    const month = Number(card.rank);
    s.append(svg("rect", { x: 3, y: 3, width: 58, height: 84, rx: 4, fill: MONTH_COLORS[month - 1] }));
    s.append(svg("circle", { cx: 32, cy: 44, r: 16, fill: "#fffdf6", opacity: 0.85 }));
    s.append(svg("text", { x: 32, y: 51, "font-size": 20, "text-anchor": "middle", fill: "#222",
      "font-weight": "bold" }, card.rank));
    const fit = card.suit.length > 9 ? { textLength: 54, lengthAdjust: "spacingAndGlyphs" } : {};
    s.append(svg("text", { x: 32, y: 81, "font-size": 8, "text-anchor": "middle", fill: "#fff", ...fit }, card.suit));
    if (card.light) s.append(svg("text", { x: 8, y: 17, "font-size": 14, fill: "#ffd54a" }, "★"));
  } else if (card.kind === "kabufuda") {
    s.append(svg("rect", { x: 3, y: 3, width: 58, height: 84, rx: 4, fill: "#222" }));
    s.append(svg("rect", { x: 7, y: 7, width: 50, height: 76, rx: 3, fill: "none",
      stroke: card.red ? "#e53935" : "#c9a22a", "stroke-width": 2 }));
    s.append(svg("text", { x: 32, y: 56, "font-size": 30, "text-anchor": "middle",
      fill: card.red ? "#e53935" : "#fffdf6", "font-weight": "bold" }, card.rank));
  } else {
    s.append(svg("text", { x: 32, y: 56, "font-size": 30, "text-anchor": "middle", fill: ink }, card.rank));
  }
  div.append(s);
  return div;
}

// `before`: the zone's cards in the previous frame; a card that was not there pops in (animated).
function cardsEl(cards, fresh, before) {
  const box = document.createElement("div");
  box.className = "cards";
  cards.forEach((c, i) => {
    const same = before && before[i] && JSON.stringify(before[i]) === JSON.stringify(c);
    box.append(cardEl(c, fresh && !same));
  });
  return box;
}

// Draw a seat view into `root` (the game table or the replay viewer).
function drawView(view, root, ids, fresh) {
  const before = {};
  for (const z of ids.last ? ids.last.zones : []) before[z.label] = z.cards;
  ids.last = view;
  ids.title.textContent = view.title;
  ids.status.replaceChildren(...view.status.map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
  ids.zones.replaceChildren(...view.zones.map((z) => {
    const div = document.createElement("div");
    div.className = "zone" + (z.active ? " active" : "");
    const label = document.createElement("div");
    label.className = "label";
    label.textContent = z.label;
    const note = document.createElement("div");
    note.className = "note";
    note.textContent = z.note;
    div.append(label, cardsEl(z.cards, fresh, before[z.label]), note);
    return div;
  }));
  if (ids.hand) {
    $("hand-box").classList.toggle("hidden", !view.hand);
    if (view.hand) {
      ids.handLabel.textContent = view.hand.label;
      ids.hand.replaceChildren(...view.hand.cards.map((c) => cardEl(c, false)));
    }
  }
}

const TABLE = { title: $("title"), status: $("status"), zones: $("zones"), hand: $("hand"), handLabel: $("hand-label") };

// The server answers JSON, also for its errors ({error}); a failed call throws an Error with .status.
async function api(path, body) {
  const res = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  let data = null;
  try {
    data = await res.json();
  } catch (e) {
    data = { error: `the server answered ${res.status} ${res.statusText}` };
  }
  if (!res.ok) {
    const err = new Error(data.error || res.statusText);
    err.status = res.status;
    throw err;
  }
  return data;
}

// An integer typed into a field: null when empty; an Error naming the field otherwise.
function intField(id, what) {
  const text = $(id).value.trim();
  if (text === "") return null;
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new Error(`${what}: a whole number 0..${Number.MAX_SAFE_INTEGER} (or empty), not ${JSON.stringify(text)}`);
  }
  return Number(text);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function logMove(text, mine) {
  if (!text) return;
  const li = document.createElement("li");
  li.textContent = text;
  if (mine) li.className = "mine";
  $("log").append(li);
  $("log").scrollTop = $("log").scrollHeight;
}

function showResult(view, rewards, names) {
  $("result-title").textContent = `Result of round ${view.round}`;
  const lines = [...view.result];
  if (rewards) lines.push("rewards: " + rewards.map((r, i) => `${names[i]} ${r >= 0 ? "+" : ""}${r}`).join(", "));
  $("result").replaceChildren(...lines.map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
  $("result-box").classList.remove("hidden");
}

// Show the frames one by one (the opponents' moves), then the state with the legal moves.
async function play(frames, state) {
  busy = true;
  document.body.classList.add("busy");
  $("moves").replaceChildren();
  for (const f of frames) {
    drawView(f.view, $("table"), TABLE, true);
    logMove(f.move, f.actor === state.seat);
    if (f.round_over) showResult(f.view, f.rewards, state.names);
    if (DELAY > 0) await sleep(DELAY);
  }
  if (state.pending) { // the agents have more moves than one answer holds: ask for the rest
    const out = await api("/api/move", { token, action: null });
    return play(out.frames, out.state);
  }
  drawState(state);
  busy = false;
  document.body.classList.remove("busy");
}

// The game is gone from the server (idle too long, or the server restarted): say so, offer a new one.
function gameGone(message) {
  token = null;
  tab("play");
  $("error").textContent = message;
}

function drawState(state) {
  drawView(state.view, $("table"), TABLE, false);
  for (const id of ["download", "save"]) $(id).href = `/api/record?token=${encodeURIComponent(token)}`;
  const moves = state.moves;
  $("moves-box").classList.toggle("hidden", state.over);
  $("moves").replaceChildren(...moves.map((m) => {
    const b = document.createElement("button");
    b.className = "move legal";
    b.textContent = m.label;
    b.dataset.action = m.action;
    b.addEventListener("click", () => move(m.action));
    return b;
  }));
  for (const m of moves) {
    if (m.card === null || m.card === undefined) continue;
    const el = $("hand").querySelector(`[data-card="${m.card}"]`);
    if (!el) continue;
    el.classList.add("legal");
    el.addEventListener("click", () => move(m.action));
  }
  if (state.over) {
    $("summary").replaceChildren(...state.totals.map((t, i) => {
      const li = document.createElement("li");
      li.textContent = `${state.names[i]}: ${t >= 0 ? "+" : ""}${t}`;
      li.dataset.seat = i;
      li.dataset.total = t;
      return li;
    }));
    $("record-file").textContent = state.record_file ? `record written to ${state.record_file}` : "";
    $("summary-box").classList.remove("hidden");
  }
  document.body.dataset.turn = String(++turns);
}

async function move(action) {
  if (busy) return;
  busy = true;
  $("move-error").textContent = "";
  // a round's result stays up until the person's next move (their first of the next round)
  $("result-box").classList.add("hidden");
  try {
    const out = await api("/api/move", { token, action });
    await play(out.frames, out.state);
  } catch (e) {
    busy = false;
    document.body.classList.remove("busy");
    if (e.status === 404) gameGone(e.message);
    else $("move-error").textContent = e.message;
  }
}

function newTable() {
  $("log").replaceChildren();
  $("move-error").textContent = "";
  $("result-box").classList.add("hidden");
  $("summary-box").classList.add("hidden");
}

async function start() {
  $("error").textContent = "";
  let options;
  try {
    options = JSON.parse($("options").value || "{}");
  } catch (e) {
    $("error").textContent = `rule options: not JSON (${e.message})`;
    return;
  }
  const game = $("game").value;
  const opponents = $("opponents").value.trim() || games.find((g) => g.id === game).opponent;
  try {
    const seat = intField("seat", "your seat") ?? 0;
    const seed = intField("seed", "seed");
    const out = await api("/api/new", { game, seat, opponents, options, seed });
    token = out.token;
    newTable();
    $("setup").classList.add("hidden");
    $("table").classList.remove("hidden");
    await play(out.frames, out.state);
  } catch (e) {
    $("error").textContent = e.message;
  }
}

// --- replay viewer -----------------------------------------------------------------------------------
const RTABLE = {};
function replayTable() {
  const root = $("replay-table");
  if (!RTABLE.title) {
    RTABLE.title = document.createElement("h2");
    RTABLE.status = document.createElement("ul");
    RTABLE.zones = document.createElement("div");
    RTABLE.zones.className = "zones";
    RTABLE.hand = null;
    RTABLE.handBox = document.createElement("div");
    RTABLE.result = document.createElement("ul");
    root.append(RTABLE.title, RTABLE.status, RTABLE.zones, RTABLE.handBox, RTABLE.result);
  }
  return RTABLE;
}

// The replay's frame `pos`, fetched with its page when not loaded yet (a long record comes in pages).
async function replayFrame(pos) {
  const first = Math.floor(pos / PAGE) * PAGE;
  if (!replay.pages.has(first)) {
    const out = await api("/api/replay", { record: replay.record, seat: replay.seat, first, count: PAGE });
    replay.pages.set(first, out.frames);
  }
  return replay.pages.get(first)[pos - first];
}

function showReplayFrame(f) {
  const { total, pos } = replay;
  const t = replayTable();
  drawView(f.view, $("replay-table"), t, false);
  t.handBox.replaceChildren();
  if (f.view.hand) {
    const h = document.createElement("h3");
    h.textContent = f.view.hand.label;
    t.handBox.append(h, cardsEl(f.view.hand.cards, false));
  }
  const lines = f.round_over ? [...f.view.result] : [];
  if (f.round_over && f.rewards) lines.push("rewards: " + f.rewards.map((r, i) => `player_${i} ${r >= 0 ? "+" : ""}${r}`).join(", "));
  t.result.replaceChildren(...lines.map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
  $("replay-pos").textContent = `move ${pos} / ${total - 1}`;
  $("replay-move").textContent = f.move || (pos === 0 ? "the deal" : "(a move this seat did not see)");
}

async function replayGo(pos) {
  const want = Math.max(0, Math.min(replay.total - 1, pos));
  try {
    const f = await replayFrame(want);
    replay.pos = want;
    showReplayFrame(f);
  } catch (e) {
    $("replay-error").textContent = e.message;
  }
}

async function loadReplay() {
  $("replay-error").textContent = "";
  const file = $("replay-file").files[0];
  if (!file) {
    $("replay-error").textContent = "choose a game record file first";
    return;
  }
  try {
    const record = JSON.parse(await file.text());
    const seat = intField("replay-seat", "seen by seat");
    const out = await api("/api/replay", { record, seat, first: 0, count: PAGE });
    replay = { record, seat: out.seat, total: out.total, pages: new Map([[0, out.frames]]), pos: 0 };
    $("replay-resume").classList.toggle("hidden", record.complete || record.viewer === null);
    $("replay-controls").classList.remove("hidden");
    showReplayFrame(out.frames[0]);
  } catch (e) {
    $("replay-error").textContent = e.message;
  }
}

// Continue a saved (incomplete) game from its record, in the Play tab.
async function resumeGame() {
  try {
    const out = await api("/api/resume", { record: replay.record });
    token = out.token;
    tab("play");
    newTable();
    await play(out.frames, out.state);
  } catch (e) {
    $("replay-error").textContent = e.message;
  }
}

function tab(which) {
  const playing = which === "play";
  $("tab-play").classList.toggle("active", playing);
  $("tab-replay").classList.toggle("active", !playing);
  $("replay").classList.toggle("hidden", playing);
  $("setup").classList.toggle("hidden", !playing || token !== null);
  $("table").classList.toggle("hidden", !playing || token === null);
}

async function init() {
  games = await api("/api/games");
  $("game").replaceChildren(...games.map((g) => {
    const o = document.createElement("option");
    o.value = g.id;
    o.textContent = `${g.title} (${g.seats} seats; opponents: ${g.agents.join(", ")})`;
    return o;
  }));
  const wanted = params.get("game");
  if (wanted) $("game").value = wanted;
  for (const key of ["seat", "seed", "opponents", "options"]) if (params.has(key)) $(key).value = params.get(key);
  $("start").addEventListener("click", start);
  $("again").addEventListener("click", () => {
    token = null;
    tab("play");
  });
  $("tab-play").addEventListener("click", () => tab("play"));
  $("tab-replay").addEventListener("click", () => tab("replay"));
  $("replay-load").addEventListener("click", loadReplay);
  $("replay-resume").addEventListener("click", resumeGame);
  $("replay-first").addEventListener("click", () => replayGo(0));
  $("replay-prev").addEventListener("click", () => replayGo(replay.pos - 1));
  $("replay-next").addEventListener("click", () => replayGo(replay.pos + 1));
  $("replay-last").addEventListener("click", () => replayGo(replay.total - 1));
  $("replay-play").addEventListener("click", async () => {
    while (replay.pos < replay.total - 1) {
      await replayGo(replay.pos + 1);
      await sleep(Math.max(DELAY, 150));
    }
  });
  document.body.dataset.ready = "1";
}

init().catch((e) => { $("error").textContent = e.message; });
