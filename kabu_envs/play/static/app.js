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

let animate = params.get("anim") !== "0" && localStorage.getItem("kabu-anim") !== "0"; // the off switch

// One card (its picture: cards.js). `fresh`: it just arrived (animated from its seat).
function cardEl(card, fresh) {
  const div = document.createElement("div");
  div.className = "card" + (fresh ? " fresh" : "") + (card.hidden ? " back" : "");
  div.title = card.hidden ? t("faceDown") : say(card.say ?? card.name);
  if (!card.hidden) div.dataset.card = card.id;
  div.append(cardSvg(card));
  return div;
}

// `before`: the zone's cards in the previous frame; a card that was not there is fresh.
function cardsEl(cards, fresh, before) {
  const box = document.createElement("div");
  box.className = "cards";
  cards.forEach((c, i) => {
    const same = before && before[i] && JSON.stringify(before[i]) === JSON.stringify(c);
    box.append(cardEl(c, fresh && !same));
  });
  return box;
}

// Face-down cards a seat holds: a short fan of backs and the count.
function backsEl(n) {
  const box = document.createElement("div");
  box.className = "backs";
  box.title = `${n} ${t("cards")}`;
  for (let i = 0; i < Math.min(n, 3); i++) box.append(cardEl({ hidden: true }, false));
  const count = document.createElement("span");
  count.className = "count";
  count.textContent = `×${n}`;
  box.append(count);
  return box;
}

// Stakes as chips: one stack per seat, its amount written on it.
function chipsEl(stakes, names) {
  const box = document.createElement("div");
  box.className = "chips";
  for (const [p, amount] of stakes) {
    const chip = document.createElement("span");
    chip.className = `chip c${p % 6}`;
    chip.dataset.seat = p;
    chip.textContent = amount;
    chip.title = `${playerName(names[p] ?? "player_" + p)}: ${amount}`;
    box.append(chip);
  }
  return box;
}

// An element showing one of the server's lines (a message) in the page's language.
function textEl(tag, cls, line) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  el.append(say(line));
  return el;
}

function zoneEl(z, fresh, before, names) {
  const div = document.createElement("div");
  div.className = "zone" + (z.active ? " active" : "") + (z.cards.length > 5 ? " many" : "");
  div.dataset.label = z.label;
  div.append(textEl("div", "label", z.say && z.say.label ? z.say.label : z.label));
  if (z.cards.length) div.append(cardsEl(z.cards, fresh, before[z.label]));
  if (z.backs) div.append(backsEl(z.backs));
  if (z.stakes && z.stakes.length) div.append(chipsEl(z.stakes, names));
  if (z.note) div.append(textEl("div", "note", noteMsg(z)));
  return div;
}

// Where the other seats sit, clockwise from the viewer (at the bottom): left, top (the rest), right.
function placeSeats(n, me) {
  const others = [];
  for (let k = 1; k < n; k++) others.push((me + k) % n);
  if (others.length <= 1) return { left: [], top: others, right: [] };
  if (others.length === 2) return { left: [others[0]], top: [], right: [others[1]] };
  return { left: [others[0]], top: others.slice(1, -1), right: [others[others.length - 1]] };
}

