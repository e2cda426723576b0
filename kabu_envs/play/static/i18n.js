// Japanese and English for the page. The page's own labels are keys of UI; what the server writes
// (the seat views, move names, results: English) is put into Japanese phrase by phrase with PHRASES,
// and the game terms (TERMS) are shown in Japanese with the English as a tooltip (in English mode the
// other way round). The language is switched on the page and remembered (localStorage "kabu-lang").
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
    watchStart: "Watch", keys: "Keys: 1-9 pick a move, Enter or space continues.",
    faceDown: "face down", cards: "cards",
  },
  ja: {
    play: "対局", watch: "観戦", replay: "棋譜を再生", game: "ゲーム", seat: "あなたの席",
    opponents: "相手", seed: "シード", options: "ルール設定 (JSON)", start: "対局開始",
    yourMove: "あなたの手番", yourTurn: "あなたの番です", waiting: "待機中:", over: "終局", moves: "手順",
    save: "途中まで保存", saveHelp: "(記録:「棋譜を再生」で読み込むと振り返りや続きができます)",
    roundResult: "勝負の結果", continueRound: "次の勝負へ", newGame: "新しい対局", download: "棋譜をダウンロード",
    recordFile: "見る席", load: "読み込む", first: "最初", back: "戻る", next: "次へ", last: "最後",
    playBtn: "再生", pause: "一時停止", step: "一手", speed: "速さ", resume: "この対局を続ける",
    anim: "アニメーション", lang: "English", recordWritten: "棋譜の保存先", rewards: "得点",
    you: "あなた", deal: "配札", unseen: "(この席からは見えない手)", move: "手",
    agents: "各席のエージェント", viewAs: "視点", god: "全席 (神の視点)", seatN: "席",
    watchStart: "観戦開始", keys: "キー: 1-9 で手を選ぶ、Enter・スペースで続ける。",
    faceDown: "伏せ札", cards: "枚",
  },
};

// Game terms: English (as the server writes it) -> Japanese; shown with the other as a tooltip.
const TERMS = [
  ["dealer", "親"], ["bettors", "子"], ["bettor", "子"], ["spread", "張り"], ["kabu", "カブ"],
  ["Arashi", "アラシ"], ["arashi", "アラシ"], ["egara", "絵柄"], ["trump", "切り札"], ["Trump", "切り札"],
  ["Rensho", "連勝"], ["partnership", "組"], ["domae", "胴前"], ["stones", "石"], ["stone", "石"],
  ["trick", "場"], ["minso", "見そ"],
];

// Phrases of the server's text (longest first) -> Japanese; applied before the terms.
const PHRASES = [
  ["Keep the table", "場をそのまま"], ["Take the top card", "上の札を取る"], ["Take the bottom card", "下の札を取る"],
  ["Take the fourth card", "四枚目を取る"], ["Let my partner lead", "相方に先を譲る"], ["Lead myself", "自分が先"],
  ["lets the partner lead", "相方に先を譲る"], ["leads", "先を取る"],
  ["No bet", "張らない"], ["no bet", "張らない"], ["Bet", "張る"], ["bet", "張る"], ["Stand", "止める"], ["stand", "止める"],
  ["Draw", "引く"], ["draw", "引く"], ["drew", "引いた"], ["stood", "止めた"], ["Escape", "降りる"], ["escape", "降りる"],
  ["escaped", "降りた"], ["Redeal", "配り直し"], ["redeal", "配り直し"], ["Play", "出す"], ["plays", "出す"], ["play", "出す"],
  ["your info card (dead)", "あなたの情報札 (死に札)"], ["selection cards", "親決めの札"], ["betting order", "張る順"],
  ["staked this round", "この勝負の張り"], ["round result", "勝負の結果"], ["last trick", "前の場"], ["taken by", "取った人"],
  ["cards in hand", "枚の手札"], ["card in hand", "枚の手札"], ["your hand", "あなたの手札"], ["sits out", "休み"],
  ["to act", "手番"], ["you are", "あなたは"], ["first dealer", "最初の親"], ["phase", "局面"], ["chips", "持ち点"],
  ["no stakes", "張りなし"], ["wins", "勝ち"], ["win", "勝ち"], ["push", "引き分け"], ["(push)", "(引き分け)"],
  ["won", "勝ち"], ["deals", "回"], ["deal", "回"], ["round", "勝負"], ["nobody staked: no payment", "誰も張らず: 支払いなし"],
  ["(partner)", "(相方)"], ["partner", "相方"], ["(yours)", "(あなたの)"], ["players", "人"], ["you", "あなた"],
  ["on", "に"], ["clubs", "クラブ"], ["diamonds", "ダイヤ"], ["hearts", "ハート"], ["spades", "スペード"],
  ["month", "月"], ["light", "光"], ["value", "値"],
];

let lang = localStorage.getItem("kabu-lang") === "ja" ? "ja" : "en";

function t(key) {
  return (UI[lang] && UI[lang][key]) || UI.en[key] || key;
}

function setLang(which) {
  lang = which === "ja" ? "ja" : "en";
  localStorage.setItem("kabu-lang", lang);
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const TERM_RE = new RegExp(`\\b(${TERMS.map(([en]) => escapeRe(en)).join("|")})\\b`, "g");
const PHRASE_RE = new RegExp(
  `(?<![A-Za-z])(${[...PHRASES].sort((a, b) => b[0].length - a[0].length).map(([en]) => escapeRe(en)).join("|")})(?![A-Za-z])`,
  "g",
);
const PHRASE = new Map(PHRASES);
const TERM = new Map(TERMS);

// A line of the server's text as a fragment: in Japanese, phrases translated; game terms as spans
// with the other language in a tooltip (title) in both languages.
function trText(text) {
  const frag = document.createDocumentFragment();
  let line = String(text ?? "");
  if (lang === "ja") line = line.replace(PHRASE_RE, (m) => PHRASE.get(m) ?? m);
  let at = 0;
  for (const m of line.matchAll(TERM_RE)) {
    frag.append(line.slice(at, m.index));
    frag.append(termSpan(m[0]));
    at = m.index + m[0].length;
  }
  frag.append(line.slice(at));
  return frag;
}

function termSpan(en) {
  const span = document.createElement("span");
  span.className = "term";
  const ja = TERM.get(en);
  span.textContent = lang === "ja" ? ja : en;
  span.title = lang === "ja" ? en : ja;
  return span;
}

// The same, as plain text (button labels, the page title).
function trPlain(text) {
  const div = document.createElement("div");
  div.append(trText(text));
  return div.textContent;
}
