// Japanese and English for the page. The page's own labels are keys of UI. What the server writes (seat
// views, moves, results: fixed English lines, kabu_envs/*/view.py) is read by part, zoneLabel and
// moveHead, one template per kind of line, and written again as a sentence in the page's language: seats and spreads
// numbered from 1, hands named (おいちょ, カブ, ブタ ...), yaku by their names. A line no template knows
// is shown as the server wrote it (the browser test fails on any such line in Japanese). The language is
// switched on the page and remembered (localStorage "kabu-lang"); the page keeps the server's lines and
// renders them again on a switch (the move log too).
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

// --- names -------------------------------------------------------------------------------------------
// A seat, numbered from 1 (the server counts from 0).
function seatLabel(p) {
  return JA() ? `${p + 1}番席` : `seat ${p + 1}`;
}

// "you", "player_3", "player_3 (partner)", "p3" as a name in the page's language.
function who(text) {
  const m = /^(?:you|player_(\d+)|p(\d+))( \(partner\))?$/.exec(text.trim());
  if (!m) return text;
  const p = m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? Number(m[2]) : speaker.me;
  const mine = m[1] === undefined && m[2] === undefined;
  let name = mine && speaker.person ? (JA() ? "あなた" : "you") : seatLabel(p);
  if (m[3]) name += JA() ? " (相方)" : " (partner)";
  return name;
}

// An English sentence starting with a name: "You bet", "Seat 2 bets" (the verb agrees).
function subj(text, verbYou, verbOther) {
  const name = who(text);
  const you = name === "you";
  const cap = name.charAt(0).toUpperCase() + name.slice(1);
  return `${cap} ${you ? verbYou : verbOther}`;
}

const spreadLabel = (s) => (JA() ? `${Number(s) + 1}番の札` : `spread ${Number(s) + 1}`);
const teamLabel = (q) => (JA() ? `${Number(q) + 1}組` : `team ${Number(q) + 1}`);

const AGENTS = { random: "ランダム", scripted: "定石", expert: "上級", human: "人", you: "あなた" };
const agentName = (a) => (JA() ? AGENTS[a] ?? a : a === "human" ? "person" : a);

// "player_1 (scripted)" (the seats' names the server sends) as "seat 2 (scripted)" / 「2番席 (定石)」.
function playerName(text) {
  const m = /^player_(\d+)(?: \((.+)\))?$/.exec(String(text ?? ""));
  if (!m) return String(text ?? "");
  return seatLabel(Number(m[1])) + (m[2] ? ` (${agentName(m[2])})` : "");
}

// Oicho-Kabu hand values, as players call them (0 is buta, 8 oicho, 9 kabu).
const HAND = {
  en: ["buta", "pin", "nizou", "santa", "yotsuya", "goke", "roppou", "naki", "oicho", "kabu"],
  ja: ["ブタ", "ピン", "ニゾウ", "サンタ", "ヨツヤ", "ゴケ", "ロッポウ", "ナキ", "おいちょ", "カブ"],
};
const YAKU = {
  sanpachi_hikari: ["sanpachi hikari", "三八光"], pin_basami: ["pin-basami", "ピンばさみ"],
  arashi_kabu: ["arashi kabu", "アラシカブ"], arashi: ["arashi", "アラシ"], kuppin: ["kuppin", "クッピン"],
  shippin: ["shippin", "シッピン"], doshippin: ["doshippin", "ドシッピン"], niichi: ["niichi", "ニイチ"],
  shidou: ["shidou", "シドウ"], shiro: ["shiro", "シロク"], toichi: ["toichi", "トイチ"], fujin: ["fujin", "風神"],
  raijin: ["raijin", "雷神"], ichi_ni_san: ["ichi-ni-san", "一二三"], shichi_go_san: ["shichi-go-san", "七五三"],
  nobori: ["nobori", "のぼり"], kudari: ["kudari", "くだり"], zoro: ["zoro", "ゾロ目"],
  zoro_tsubushi: ["zoro-tsubushi", "ゾロつぶし"], wake_satsu: ["wake-satsu", "わけ札"],
};
const yakuName = (y) => (YAKU[y] ? YAKU[y][JA() ? 1 : 0] : y);

function handName(value, yaku) {
  const v = Number(value);
  const name = `${HAND[JA() ? "ja" : "en"][v] ?? v} (${v})`;
  return yaku ? `${yakuName(yaku)}・${name}`.replace("・", JA() ? "・" : ", ") : name;
}