// Draw a seat view as a table into `ids.root`: the seats around it (their zones: played cards,
// backs with counts), the zones of no seat (spreads, tricks) in the middle, the viewer's seat and
// hand at the bottom. `ctx`: {me, n, names, toAct, actor}; `fresh`: animate what changed.
function drawView(view, ids, fresh, ctx) {
  const before = {};
  const chipsBefore = {};
  for (const z of ids.last ? ids.last.zones : []) {
    before[z.label] = z.cards;
    chipsBefore[z.label] = JSON.stringify(z.stakes || []);
  }
  const from = fresh && ctx.actor !== null && ctx.actor !== undefined ? seatRect(ids.root, ctx.actor) : null;
  speaker = { me: ctx.me ?? 0, person: Boolean(ctx.person) }; // whose "you" the server's lines mean
  ids.last = view;
  ids.title.replaceChildren(say(view.say.title));
  ids.status.replaceChildren(...view.say.status.map((line) => textEl("li", "", line)));
  const n = Math.max(ctx.n || 0, ...view.zones.map((z) => (z.seat ?? -1) + 1));
  const me = ctx.me ?? 0;
  const bySeat = new Map();
  const middle = [];
  for (const z of view.zones) {
    if (z.seat === null || z.seat === undefined) middle.push(z);
    else bySeat.set(z.seat, [...(bySeat.get(z.seat) || []), z]);
  }
  const seatBox = (p) => {
    const box = document.createElement("div");
    box.className = "seat" + (p === ctx.toAct ? " to-act" : "") + (p === me ? " me" : "");
    box.dataset.seat = p;
    const name = document.createElement("div");
    name.className = "name";
    name.append(playerName(ctx.names[p] ?? `player_${p}`));
    if (p === ctx.toAct) name.append(textEl("span", "turn-mark", ctx.person && p === me ? t("yourTurn") : "▶"));
    box.append(name, ...(bySeat.get(p) || []).map((z) => zoneEl(z, fresh, before, ctx.names)));
    return box;
  };
  const place = placeSeats(n, me);
  ids.left.replaceChildren(...place.left.map(seatBox));
  ids.top.replaceChildren(...place.top.map(seatBox));
  ids.right.replaceChildren(...place.right.map(seatBox));
  ids.middle.replaceChildren(...middle.map((z) => zoneEl(z, fresh, before, ctx.names)));
  ids.bottom.replaceChildren(...(n ? [seatBox(me)] : []));
  if (ids.hand) {
    ids.handBox.classList.toggle("hidden", !view.hand);
    if (view.hand) {
      ids.handLabel.replaceChildren(say(view.hand.say ?? view.hand.label));
      ids.hand.replaceChildren(...view.hand.cards.map((c) => cardEl(c, false)));
    }
  }
  if (animate && fresh) {
    for (const el of ids.root.querySelectorAll(".card.fresh")) slideFrom(el, from);
    for (const z of view.zones) {
      if (JSON.stringify(z.stakes || []) === (chipsBefore[z.label] ?? "[]")) continue;
      const zel = [...ids.root.querySelectorAll(".zone")].find((e) => e.dataset.label === z.label);
      for (const chip of zel ? zel.querySelectorAll(".chip") : []) {
        slideFrom(chip, seatRect(ids.root, Number(chip.dataset.seat)));
      }
    }
  }
}

function seatRect(root, seat) {
  const el = root.querySelector(`.seat[data-seat="${seat}"]`);
  return el ? el.getBoundingClientRect() : null;
}

// A short move animation: from the acting seat (or a pop where there is none) to the element.
function slideFrom(el, rect) {
  const to = el.getBoundingClientRect();
  const dx = rect ? rect.left + rect.width / 2 - (to.left + to.width / 2) : 0;
  const dy = rect ? rect.top + rect.height / 2 - (to.top + to.height / 2) : 0;
  document.body.dataset.animations = String(Number(document.body.dataset.animations || 0) + 1); // (tests)
  el.animate(
    [{ transform: `translate(${dx}px, ${dy}px) scale(${rect ? 0.8 : 0.6})`, opacity: 0.3 }, { transform: "none", opacity: 1 }],
    { duration: Math.min(350, Math.max(120, DELAY * 0.7)), easing: "ease-out" },
  );
}

function tableIds(root) {
  const q = (sel) => root.querySelector(sel);
  return {
    root, title: q(".t-title"), status: q(".t-status"), left: q(".t-left"), top: q(".t-top"),
    right: q(".t-right"), middle: q(".t-middle"), bottom: q(".t-bottom"),
    hand: q(".t-hand"), handBox: q(".t-hand-box"), handLabel: q(".t-hand-label"),
  };
}

// The server answers JSON, also for its errors ({error}); a failed call throws an Error with .status.
async function api(path, body) {
  const res = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  let data = null;
  try {
    data = await res.json();
  } catch (e) {
    data = {
      error: `the server answered ${res.status} ${res.statusText}`,
      say: { key: "error.no_answer", args: { status: res.status, phrase: res.statusText } },
    };
  }
  if (!res.ok) {
    const err = new Error(data.error || res.statusText);
    err.status = res.status;
    err.say = data.say; // (the error as a message: written in the page's language)
    throw err;
  }
  return data;
}

