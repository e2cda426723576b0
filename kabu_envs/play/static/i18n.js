// Japanese and English for the page. The page's own labels are keys of UI. What the server writes
// (seat views, moves, results, errors) arrives as messages, {key, args} (kabu_envs/core/messages.py),
// and is written here from the server's one table of templates (GET /api/messages: every key in both
// languages), so no line of the server's stays in English on the Japanese page. Seats and spreads are
// numbered from 1, hands named (おいちょ, カブ, ブタ ...), yaku by their names. The language is switched on
// the page and remembered (localStorage "kabu-lang"); the page keeps the messages and writes them again
// on a switch (the move log too). The one English line read back is an old saved game's title in this
// browser's list (kept before the server sent messages): legacyTitle.
"use strict";

const UI = {
  en: {
    play: "Play", watch: "Watch agents", replay: "Replay a record", game: "Game", seat: "Your seat",
    opponents: "Opponents", seed: "Seed", options: "Rule options (JSON)", start: "Start a game",
    yourMove: "Your move", yourTurn: "Your turn", waiting: "Waiting for", over: "Game over", moves: "Moves",
    save: "Save the game so far", saveHelp: "(a record: load it under “Replay a record” to look back or to continue it)",
    roundResult: "Result of round", continueRound: "Next round", newGame: "New game", download: "Download the game record",
    recordFile: "Seen by seat", load: "Load", first: "First", back: "Back", next: "Next", last: "Last",
    playBtn: "Play", pause: "Pause", step: "Step", speed: "Speed", resume: "Continue this game",
    anim: "Animations", lang: "日本語", recordWritten: "record written to", rewards: "rewards",
    you: "you", deal: "the deal", unseen: "(a move this seat did not see)", move: "move",
    agents: "Agents (one per seat)", viewAs: "View", god: "every seat (god view)", seatN: "seat",
    watchStart: "Watch", keys: "Keys: 1-9 and 0 pick moves 1-10, then a, b, c … the 11th and on; Enter or space continues.",
    faceDown: "face down", cards: "cards", watching: "Watching", history: "History", rules: "Rules",
    recordFileLabel: "Game record", roundN: "Round", dealN: "Deal", noHistory: "No round finished yet.",
    showTable: "Show its table", hideTable: "Hide the table", total: "total", chooseFile: "choose a game record file first",
    notJson: "rule options: not JSON", wholeNumber: "a whole number (or empty), not", yourSeatField: "your seat",
    seedField: "seed", moveOf: "move", replayWord: "Replay", showdownHeld: "Showdown: the round's final table (Next round, or Enter, goes on)",
    savedGames: "Saved games (this browser)", noSaved: "None yet: a finished game, or one saved with “Save the game so far”, is listed here.",
    finished: "finished", inProgress: "in progress",
  },
  ja: {
    play: "対局", watch: "観戦", replay: "棋譜を再生", game: "ゲーム", seat: "あなたの席",
    opponents: "相手", seed: "シード", options: "ルール設定 (JSON)", start: "対局開始",
    yourMove: "あなたの手", yourTurn: "あなたの番です", waiting: "手番:", over: "終局", moves: "棋譜",
    save: "ここまでを保存", saveHelp: "(「棋譜を再生」で読み込むと、振り返ったり続きを打ったりできます)",
    roundResult: "勝負の結果 第", continueRound: "次の勝負へ", newGame: "新しい対局", download: "棋譜をダウンロード",
    recordFile: "見る席", load: "読み込む", first: "最初", back: "戻る", next: "次へ", last: "最後",
    playBtn: "再生", pause: "一時停止", step: "一手進める", speed: "速さ", resume: "この対局を続ける",
    anim: "アニメーション", lang: "English", recordWritten: "棋譜の保存先:", rewards: "得点",
    you: "あなた", deal: "配札", unseen: "(この席からは見えない手)", move: "手",
    agents: "各席のエージェント", viewAs: "視点", god: "全員の札 (神の視点)", seatN: "席",
    watchStart: "観戦を始める", keys: "キー: 1〜9と0で1〜10番目の手、11番目からは a, b, c …。Enter・スペースで続ける。",
    faceDown: "伏せ札", cards: "枚", watching: "観戦中", history: "これまでの勝負", rules: "ルール",
    recordFileLabel: "棋譜ファイル", roundN: "勝負", dealN: "回", noHistory: "まだ終わった勝負はありません。",
    showTable: "その場を見る", hideTable: "閉じる", total: "合計", chooseFile: "先に棋譜ファイルを選んでください",
    notJson: "ルール設定が JSON になっていません", wholeNumber: "0以上の整数 (または空欄) で入力してください。入力:",
    yourSeatField: "あなたの席", seedField: "シード", moveOf: "手目", replayWord: "再生", showdownHeld: "勝負の結果です (「次の勝負へ」か Enter で続けます)",
    savedGames: "保存した対局 (このブラウザ)", noSaved: "まだありません。終わった対局と「ここまでを保存」した対局がここに並びます。",
    finished: "終局", inProgress: "対局中",
  },
};

let lang = localStorage.getItem("kabu-lang") === "ja" ? "ja" : "en";
// Whose eyes the server's "you" is: the person's seat, or in watch mode and replays the seat watched
// (then "you" is written as that seat: "seat 2", not "you").
let speaker = { me: 0, person: true };
let MSGS = {}; // key -> {en, ja}: the server's templates (loadMessages)

function t(key) {
  return (UI[lang] && UI[lang][key]) || UI.en[key] || key;
}

function setLang(which) {
  lang = which === "ja" ? "ja" : "en";
  localStorage.setItem("kabu-lang", lang);
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
}

const JA = () => lang === "ja";