const MONTHS_JA = ["松", "梅", "桜", "藤", "菖蒲", "牡丹", "萩", "芒", "菊", "紅葉", "柳", "桐"];
// A card's name: hanafuda "month 3 (cherry), light" -> 「3月 桜 (光)」; the others as they are.
function cardName(text) {
  const m = /^month (\d+) \((\w+)\)(, light)?$/.exec(String(text));
  if (!m) return String(text);
  if (JA()) return `${m[1]}月 ${MONTHS_JA[Number(m[1]) - 1]}${m[3] ? " (光)" : ""}`;
  return `month ${m[1]} (${m[2]})${m[3] ? ", bright" : ""}`;
}

const SUITS = { clubs: ["clubs", "クラブ"], diamonds: ["diamonds", "ダイヤ"], hearts: ["hearts", "ハート"], spades: ["spades", "スペード"] };
const suitName = (s) => (SUITS[s] ? SUITS[s][JA() ? 1 : 0] : s);

const RULESETS = { standard: ["standard rules", "標準ルール"], kansai: ["Kansai rules", "関西ルール"], kabufuda_site: ["kabufuda-site rules", "株札サイトのルール"] };
const PHASES = {
  MINSO: ["minso (keep or redeal)", "見そ (配り直すか)"], BET: ["betting", "張り"], DEALER_CHOICE: ["dealer picks a card", "親の札選び"],
  DECIDE: ["bettors draw or stand", "子の勝負 (引くか止めるか)"], DEALER_DRAW: ["dealer draws or stands", "親の勝負"],
  SHOWDOWN: ["showdown", "勝負"], OVER: ["game over", "終局"], TRUMP: ["choosing trumps", "切り札決め"],
  LEAD: ["choosing the leader", "先手決め"], PLAY: ["playing", "札を出す"],
};
const phaseName = (p) => (PHASES[p] ? PHASES[p][JA() ? 1 : 0] : p);
const sep = () => (JA() ? "、" : ", ");
const signed = (n) => (Number(n) > 0 ? `+${Number(n)}` : Number(n) < 0 ? `−${-Number(n)}` : "±0");
const count = (n, one, many) => `${n} ${Number(n) === 1 ? one : many}`;

// "you: 2, p1: 3" / "you 10, p1 5" -> a list of names and amounts.
function amounts(text, unit) {
  return text.split(", ").map((part) => {
    const m = /^(you|p\d+|player_\d+(?: \(partner\))?|partnership \d+):? (\S+)$/.exec(part);
    if (!m) return part;
    const name = m[1].startsWith("partnership") ? teamLabel(m[1].split(" ")[1]) : who(m[1]);
    return JA() ? `${name} ${m[2]}${unit}` : `${name} ${m[2]}`;
  }).join(sep());
}

function resultText(text) {
  let m;
  if (text === "push") return JA() ? "引き分け" : "push";
  if (text === "escaped (push)") return JA() ? "降りた (引き分け)" : "escaped (push)";
  if ((m = /^bettors win x(\d+)$/.exec(text))) return JA() ? `子の勝ち (${m[1]}倍)` : `bettors win ×${m[1]}`;
  if ((m = /^dealer wins x(\d+)$/.exec(text))) return JA() ? `親の勝ち (${m[1]}倍)` : `dealer wins ×${m[1]}`;
  return null;
}

// The verbs of the moves (the server's labels, lowercase in move texts).
function oichoMove(label, target) {
  const l = label.toLowerCase();
  const on = target === null || target === undefined ? null : spreadLabel(target);
  let m;
  if ((m = /^bet (\d+)$/.exec(l))) return JA() ? `${on ? on + "に" : ""}${m[1]}点張る` : `Bet ${m[1]}${on ? " on " + on : ""}`;
  const fixed = {
    "no bet": ["No bet" + (on ? ` on ${on}` : ""), `${on ? on + "には" : ""}張らない`],
    stand: ["Stand" + (on ? ` (${on})` : ""), `${on ? on + "はこれで" : ""}勝負 (止める)`],
    draw: ["Draw a card" + (on ? ` for ${on}` : ""), `${on ? on + "に" : ""}もう一枚引く`],
    escape: ["Escape" + (on ? ` (${on})` : ""), `${on ? on + "から" : ""}降りる`],
    "keep the table": ["Keep the table", "この札で続ける"], "redeal (minso)": ["Redeal (minso)", "配り直す (見そ)"],
    "take the top card": ["Take the top card", "上の札を取る"], "take the bottom card": ["Take the bottom card", "下の札を取る"],
    "take the fourth card": ["Take the fourth card", "四枚目を取る"],
  };
  return fixed[l] ? fixed[l][JA() ? 1 : 0] : null;
}