// An integer typed into a field: null when empty; an Error naming the field otherwise.
function intField(id, what) {
  const text = $(id).value.trim();
  if (text === "") return null;
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    const err = new Error(`${t(what)}: ${t("wholeNumber")} ${JSON.stringify(text)}`);
    err.local = true; // (already in the page's language)
    throw err;
  }
  return Number(text);
}

// A seat typed by the person: numbered from 1 on the page, from 0 on the server.
function seatField(id, what) {
  const n = intField(id, what);
  return n === null ? null : Math.max(0, n - 1);
}

const errorText = errorMessage;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The move log: the server's lines kept, with whose eyes they were written, so that a change of
// language writes the whole log again.
let logLines = [];

function logLi(entry) {
  speaker = entry.speaker;
  const li = textEl("li", entry.mine ? "mine" : "", entry.said);
  li.dataset.text = entry.text;
  return li;
}

function logMove(frame, mine) {
  if (!frame.move) return;
  const entry = { text: frame.move, said: frame.say, mine, speaker: { ...speaker } };
  logLines.push(entry);
  $("log").append(logLi(entry));
  $("log").scrollTop = $("log").scrollHeight;
}

function redrawLog() {
  const keep = speaker;
  $("log").replaceChildren(...logLines.map(logLi));
  speaker = keep;
  $("log").scrollTop = $("log").scrollHeight;
}

// The result lines of a frame: the server's, then the rewards (written by the page in its language).
function resultLines(view, rewards, names) {
  const lines = [...view.say.result];
  if (rewards) lines.push(`${t("rewards")}: ` + rewards.map((r, i) => `${playerName(names[i] ?? "player_" + i)} ${r >= 0 ? "+" : ""}${r}`).join(JA() ? "、" : ", "));
  return lines;
}

const isKakeya = (view) => view.say.title.key === "kakeya.title";

// "Result of round 2" / "Result of deal 2" / 「第2勝負の結果」 / 「第2回の結果」.
function roundTitle(view, n) {
  if (JA()) return isKakeya(view) ? `第${n}回の結果` : `第${n}勝負の結果`;
  return `Result of ${isKakeya(view) ? "deal" : "round"} ${n}`;
}

let shownResult = null; // the result on screen: {view, rewards, names} (written again on a language switch)

function showResult(view, rewards, names) {
  shownResult = { view, rewards, names, speaker: { ...speaker } };
  $("result-title").textContent = roundTitle(view, view.round);
  $("result").replaceChildren(...resultLines(view, rewards, names).map((line, i) => {
    const li = textEl("li", "", line);
    li.dataset.text = view.result[i] ?? ""; // (the server's English: the test compares it with the engine's)
    return li;
  }));
  $("result-box").classList.remove("hidden");
}

// --- the history: each finished round's result and final table -------------------------------------
let history = []; // [{view, rewards, names, speaker}]

function addHistory(view, rewards, names) {
  history.push({ view, rewards, names, speaker: { ...speaker } });
  drawHistory();
}

function drawHistory() {
  const keep = speaker;
  const totals = [];
  $("history").replaceChildren(...history.map((h, k) => {
    speaker = h.speaker;
    (h.rewards || []).forEach((r, i) => { totals[i] = (totals[i] || 0) + r; });
    const li = document.createElement("li");
    const head = document.createElement("div");
    head.className = "h-head";
    head.append(roundTitle(h.view, h.view.round));
    const chips = (h.rewards || []).map((r, i) => `${playerName(h.names[i] ?? "player_" + i)} ${r >= 0 ? "+" : ""}${r}`).join(JA() ? "、" : ", ");
    const sum = totals.map((x, i) => `${playerName(h.names[i] ?? "player_" + i)} ${x >= 0 ? "+" : ""}${x}`).join(JA() ? "、" : ", ");
    const lines = document.createElement("ul");
    lines.append(...h.view.say.result.map((line) => textEl("li", "", line)));
    if (chips) lines.append(textEl("li", "", `${t("rewards")}: ${chips}`), textEl("li", "h-total", `${t("total")}: ${sum}`));
    const show = document.createElement("button");
    show.className = "h-show";
    show.textContent = t("showTable");
    show.addEventListener("click", () => showHistoryTable(k));
    li.append(head, lines, show);
    return li;
  }));
  $("history-empty").classList.toggle("hidden", history.length > 0);
  speaker = keep;
}