async function loadMessages() {
  const res = await fetch("/api/messages");
  if (!res.ok) throw new Error(`the server answered ${res.status} ${res.statusText}`);
  MSGS = await res.json();
}

// --- messages ----------------------------------------------------------------------------------------
// A seat as a name: the filters seat, Seat, seatno, poss of the templates (see messages.py).
function seatText(p, form) {
  const own = p === speaker.me && speaker.person && form !== "seatno";
  if (JA()) {
    const name = own ? "あなた" : `${p + 1}番席`;
    return form === "poss" ? name + "の" : name;
  }
  if (form === "poss") return own ? "your" : `seat ${p + 1}'s`;
  const name = own ? "you" : `seat ${p + 1}`;
  return form === "Seat" ? name.charAt(0).toUpperCase() + name.slice(1) : name;
}

const PLACEHOLDER = /\{(\w+)(\?[^{}]*|(?::[^{}:]*)*)\}/g;

// A message of the server's in the page's language (`msg`: {key, args}). A key no table has is an
// error the browser test catches (written as [key] and reported on the console).
function renderMsg(msg) {
  if (msg === null || msg === undefined) return "";
  const entry = MSGS[msg.key];
  if (!entry) {
    console.error(`no template for message ${msg.key}`);
    return `[${msg.key}]`;
  }
  const args = msg.args || {};
  return entry[lang].replace(PLACEHOLDER, (_, name, spec) => {
    const value = args[name];
    if (spec.startsWith("?")) return value ? spec.slice(1) : "";
    const parts = spec ? spec.split(":").slice(1) : [];
    const kind = parts[0] ?? "";
    if (kind === "") return String(value);
    if (["seat", "Seat", "seatno", "pseat", "poss"].includes(kind)) return seatText(Number(value), kind === "pseat" ? "seat" : kind);
    if (kind === "v") return Number(value) === speaker.me && speaker.person ? parts[1] : parts[2];
    if (kind === "idx") return String(Number(value) + 1);
    if (kind === "signed") return Number(value) > 0 ? `+${value}` : Number(value) < 0 ? `−${-Number(value)}` : "±0";
    if (kind === "pl") return `${value} ${Number(value) === 1 ? parts[1] : parts[2]}`;
    if (kind.startsWith("@")) return renderMsg({ key: `${kind.slice(1)}.${value}`, args: {} });
    if (kind === "msg") return renderMsg(value);
    if (kind === "Msg") { // (capitalised in English: a sentence's subject)
      const text = renderMsg(value);
      return JA() ? text : text.charAt(0).toUpperCase() + text.slice(1);
    }
    if (kind === "list") return (value || []).map(renderMsg).join(renderMsg({ key: parts[1], args: {} }));
    console.error(`message ${msg.key}: unknown filter ${kind}`);
    return String(value);
  });
}

// A line to show: a message, or (an old saved game's title) a string.
function say(line) {
  if (line && typeof line === "object") return renderMsg(line);
  const old = legacyTitle(String(line ?? ""));
  return old ? renderMsg(old) : String(line ?? "");
}

// An old saved game's title in English (this browser's list, before titles were kept as messages).
function legacyTitle(text) {
  let m;
  if ((m = /^Oicho-Kabu \((\w+)\), round (\d+)\/(\d+)$/.exec(text))) {
    return { key: "oicho.title", args: { rules: m[1], n: Number(m[2]), of: Number(m[3]) } };
  }
  if ((m = /^Kakeya \((\d+) players\), deal (\d+)\/(\d+)$/.exec(text))) {
    return { key: "kakeya.title", args: { n: Number(m[1]), d: Number(m[2]), of: Number(m[3]) } };
  }
  if ((m = /^Toy Card \((\d+) players\)$/.exec(text))) return { key: "toy.title", args: { n: Number(m[1]) } };
  return null;
}

// A zone's note: its parts as one line.
const noteMsg = (z) => (z.say && z.say.note ? { key: "core.parts", args: { items: z.say.note } } : z.note);

// --- names -------------------------------------------------------------------------------------------
// A seat, numbered from 1 (the server counts from 0).
function seatLabel(p) {
  return JA() ? `${p + 1}番席` : `seat ${p + 1}`;
}

const AGENTS = { random: "ランダム", scripted: "定石", expert: "上級", human: "人", you: "あなた" };
const agentName = (a) => (JA() ? AGENTS[a] ?? a : a === "human" ? "person" : a);

// "player_1 (scripted)" (the seats' names the server sends) as "seat 2 (scripted)" / 「2番席 (定石)」.
function playerName(text) {
  const m = /^player_(\d+)(?: \((.+)\))?$/.exec(String(text ?? ""));
  if (!m) return String(text ?? "");
  return seatLabel(Number(m[1])) + (m[2] ? ` (${agentName(m[2])})` : "");
}

// A game of the menus: "Oicho-Kabu (4 seats)" / 「おいちょかぶ (4人)」.
function gameTitle(g) {
  const name = MSGS[`game.${g.id}`] ? renderMsg({ key: `game.${g.id}`, args: {} }) : g.title;
  return JA() ? `${name} (${g.seats}人)` : `${name} (${g.seats} seats)`;
}

const yakuName = (y) => renderMsg({ key: `oicho.yaku.${y}`, args: {} });
const rulesName = (r) => renderMsg({ key: `oicho.rules.${r}`, args: {} });

// A server error in the page's language: its message (say), else (no answer from the server) a line.
function errorMessage(e) {
  if (e.local) return e.message;
  if (e.say) return renderMsg(e.say);
  return renderMsg({ key: "error.no_answer", args: { status: e.status ?? "", phrase: e.message } });
}