function kakeyaMove(label) {
  let m;
  if ((m = /^play (\S+)$/i.exec(label))) return JA() ? `${m[1]} を出す` : `Play ${m[1]}`;
  if ((m = /^trump (\w+) (\S+)$/i.exec(label))) return JA() ? `切り札を${m[2]}${suitName(m[1])}にする` : `Trumps: ${m[1]} ${m[2]}`;
  if (/^lead myself$/i.test(label)) return JA() ? "自分が先手を取る" : "Lead myself";
  if (/^let my partner lead$/i.test(label)) return JA() ? "相方に先手を譲る" : "Let my partner lead";
  return null;
}

// A move button: the server's label and the spread it acts on (null: none).
function moveLabel(label, target) {
  const spread = target ? /^spread (\d+)$/.exec(target) : null;
  return oichoMove(label, spread ? spread[1] : null) ?? kakeyaMove(label) ?? label;
}

// " -> 7 [spread 2]" suffixes of a move text: what each card turned up and where it went.
function landed(rest) {
  const parts = [...rest.matchAll(/ -> (.+?) \[(.+?)\]/g)].map((m) => {
    const where = zoneLabel(m[2]);
    return JA() ? `${where}に${cardName(m[1])}` : `${cardName(m[1])} to ${where}`;
  });
  return parts.length ? (JA() ? `(配られた札: ${parts.join("、")})` : `(dealt: ${parts.join("; ")})`) : "";
}

// The log's line of one move.
function moveText(line) {
  const at = line.indexOf(" -> ");
  const head = at < 0 ? line : line.slice(0, at);
  const tail = at < 0 ? "" : landed(line.slice(at));
  const sentence = moveHead(head);
  if (sentence === null) return line;
  return tail ? `${sentence} ${tail}` : sentence;
}

const W = "(you|player_\\d+(?: \\(partner\\))?)";
function moveHead(head) {
  let m;
  if ((m = new RegExp(`^${W}: (no bet|bet (\\d+)) on spread (\\d+)$`).exec(head))) {
    const on = spreadLabel(m[4]);
    if (JA()) return m[3] ? `${who(m[1])}が${on}に${m[3]}点張った` : `${who(m[1])}は${on}に張らなかった`;
    return m[3] ? `${subj(m[1], "bet", "bets")} ${m[3]} on ${on}` : `${subj(m[1], "do", "does")} not bet on ${on}`;
  }
  if ((m = new RegExp(`^${W}: (stand|draw|escape) \\(spread (\\d+)\\)$`).exec(head))) {
    const on = spreadLabel(m[3]);
    const ja = { stand: `${on}はこれで勝負`, draw: `${on}にもう一枚引いた`, escape: `${on}から降りた` }[m[2]];
    const en = { stand: ["stand on", "stands on"], draw: ["draw for", "draws for"], escape: ["escape from", "escapes from"] }[m[2]];
    return JA() ? `${who(m[1])}: ${ja}` : `${subj(m[1], en[0], en[1])} ${on}`;
  }
  if ((m = new RegExp(`^${W} \\(dealer\\): (.+)$`).exec(head))) {
    const verbs = {
      stand: ["stand", "stands", "これで勝負"], draw: ["draw", "draws", "もう一枚引いた"],
      "keep the table": ["keep the table", "keeps the table", "この札で続けた"], "redeal (minso)": ["redeal (minso)", "redeals (minso)", "配り直した (見そ)"],
      "take the top card": ["take the top card", "takes the top card", "上の札を取った"],
      "take the bottom card": ["take the bottom card", "takes the bottom card", "下の札を取った"],
      "take the fourth card": ["take the fourth card", "takes the fourth card", "四枚目を取った"],
    }[m[2]];
    if (!verbs) return null;
    if (JA()) return `親 (${who(m[1])}): ${verbs[2]}`;
    const name = who(m[1]);
    return `${name.charAt(0).toUpperCase() + name.slice(1)} (dealer) ${name === "you" ? verbs[0] : verbs[1]}`;
  }
  if ((m = new RegExp(`^${W} (play|plays) (\\S+)$`).exec(head))) {
    return JA() ? `${who(m[1])}: ${m[3]} を出した` : `${subj(m[1], "play", "plays")} ${m[3]}`;
  }
  if ((m = new RegExp(`^${W}: (leads|lets the partner lead)$`).exec(head))) {
    if (JA()) return `${who(m[1])}: ${m[2] === "leads" ? "自分が先手を取った" : "相方に先手を譲った"}`;
    return m[2] === "leads" ? subj(m[1], "lead", "leads") : subj(m[1], "let the partner lead", "lets the partner lead");
  }
  if ((m = new RegExp(`^${W}: trump (\\w+) (\\S+)$`).exec(head))) {
    return JA() ? `${who(m[1])}: 切り札を${m[3]}${suitName(m[2])}に決めた` : `${subj(m[1], "choose", "chooses")} ${m[2]} ${m[3]} as trumps`;
  }
  return null;
}