const HTABLE = tableIds($("history-table"));

function showHistoryTable(k) {
  const h = history[k];
  const keep = speaker;
  HTABLE.last = null;
  drawView(h.view, HTABLE, false, { me: h.speaker.me, n: h.names.length, names: h.names, toAct: null, actor: null, person: h.speaker.person });
  speaker = keep;
  $("history-table").classList.remove("hidden");
  $("history-table").dataset.round = String(k + 1);
}

let continueRound = null; // ends the hold of a round's showdown (the Next round button, Enter or space)

function holdShowdown() {
  const button = $("result-continue");
  button.classList.remove("hidden");
  $("turn-banner").replaceChildren(t("showdownHeld"));
  $("turn-banner").classList.remove("mine");
  return new Promise((resolve) => {
    continueRound = () => {
      continueRound = null;
      button.classList.add("hidden");
      resolve();
    };
  });
}

const TABLE = tableIds($("table"));
let last = null; // the last state drawn (redrawn when the language changes)
let watching = null; // watch mode: {paused, step, speed}

function ctxOf(state, actor) {
  const person = state.seat !== null && state.seat !== undefined;
  return { me: person ? state.seat : state.eye ?? 0, n: state.names.length, names: state.names, toAct: state.to_act, actor, person };
}

// Show the frames one by one (the other seats' moves), then the state with the legal moves.
async function play(frames, state) {
  busy = true;
  document.body.classList.add("busy");
  $("moves").replaceChildren();
  for (const f of frames) {
    if (watching) await watchGate();
    // a new round's first move clears the last round's result (it stays up until then)
    if (!f.round_over && watching) $("result-box").classList.add("hidden");
    drawView(f.view, TABLE, true, { ...ctxOf(state, f.actor), toAct: f.showdown ? null : f.to_act });
    if (!f.over && !f.showdown && f.to_act !== null && f.to_act !== undefined) {
      $("turn-banner").replaceChildren(`${t("waiting")} ${playerName(state.names[f.to_act] ?? "")}`);
      $("turn-banner").classList.remove("mine");
    }
    logMove(f, f.actor === state.seat);
    if (f.round_over) {
      showResult(f.view, f.rewards, state.names);
      addHistory(f.view, f.rewards, state.names);
    }
    // a person's round that is not the last: its showdown stays until they continue (the next deal
    // follows in the same answer)
    if (f.showdown && !watching && state.seat !== null && state.seat !== undefined) {
      await holdShowdown();
    }
    const wait = watching ? watching.delay : DELAY;
    if (wait > 0) await sleep(wait);
  }
  if (state.pending) { // the agents have more moves than one answer holds: ask for the rest
    const out = await api("/api/move", { token, action: null });
    return play(out.frames, out.state);
  }
  drawState(state);
  busy = false;
  document.body.classList.remove("busy");
}

// Watch mode: wait while paused (a step lets one move through).
async function watchGate() {
  while (watching && watching.paused && !watching.step) await sleep(50);
  if (watching) watching.step = false;
}

// The game is gone from the server (idle too long, or the server restarted): say so, offer a new one.
function gameGone(message) {
  token = null;
  tab("play");
  $("error").textContent = message;
}

// The keys of the moves, in order: 1-9, 0 (the 10th), then letters (a Kakeya hand has 13 cards).
const MOVE_KEYS = "1234567890abcdefghijklmnopqrstuvwxyz";

