// The rules panel: how the game on the table is played, in both languages, with what the server says
// of this game's rule set (state.rules: the yaku switched on, the bets, Rensho's rule; web.rules_info).
// Short on purpose: the full rules are docs/oicho_kabu.md and docs/kakeya.md.
"use strict";

const RULES_TEXT = {
  oicho_kabu: {
    en: [
      "A hand's value is the last digit of its cards' sum: 9 (kabu) is best, 8 is oicho, 0 is buta.",
      "The dealer lays out four spreads of one card each. In the betting order each bettor stakes on spreads (or not); a second card follows face down.",
      "Each spread is then played by its first bettor: stand, draw a third card (up to three), or escape where the rule set allows.",
      "The dealer draws or stands last. A spread with a higher value than the dealer wins its stakes back and as much again; a lower one loses them; a tie goes as the rule set says.",
      "A yaku (below) beats the plain values and pays its multiple.",
    ],
    ja: [
      "手の値は札の合計の一の位です。9 (カブ) がいちばん強く、8 はおいちょ、0 はブタ。",
      "親が札を一枚ずつ四つの場 (1〜4番の札) に並べます。子は張る順に、張りたい場に点を張ります (張らなくてもかまいません)。二枚目は伏せて配られます。",
      "それぞれの場は最初に張った子が勝負します: そのまま止めるか、三枚目を引くか、ルールが許せば降ります。",
      "最後に親が引くか止めるかを決めます。親より値の高い場は張った点と同じだけ勝ち、低い場は張った点を失います。同点の扱いはルール次第です。",
      "役 (下の表) は普通の値より強く、その倍率で払われます。",
    ],
  },
  kakeya: {
    en: [
      "Partnerships play tricks with French cards: follow the suit led if you can; the highest trump, else the highest card of the led suit, takes the trick.",
      "Rensho is the highest card of the game: it may be played at any time, even when you could follow suit, and it takes the trick.",
      "The first dealer chooses trumps; the lead chooser leads or lets the partner lead.",
      "The aim is the egara, the 16 cards J, Q, K, A: the partnership that captures more wins the deal (at 8-8 the one without Rensho among its egara) and the losers pay stones.",
    ],
    ja: [
      "組に分かれてトランプで場を取り合います。出された札と同じマークがあれば出さなければなりません。切り札のいちばん強い札、なければ最初のマークのいちばん強い札が場を取ります。",
      "連勝はこのゲームでいちばん強い札です。いつでも (同じマークを持っていても) 出せて、必ず場を取ります。",
      "最初の親が切り札を決め、先手決めの人が自分で先手を取るか相方に譲ります。",
      "狙いは絵柄 (J・Q・K・A の16枚) です。多く取った組がその回の勝ち (8対8なら連勝を取っていない組の勝ち) で、負けた組が石を払います。",
    ],
  },
};

const RENSHO = {
  seed: ["Rensho: the ace of clubs when clubs are trumps, otherwise the ace of spades.", "連勝: 切り札がクラブならクラブのエース、それ以外はスペードのエース。"],
  traditional: ["Rensho: the ace of spades, or the ace of clubs when spades are trumps.", "連勝: スペードのエース (切り札がスペードならクラブのエース)。"],
};

const HOLDERS = { dealer: ["dealer", "親"], bettor: ["bettors", "子"] };

// The panel for the game in progress (state.rules), in the page's language.
function drawRules(state) {
  const info = state.rules || {};
  const box = $("rules-body");
  const text = RULES_TEXT[info.game];
  if (!text) {
    box.replaceChildren();
    $("rules-box").classList.add("hidden");
    return;
  }
  $("rules-box").classList.remove("hidden");
  const ja = lang === "ja";
  const parts = [];
  const head = document.createElement("p");
  if (info.game === "oicho_kabu") {
    const rules = rulesName(info.rules);
    const bets = (info.bets || []).join(ja ? "・" : ", ");
    head.textContent = ja
      ? `おいちょかぶ (${rules})、胴前 ${info.domae}点、張れる点: ${bets}、全${info.max_rounds}勝負。`
      : `Oicho-Kabu (${rules}), domae ${info.domae}, bets of ${bets}, ${info.max_rounds} round(s).`;
  } else {
    head.textContent = ja
      ? `カケヤ (${info.num_players}人)、全${info.max_deals}回。`
      : `Kakeya (${info.num_players} players), ${info.max_deals} deal(s).`;
  }
  parts.push(head);
  const list = document.createElement("ul");
  list.append(...text[ja ? "ja" : "en"].map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
  if (info.rensho_rule && RENSHO[info.rensho_rule]) {
    const li = document.createElement("li");
    li.textContent = RENSHO[info.rensho_rule][ja ? 1 : 0];
    list.append(li);
  }
  parts.push(list);
  if (info.yaku && info.yaku.length) {
    const table = document.createElement("table");
    table.className = "yaku";
    const row = (cells, tag) => {
      const tr = document.createElement("tr");
      for (const c of cells) {
        const td = document.createElement(tag);
        td.textContent = c;
        tr.append(td);
      }
      return tr;
    };
    table.append(row(ja ? ["役", "札", "誰の役", "倍率"] : ["yaku", "cards", "for", "pays"], "th"));
    for (const y of info.yaku) {
      const who = y.holders.map((h) => (HOLDERS[h] ? HOLDERS[h][ja ? 1 : 0] : h)).join(ja ? "・" : ", ");
      const pays = y.multiplier ? (ja ? `${y.multiplier}倍` : `×${y.multiplier}`) : (ja ? "中の札の数" : "×middle card");
      table.append(row([yakuName(y.name), ja ? yakuCards(y.name) : y.condition, who, pays], "td"));
    }
    parts.push(table);
  }
  box.replaceChildren(...parts);
}

// The cards of each yaku, in Japanese.
function yakuCards(name) {
  return {
    sanpachi_hikari: "最初の二枚が三月と八月の光札 (花札)", pin_basami: "1・中の札・1 の順 (中の札の数の倍率)",
    arashi_kabu: "3・3・3 (大アラシ)", arashi: "同じ数の三枚", kuppin: "最初の二枚が 9 と 1",
    shippin: "最初の二枚が 4 と 1", doshippin: "1・10・10", niichi: "2 と 1 の二枚だけ", shidou: "4 と 10 の二枚だけ",
    shiro: "4 と 6 の二枚だけ", toichi: "1 と 10 の二枚だけ", fujin: "3・7・10", raijin: "4・7・9",
    ichi_ni_san: "1・2・3", shichi_go_san: "7・5・3", nobori: "一つずつ上がる三枚", kudari: "一つずつ下がる三枚",
    zoro: "同じ数の二枚だけ", zoro_tsubushi: "7 と 3 の二枚だけ", wake_satsu: "4 と 9 の二枚だけ",
  }[name] ?? name;
}