// A zone's label.
function zoneLabel(label) {
  let m;
  if ((m = /^spread (\d+)$/.exec(label))) return spreadLabel(m[1]);
  if ((m = new RegExp(`^dealer \\(${W}\\)$`).exec(label))) return JA() ? `親 (${who(m[1])})` : `dealer (${who(m[1])})`;
  if (label === "your info card (dead)") {
    if (!speaker.person) return JA() ? `${seatLabel(speaker.me)}の見せ札 (死に札)` : `info card of ${seatLabel(speaker.me)} (dead)`;
    return JA() ? "あなたの見せ札 (死に札)" : "your info card (dead)";
  }
  if (label === "selection cards") return JA() ? "親決めの札" : "dealer selection cards";
  if (label === "last trick") return JA() ? "前の場" : "last trick";
  if ((m = /^partnership (\d+)( \(yours\))?: egara$/.exec(label))) {
    const yours = m[2] ? (speaker.person ? (JA() ? " (あなたの組)" : " (yours)") : (JA() ? ` (${seatLabel(speaker.me)}の組)` : ` (${seatLabel(speaker.me)}'s)`)) : "";
    return JA() ? `${teamLabel(m[1])}${yours}の絵柄` : `${teamLabel(m[1])}${yours}: egara`;
  }
  if ((m = /^player_(\d+)'s hand$/.exec(label))) return JA() ? `${seatLabel(Number(m[1]))}の手札` : `${seatLabel(Number(m[1]))}'s hand`;
  if (label === "your hand") {
    if (!speaker.person) return JA() ? `${seatLabel(speaker.me)}の手札` : `${seatLabel(speaker.me)}'s hand`;
    return JA() ? "あなたの手札" : "your hand";
  }
  if (new RegExp(`^${W}$`).test(label)) return who(label);
  return label;
}

// One part of a note or status line ("; " separates them).
function part(text) {
  let m;
  const r = resultText(text);
  if (r !== null) return r;
  if ((m = /^= (\d+)(?: \((\w+)\))?$/.exec(text))) return handName(m[1], m[2]);
  if (text === "no stakes") return JA() ? "張りなし" : "no stakes";
  const states = { stood: ["stood", "止めた"], drew: ["drew", "引いた"], escaped: ["escaped", "降りた"], "turned up": ["turned up", "表向き"], "sits out": ["sits out", "休み"], "to act": ["to act", "手番"] };
  if (states[text]) return states[text][JA() ? 1 : 0];
  if (/^(you|p\d+): \d+(, (you|p\d+): \d+)*$/.test(text)) return amounts(text, "点");
  if (/^p\d+(, p\d+)*$/.test(text)) return text.split(", ").map(who).join(sep());
  if ((m = /^betting order: \[(.*)\]$/.exec(text))) {
    const order = m[1].split(", ").filter(Boolean).map((p) => seatLabel(Number(p))).join(" → ");
    return JA() ? `張る順: ${order}` : `betting order: ${order}`;
  }
  if ((m = /^you are player_(\d+) \((dealer|bettor)\)$/.exec(text))) {
    const role = JA() ? (m[2] === "dealer" ? "親" : "子") : m[2];
    if (!speaker.person) return JA() ? `${seatLabel(Number(m[1]))}の視点 (${role})` : `watching ${seatLabel(Number(m[1]))} (${role})`;
    return JA() ? `あなたは${seatLabel(Number(m[1]))} (${role})` : `you are ${seatLabel(Number(m[1]))} (${role})`;
  }
  if ((m = /^you are player_(\d+), partnership (\d+)$/.exec(text))) {
    if (!speaker.person) return JA() ? `${seatLabel(Number(m[1]))}の視点 (${teamLabel(m[2])})` : `watching ${seatLabel(Number(m[1]))} (${teamLabel(m[2])})`;
    return JA() ? `あなたは${seatLabel(Number(m[1]))} (${teamLabel(m[2])})` : `you are ${seatLabel(Number(m[1]))}, ${teamLabel(m[2])}`;
  }
  if ((m = /^phase: (\w+)$/.exec(text))) return JA() ? `局面: ${phaseName(m[1])}` : `phase: ${phaseName(m[1])}`;
  if ((m = new RegExp(`^to act: ${W}$`).exec(text))) return JA() ? `手番: ${who(m[1])}` : `to act: ${who(m[1])}`;
  if ((m = /^domae (\d+), staked this round (\d+)$/.exec(text))) {
    return JA() ? `胴前 ${m[1]}点、この勝負の張り ${m[2]}点` : `domae ${m[1]}, staked this round ${m[2]}`;
  }
  if ((m = /^chips: (.*)$/.exec(text))) return JA() ? `持ち点: ${amounts(m[1], "点")}` : `chips: ${amounts(m[1], "")}`;
  if ((m = /^trump: (\w+) (\S+)$/.exec(text))) return JA() ? `切り札: ${m[2]}${suitName(m[1])}` : `trumps: ${m[1]} ${m[2]}`;
  if ((m = /^Rensho: (\S+)$/.exec(text))) return JA() ? `連勝: ${m[1]}` : `Rensho: ${m[1]}`;
  if ((m = new RegExp(`^first dealer: ${W}$`).exec(text))) return JA() ? `最初の親: ${who(m[1])}` : `first dealer: ${who(m[1])}`;
  if ((m = /^partnership (\d+)$/.exec(text))) return teamLabel(m[1]);
  if ((m = /^(\d+) cards? in hand, (\d+) stones?$/.exec(text))) {
    return JA() ? `手札${m[1]}枚、石${m[2]}個` : `${count(m[1], "card", "cards")} in hand, ${count(m[2], "stone", "stones")}`;
  }
  if ((m = /^(\d+) egara, (\d+) stones?, (\d+) deals? won$/.exec(text))) {
    return JA() ? `絵柄${m[1]}枚、石${m[2]}個、${m[3]}回勝ち` : `${m[1]} egara, ${count(m[2], "stone", "stones")}, ${count(m[3], "deal", "deals")} won`;
  }
  if ((m = new RegExp(`^taken by ${W}$`).exec(text))) return JA() ? `${who(m[1])}が取った` : `taken by ${who(m[1])}`;
  if ((m = /^played: (.*)$/.exec(text))) {
    const plays = m[1].split(", ").map((p) => {
      const q = new RegExp(`^${W} (\\S+)$`).exec(p);
      return q ? `${who(q[1])} ${q[2]}` : p;
    });
    return JA() ? `出した札: ${plays.join("、")}` : `played: ${plays.join(", ")}`;
  }
  if (text === "the dealer's 10-10-10 voids the round: every stake returned") {
    return JA() ? "親の十・十・十で勝負なし: 張りはすべて戻る" : text;
  }
  if ((m = /^spread (\d+): (.*)$/.exec(text))) {
    const r2 = resultText(m[2]);
    if (r2 !== null) return `${spreadLabel(m[1])}: ${r2}`;
  }
  if (text === "nobody staked: no payment") return JA() ? "誰も張らなかったので支払いなし" : text;
  if ((m = /^round result: (.*)$/.exec(text))) {
    const items = m[1].split(", ").map((x) => {
      const q = /^(you|p\d+) ([+-]?\d+)$/.exec(x);
      return q ? `${who(q[1])} ${signed(q[2])}` : x;
    });
    return JA() ? `この勝負の収支: ${items.join("、")}` : `round result: ${items.join(", ")}`;
  }
  if ((m = /^deal (\d+): (?:partnership (\d+) wins|nobody wins)$/.exec(text))) {
    if (JA()) return `第${m[1]}回: ${m[2] !== undefined ? `${teamLabel(m[2])}の勝ち` : "勝者なし"}`;
    return `deal ${m[1]}: ${m[2] !== undefined ? `${teamLabel(m[2])} wins` : "nobody wins"}`;
  }
  if (text === "egara tied: the partnership without Rensho among its egara wins") {
    return JA() ? "絵柄が同数: 連勝を取っていない組の勝ち" : "egara tied: the team without Rensho among its egara wins";
  }
  if ((m = /^egara: (.*)$/.exec(text))) return JA() ? `絵柄: ${amounts(m[1], "枚")}` : `egara: ${amounts(m[1], "")}`;
  if ((m = /^stones: (.*)$/.exec(text))) {
    const items = m[1].split(", ").map((x) => {
      const q = /^partnership (\d+): ([+-]?\d+)$/.exec(x);
      return q ? `${teamLabel(q[1])} ${signed(q[2])}` : x;
    });
    return JA() ? `石: ${items.join("、")}` : `stones: ${items.join(", ")}`;
  }
  if (text === "god view: every seat's cards") return JA() ? "神の視点: 全員の札が見える" : text;
  if ((m = /^Oicho-Kabu \((\w+)\), round (\d+)\/(\d+)$/.exec(text))) {
    const rules = RULESETS[m[1]] ? RULESETS[m[1]][JA() ? 1 : 0] : m[1];
    return JA() ? `おいちょかぶ (${rules}) 第${m[2]}勝負 / 全${m[3]}勝負` : `Oicho-Kabu (${rules}), round ${m[2]} of ${m[3]}`;
  }
  if ((m = /^Kakeya \((\d+) players\), deal (\d+)\/(\d+)$/.exec(text))) {
    return JA() ? `カケヤ (${m[1]}人) 第${m[2]}回 / 全${m[3]}回` : `Kakeya (${m[1]} players), deal ${m[2]} of ${m[3]}`;
  }
  return null;
}

// Any line of the server's (a title, a status or result line, a zone's label or note, a move).
function tr(text) {
  const line = String(text ?? "");
  if (line === "") return line;
  const whole = part(line);
  if (whole !== null) return whole;
  const z = zoneLabel(line);
  if (z !== line) return z;
  const mv = moveText(line);
  if (mv !== line) return mv;
  const parts = line.split("; ");
  if (parts.length > 1) {
    const done = parts.map((p) => part(p) ?? p.split(", ").map((x) => part(x) ?? x).join(sep()));
    return done.join(JA() ? "、" : "; ");
  }
  return line;
}

// A game of the menus: "Oicho-Kabu (4 seats)" / 「おいちょかぶ (4人)」.
const GAMES_JA = { oicho_kabu: "おいちょかぶ", kakeya: "カケヤ", toy_card: "練習用カード" };
function gameTitle(g) {
  if (JA()) return `${GAMES_JA[g.id] ?? g.title} (${g.seats}人)`;
  return `${g.title} (${g.seats} seats)`;
}

// Server errors: the usual ones in Japanese (the rest behind a Japanese lead-in).
const ERRORS = [
  [/^this game is no longer on the server/, "この対局はもうサーバーにありません (長く放置されたか、サーバーが再起動しました)。新しい対局を始めてください"],
  [/is not a legal move now/, "今はその手は打てません"],
  [/^it is not your turn/, "あなたの番ではありません"],
  [/^the game is over/, "対局は終わっています"],
  [/game in progress/, "対局中の棋譜は、その席からしか再生できません"],
  [/^seat (\d+): this table has seats 0\.\.(\d+)/, (m) => `席は1〜${Number(m[2]) + 1}番から選んでください`],
  [/^the server answered/, "サーバーから正しい応答がありませんでした"],
];
function trError(message) {
  const text = String(message ?? "");
  if (!JA() || !text) return text;
  for (const [re, ja] of ERRORS) {
    const m = re.exec(text);
    if (m) return typeof ja === "function" ? ja(m) : ja;
  }
  return `エラーが起きました (サーバーの説明: ${text})`;
}

// A line of the server's text as a text node of the page's language (kept for callers that append).
function trText(text) {
  return document.createTextNode(tr(text));
}

const trPlain = (text) => cardName(text);