function drawState(state) {
  last = state;
  drawView(state.view, TABLE, false, ctxOf(state, null));
  drawRules(state);
  for (const id of ["download", "save"]) $(id).href = `/api/record?token=${encodeURIComponent(token)}`;
  const moves = state.moves;
  $("moves-box").classList.toggle("hidden", state.over || watching !== null);
  const watched = watching ? `${t("watching")}: ${seatLabel(state.eye ?? 0)} — ` : "";
  $("turn-banner").replaceChildren(
    state.over ? t("over") : moves.length ? t("yourTurn") : `${watched}${t("waiting")} ${playerName(state.names[state.to_act] ?? "")}`,
  );
  for (const id of ["watch-pause", "watch-step"]) $(id).classList.toggle("hidden", state.over);
  $("save-line").classList.toggle("hidden", state.over || watching !== null); // (a watched game: no saving)
  $("turn-banner").classList.toggle("mine", moves.length > 0);
  $("moves").replaceChildren(...moves.map((m, i) => {
    const b = document.createElement("button");
    b.className = "move legal";
    if (i < MOVE_KEYS.length) {
      const k = document.createElement("kbd");
      k.textContent = MOVE_KEYS[i];
      b.append(k);
      b.dataset.key = MOVE_KEYS[i];
    }
    b.append(say(m.say ?? m.label));
    b.dataset.label = m.label;
    b.dataset.action = m.action;
    if (m.card !== null && m.card !== undefined) b.dataset.card = m.card;
    b.addEventListener("click", () => move(m.action));
    return b;
  }));
  moves.forEach((m, i) => {
    if (m.card === null || m.card === undefined) return;
    const el = $("hand").querySelector(`[data-card="${m.card}"]`);
    if (!el) return;
    if (i < MOVE_KEYS.length) { // the card's key, on the card too (a phone shows the cards, not the buttons)
      const key = document.createElement("kbd");
      key.className = "card-key";
      key.textContent = MOVE_KEYS[i];
      el.append(key);
    }
    el.classList.add("legal");
    el.addEventListener("click", () => move(m.action));
  });
  if (state.over && !state.kept && token) {
    state.kept = true;
    keepRecord(token, state.view.say.title);
  }
  if (state.over) {
    $("summary").replaceChildren(...state.totals.map((total, i) => {
      const li = document.createElement("li");
      li.textContent = `${playerName(state.names[i])}: ${total >= 0 ? "+" : ""}${total}`;
      li.dataset.seat = i;
      li.dataset.total = total;
      return li;
    }));
    $("record-file").textContent = state.record_file
      ? `${t("recordWritten")} ${state.record_file}`
      : state.record_error_say ? renderMsg(state.record_error_say) : "";
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
    if (e.status === 404) gameGone(errorText(e));
    else $("move-error").textContent = errorText(e);
  }
}

function newTable() {
  continueRound = null; // (a held showdown of the last game is dropped with it)
  $("result-continue").classList.add("hidden");
  $("log").replaceChildren();
  logLines = [];
  history = [];
  shownResult = null;
  drawHistory();
  $("history-table").classList.add("hidden");
  $("move-error").textContent = "";
  $("result-box").classList.add("hidden");
  $("summary-box").classList.add("hidden");
  TABLE.last = null;
}

function readOptions(errorId) {
  try {
    return JSON.parse($("options").value || "{}");
  } catch (e) {
    $(errorId).textContent = `${t("notJson")} (${e.message})`;
    return null;
  }
}

async function start() {
  $("error").textContent = "";
  const options = readOptions("error");
  if (options === null) return;
  const game = $("game").value;
  const opponents = $("opponents").value.trim() || games.find((g) => g.id === game).opponent;
  try {
    const seat = seatField("seat", "yourSeatField") ?? 0;
    const seed = intField("seed", "seedField");
    const out = await api("/api/new", { game, seat, opponents, options, seed });
    token = out.token;
    watching = null;
    newTable();
    tab("play");
    await play(out.frames, out.state);
  } catch (e) {
    $("error").textContent = errorText(e);
  }
}

// --- watch mode: agents on every seat ----------------------------------------------------------------
function watchSeats() {
  const g = games.find((x) => x.id === $("watch-game").value);
  let n = g.seats;
  try {
    const opts = JSON.parse($("watch-options").value || "{}");
    if (Number.isInteger(opts.num_players)) n = opts.num_players;
  } catch (e) { /* (reported when the watch starts) */ }
  const box = $("watch-agents");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren(...Array.from({ length: n }, (_, i) => {
    const label = document.createElement("label");
    label.append(`${seatLabel(i)} `);
    const sel = document.createElement("select");
    sel.className = "agent";
    for (const a of new Set(["random", ...g.agents])) sel.append(new Option(agentName(a), a)); // (each once)
    sel.value = old[i] ?? (params.get(`agent${i}`) || g.opponent);
    label.append(sel);
    return label;
  }));
  const eye = $("watch-view");
  const was = eye.value;
  eye.replaceChildren(new Option(t("god"), "god"), ...Array.from({ length: n }, (_, i) => new Option(seatLabel(i), String(i))));
  eye.value = [...eye.options].some((o) => o.value === was) ? was : "god";
}

async function startWatch() {
  $("watch-error").textContent = "";
  let options;
  try {
    options = JSON.parse($("watch-options").value || "{}");
  } catch (e) {
    $("watch-error").textContent = `${t("notJson")} (${e.message})`;
    return;
  }
  const agents = [...$("watch-agents").querySelectorAll("select")].map((s) => s.value);
  try {
    const seed = intField("watch-seed", "seedField");
    const god = $("watch-view").value === "god";
    const view = god ? 0 : Number($("watch-view").value || 0);
    const out = await api("/api/watch", { game: $("watch-game").value, agents, options, seed, view, god });
    token = out.token;
    watching = { paused: false, step: false, delay: speedDelay() };
    $("watch-pause").textContent = t("pause");
    newTable();
    tab("watch-table");
    await play(out.frames, out.state);
  } catch (e) {
    $("watch-error").textContent = errorText(e);
  }
}

// The pause between moves: ?delay=MS at first, else (and once the slider moves) the slider's.
function speedDelay(moved) {
  if (params.has("delay") && !moved) return DELAY;
  return [1200, 700, 350, 120, 0][Number($("watch-speed").value)] ?? 350;
}

// --- replay viewer -----------------------------------------------------------------------------------
const RTABLE = tableIds($("replay-table"));

// The replay's frame `pos`, fetched with its page when not loaded yet (a long record comes in pages).
async function replayFrame(pos) {
  const first = Math.floor(pos / PAGE) * PAGE;
  if (!replay.pages.has(first)) {
    const out = await api("/api/replay", { record: replay.record, seat: replay.seat, god: replay.god, first, count: PAGE });
    replay.pages.set(first, out.frames);
  }
  return replay.pages.get(first)[pos - first];
}

function showReplayFrame(f, fresh) {
  const { total, pos } = replay;
  const names = replay.record.seats.map((s, i) => `player_${i} (${s.agent})`);
  drawView(f.view, RTABLE, fresh, { me: replay.seat, n: names.length, names, toAct: f.to_act, actor: f.actor, person: false });
  const lines = f.round_over ? resultLines(f.view, f.rewards, names) : [];
  $("replay-result").replaceChildren(...lines.map((line) => textEl("li", "", line)));
  $("replay-pos").textContent = JA() ? `${pos}手目 / 全${total - 1}手` : `${t("move")} ${pos} / ${total - 1}`;
  $("replay-move").replaceChildren(f.move ? say(f.say ?? f.move) : pos === 0 ? t("deal") : t("unseen"));
  $("replay-move").dataset.text = f.move || "";
}

async function replayGo(pos, fresh) {
  const want = Math.max(0, Math.min(replay.total - 1, pos));
  try {
    const f = await replayFrame(want);
    replay.pos = want;
    showReplayFrame(f, Boolean(fresh));
  } catch (e) {
    $("replay-error").textContent = errorText(e);
  }
}

async function loadReplay(saved) {
  $("replay-error").textContent = "";
  const file = $("replay-file").files[0];
  if (!file && !saved) {
    $("replay-error").textContent = t("chooseFile");
    return;
  }
  try {
    const record = saved || JSON.parse(await file.text());
    const seat = seatField("replay-seat", "recordFile");
    const god = $("replay-god").checked;
    const out = await api("/api/replay", { record, seat, god, first: 0, count: PAGE });
    replay = { record, seat: out.seat, god, total: out.total, pages: new Map([[0, out.frames]]), pos: 0, playing: false };
    RTABLE.last = null;
    $("replay-resume").classList.toggle("hidden", record.complete || record.viewer === null);
    $("replay-controls").classList.remove("hidden");
    showReplayFrame(out.frames[0], false);
  } catch (e) {
    $("replay-error").textContent = errorText(e);
  }
}

// --- saved games: the records of this browser's games, kept in localStorage -------------------------
// A finished game's record is kept when it ends, a game in progress when "Save the game so far" is
// clicked; the replay tab lists them (newest first) to replay or continue without a file. Only this
// browser's own games: the server lists no records (it names no files to a page).
const SAVED_KEY = "kabu-saved-games";
const MAX_SAVED = 20;

function savedGames() {
  try {
    const list = JSON.parse(localStorage.getItem(SAVED_KEY) || "[]");
    return Array.isArray(list) ? list : [];
  } catch (e) {
    return [];
  }
}

// Keep the record of the game `tok` (its title and when); the oldest go beyond MAX_SAVED or when the
// browser's storage is full.
async function keepRecord(tok, title) {
  let record;
  try {
    record = await api(`/api/record?token=${encodeURIComponent(tok)}`);
  } catch (e) {
    return; // (the game is gone: nothing to keep)
  }
  let list = savedGames().filter((g) => g.token !== tok);
  list.unshift({ token: tok, title, when: new Date().toISOString(), record });
  list = list.slice(0, MAX_SAVED);
  while (list.length) {
    try {
      localStorage.setItem(SAVED_KEY, JSON.stringify(list));
      break;
    } catch (e) {
      list.pop();
    }
  }
  drawSaved();
}

function drawSaved() {
  const list = savedGames();
  $("saved-none").classList.toggle("hidden", list.length > 0);
  $("saved").replaceChildren(...list.map((g, k) => {
    const li = document.createElement("li");
    const when = new Date(g.when);
    const stamp = Number.isNaN(when.getTime()) ? "" : when.toLocaleString(JA() ? "ja-JP" : "en-GB");
    const state = g.record && g.record.complete ? t("finished") : t("inProgress");
    li.append(`${stamp} — ${say(g.title)} (${state}) `);
    const b = document.createElement("button");
    b.className = "saved-load";
    b.textContent = t("load");
    b.addEventListener("click", () => loadReplay(savedGames()[k].record));
    li.append(b);
    return li;
  }));
}

async function replayPlay() {
  if (replay.playing) {
    replay.playing = false;
    return;
  }
  replay.playing = true;
  $("replay-play").textContent = t("pause");
  while (replay.playing && replay.pos < replay.total - 1) {
    await replayGo(replay.pos + 1, true);
    await sleep(params.has("delay") ? DELAY : [1200, 700, 350, 120, 30][Number($("replay-speed").value)] ?? 350);
  }
  replay.playing = false;
  $("replay-play").textContent = t("playBtn");
}

// Continue a saved (incomplete) game from its record, in the Play tab.
async function resumeGame() {
  try {
    const out = await api("/api/resume", { record: replay.record });
    token = out.token;
    watching = null;
    tab("play");
    newTable();
    await play(out.frames, out.state);
  } catch (e) {
    $("replay-error").textContent = errorText(e);
  }
}

// Tabs: "play" (setup, or the table of the game in progress), "watch" (setup or table), "replay".
function tab(which) {
  const page = which === "watch-table" ? "watch" : which;
  for (const name of ["play", "watch", "replay"]) $(`tab-${name}`).classList.toggle("active", page === name);
  const game = token !== null && ((page === "play" && !watching) || (page === "watch" && watching));
  $("replay").classList.toggle("hidden", page !== "replay");
  $("setup").classList.toggle("hidden", page !== "play" || game);
  $("watch").classList.toggle("hidden", page !== "watch" || game);
  $("table").classList.toggle("hidden", !game);
  $("watch-controls").classList.toggle("hidden", !watching);
}

// Keys: 1-9 and 0 pick moves 1-10, letters a, b, c ... the 11th and on (MOVE_KEYS, shown on the
// buttons); Enter or space continues (dismisses the round result, starts a new game at the end, steps a
// paused watch).
function onKey(e) {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.target instanceof HTMLTextAreaElement) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key.length === 1 ? MOVE_KEYS.indexOf(e.key.toLowerCase()) : -1;
  if (k >= 0) {
    const b = $("moves").querySelectorAll("button.move")[k];
    if (b && !$("table").classList.contains("hidden")) { b.click(); e.preventDefault(); }
  } else if (e.key === "Enter" || e.key === " ") {
    if (e.target instanceof HTMLButtonElement || e.target instanceof HTMLAnchorElement) return; // (its own click)
    if (watching && watching.paused) watching.step = true;
    else if (!$("summary-box").classList.contains("hidden")) $("again").click();
    else if (continueRound) continueRound();
    else $("result-box").classList.add("hidden");
    e.preventDefault();
  }
}

function redraw() {
  setLang(lang);
  if (last) drawState(last);
  redrawLog();
  drawHistory();
  if (shownResult && !$("result-box").classList.contains("hidden")) {
    const keep = speaker;
    speaker = shownResult.speaker;
    showResult(shownResult.view, shownResult.rewards, shownResult.names);
    speaker = keep;
  }
  if (watching) $("watch-pause").textContent = t(watching.paused ? "playBtn" : "pause");
  if (replay) showReplayFrame(replay.pages.get(Math.floor(replay.pos / PAGE) * PAGE)[replay.pos % PAGE], false);
  drawSaved();
  if (games.length) {
    watchSeats();
    for (const id of ["game", "watch-game"]) for (const o of $(id).options) o.textContent = gameTitle(games.find((g) => g.id === o.value));
  }
}

async function init() {
  setLang(params.get("lang") || lang);
  $("anim").checked = animate;
  document.body.classList.toggle("no-anim", !animate);
  await loadMessages();
  games = await api("/api/games");
  for (const id of ["game", "watch-game"]) {
    $(id).replaceChildren(...games.map((g) => {
      const o = document.createElement("option");
      o.value = g.id;
      o.dataset.title = g.title;
      o.textContent = gameTitle(g);
      o.title = g.agents.join(", ");
      return o;
    }));
  }
  const wanted = params.get("game");
  if (wanted) { $("game").value = wanted; $("watch-game").value = wanted; }
  for (const key of ["seed", "opponents", "options"]) if (params.has(key)) $(key).value = params.get(key);
  if (params.has("seat")) $("seat").value = String(Number(params.get("seat")) + 1); // (?seat= counts from 0)
  if (params.has("options")) $("watch-options").value = params.get("options");
  if (params.has("seed")) $("watch-seed").value = params.get("seed");
  watchSeats();
  $("watch-game").addEventListener("change", watchSeats);
  $("watch-options").addEventListener("change", watchSeats);
  $("start").addEventListener("click", start);
  $("watch-start").addEventListener("click", startWatch);
  $("result-continue").addEventListener("click", () => continueRound && continueRound());
  $("again").addEventListener("click", () => {
    const page = watching ? "watch" : "play";
    token = null;
    watching = null;
    tab(page);
  });
  for (const name of ["play", "watch", "replay"]) $(`tab-${name}`).addEventListener("click", () => tab(name));
  $("lang").addEventListener("click", () => { lang = lang === "ja" ? "en" : "ja"; redraw(); });
  $("anim").addEventListener("change", () => {
    animate = $("anim").checked;
    localStorage.setItem("kabu-anim", animate ? "1" : "0");
    document.body.classList.toggle("no-anim", !animate);
  });
  $("watch-pause").addEventListener("click", () => {
    if (!watching) return;
    watching.paused = !watching.paused;
    $("watch-pause").textContent = t(watching.paused ? "playBtn" : "pause");
  });
  $("watch-step").addEventListener("click", () => { if (watching) { watching.paused = true; watching.step = true; $("watch-pause").textContent = t("playBtn"); } });
  $("watch-speed").addEventListener("input", () => { if (watching) watching.delay = speedDelay(true); });
  $("replay-load").addEventListener("click", () => loadReplay());
  $("save").addEventListener("click", () => { if (token && last) keepRecord(token, last.view.say.title); });
  drawSaved();
  $("replay-resume").addEventListener("click", resumeGame);
  $("replay-first").addEventListener("click", () => replayGo(0));
  $("replay-prev").addEventListener("click", () => replayGo(replay.pos - 1));
  $("replay-next").addEventListener("click", () => replayGo(replay.pos + 1, true));
  $("replay-last").addEventListener("click", () => replayGo(replay.total - 1));
  $("replay-play").addEventListener("click", replayPlay);
  document.addEventListener("keydown", onKey);
  document.body.dataset.ready = "1";
}

init().catch((e) => { $("error").textContent = errorText(e); });
