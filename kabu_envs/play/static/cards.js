// Card pictures as inline SVG, drawn by this file (no image files, no downloaded assets): kabufuda
// (Oicho-Kabu's default deck), hanafuda months (deck="hanafuda"), French-suited cards (Kakeya, the
// western deck), plain numbers (Toy Card) and the red backs of face-down cards. One card is a
// 64 x 90 viewBox; the page scales it (legible at phone size: the value is always in a corner).
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";

function svgEl(tag, attrs, text) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

// Kabufuda: the pips of values 2..9 as (x, y) on the card (the playing-card layouts the kabufuda
// figures follow); 1 (pin) and 10 (jack) are figures.
const KABU_PIPS = {
  2: [[32, 28], [32, 66]],
  3: [[32, 24], [32, 47], [32, 70]],
  4: [[21, 30], [43, 30], [21, 64], [43, 64]],
  5: [[21, 28], [43, 28], [32, 47], [21, 66], [43, 66]],
  6: [[21, 26], [43, 26], [21, 47], [43, 47], [21, 68], [43, 68]],
  7: [[21, 24], [43, 24], [32, 36], [21, 50], [43, 50], [21, 70], [43, 70]],
  8: [[21, 22], [43, 22], [21, 38], [43, 38], [21, 55], [43, 55], [21, 71], [43, 71]],
  9: [[21, 22], [43, 22], [21, 38], [43, 38], [32, 47], [21, 56], [43, 56], [21, 72], [43, 72]],
};
const KANJI = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十"];

function kabufuda(s, card) {
  const v = Number(card.rank);
  s.append(svgEl("rect", { x: 1, y: 1, width: 62, height: 88, rx: 5, fill: "#f6efd9", stroke: "#1a1a1a", "stroke-width": 2 }));
  s.append(svgEl("rect", { x: 5, y: 5, width: 54, height: 80, rx: 3, fill: "none", stroke: "#1a1a1a", "stroke-width": 1 }));
  if (v === 1) { // pin: a red crest on a black field
    s.append(svgEl("rect", { x: 12, y: 16, width: 40, height: 58, rx: 3, fill: "#1a1a1a" }));
    s.append(svgEl("path", { d: "M32 24 L46 45 L32 66 L18 45 Z", fill: "#c62828", stroke: "#c9a22a", "stroke-width": 2 }));
    s.append(svgEl("circle", { cx: 32, cy: 45, r: 5, fill: "#c9a22a" }));
  } else if (v === 10) { // jack: a standing figure
    s.append(svgEl("rect", { x: 12, y: 14, width: 40, height: 62, rx: 3, fill: "#e9dcb5" }));
    s.append(svgEl("circle", { cx: 32, cy: 28, r: 7, fill: "#f3d2b0", stroke: "#1a1a1a" }));
    s.append(svgEl("path", { d: "M25 24 Q32 14 39 24 Z", fill: "#1a1a1a" }));
    s.append(svgEl("path", { d: "M20 72 L24 40 Q32 34 40 40 L44 72 Z", fill: "#c62828", stroke: "#1a1a1a" }));
    s.append(svgEl("path", { d: "M24 52 L40 52 M26 62 L38 62", stroke: "#c9a22a", "stroke-width": 2 }));
  } else {
    for (const [x, y] of KABU_PIPS[v] || []) { // a crest pip: a black disc, a red four-petal flower
      s.append(svgEl("circle", { cx: x, cy: y, r: 6.5, fill: "#1a1a1a" }));
      s.append(svgEl("path", { d: `M${x} ${y - 5} Q${x + 2} ${y - 2} ${x + 5} ${y} Q${x + 2} ${y + 2} ${x} ${y + 5} Q${x - 2} ${y + 2} ${x - 5} ${y} Q${x - 2} ${y - 2} ${x} ${y - 5} Z`, fill: "#d32f2f" }));
    }
  }
  cornerValue(s, card.rank, v === 1 ? "#c62828" : "#1a1a1a", "#f6efd9");
}

// The value in two corners, on a patch of the card's ground so it reads over any figure.
function cornerValue(s, text, ink, ground) {
  for (const [x, y, rot] of [[9, 14, 0], [55, 76, 180]]) {
    const g = svgEl("g", { transform: `rotate(${rot} ${x} ${y})` });
    g.append(svgEl("rect", { x: x - 6, y: y - 8, width: text.length > 1 ? 15 : 11, height: 13, rx: 2, fill: ground, opacity: 0.9 }));
    g.append(svgEl("text", { x: x - 4, y: y + 3, "font-size": 12, "font-weight": "bold", "font-family": "sans-serif", fill: ink }, text));
    s.append(g);
  }
}

// Hanafuda: each month's plant (and its light: the crane's sun, the cherry curtain, the full moon).

function blossom(s, x, y, r, petal, heart) {
  for (let k = 0; k < 5; k++) {
    const a = (k * 2 * Math.PI) / 5;
    s.append(svgEl("circle", { cx: (x + r * Math.sin(a)).toFixed(1), cy: (y - r * Math.cos(a)).toFixed(1), r: r * 0.75, fill: petal }));
  }
  s.append(svgEl("circle", { cx: x, cy: y, r: r * 0.45, fill: heart }));
}

const HANA = {
  1(s, light) { // pine
    if (light) s.append(svgEl("circle", { cx: 32, cy: 26, r: 13, fill: "#d32f2f" }));
    for (const [y, w] of [[30, 16], [44, 22], [58, 26]]) s.append(svgEl("path", { d: `M32 ${y - 12} L${32 + w} ${y + 6} L${32 - w} ${y + 6} Z`, fill: "#2e7d32" }));
    s.append(svgEl("rect", { x: 29, y: 64, width: 6, height: 16, fill: "#5d4037" }));
  },
  2(s) { // plum
    s.append(svgEl("path", { d: "M8 80 Q22 50 56 20", stroke: "#3e2723", "stroke-width": 4, fill: "none" }));
    for (const [x, y] of [[20, 58], [34, 40], [48, 28], [42, 56]]) blossom(s, x, y, 5, "#c62828", "#ffd54a");
  },
  3(s, light) { // cherry
    if (light) { s.append(svgEl("rect", { x: 6, y: 52, width: 52, height: 28, fill: "#c62828" })); s.append(svgEl("path", { d: "M6 60 H58 M6 70 H58", stroke: "#ffd54a", "stroke-width": 2 })); }
    for (const [x, y] of [[18, 24], [32, 18], [46, 26], [24, 40], [42, 42]]) blossom(s, x, y, 5.5, "#f8bbd0", "#c2185b");
  },
  4(s) { // wisteria
    s.append(svgEl("path", { d: "M10 10 Q32 16 54 10", stroke: "#3e2723", "stroke-width": 3, fill: "none" }));
    for (const x of [16, 32, 48]) for (let k = 0; k < 5; k++) s.append(svgEl("circle", { cx: x, cy: 20 + k * 9, r: 4.5 - k * 0.5, fill: "#7e57c2" }));
  },
  5(s) { // iris
    for (const x of [18, 32, 46]) s.append(svgEl("path", { d: `M${x} 80 L${x - 3} 38 L${x + 3} 38 Z`, fill: "#2e7d32" }));
    for (const [x, y] of [[18, 34], [32, 26], [46, 34]]) {
      s.append(svgEl("path", { d: `M${x} ${y - 10} Q${x + 9} ${y} ${x} ${y + 6} Q${x - 9} ${y} ${x} ${y - 10} Z`, fill: "#3949ab" }));
      s.append(svgEl("circle", { cx: x, cy: y, r: 2, fill: "#ffd54a" }));
    }
  },
  6(s) { // peony
    for (const r of [17, 12, 7]) s.append(svgEl("circle", { cx: 32, cy: 38, r, fill: r === 12 ? "#ad1457" : "#d81b60", stroke: "#880e4f" }));
    for (const [x, y] of [[18, 66], [46, 66]]) s.append(svgEl("ellipse", { cx: x, cy: y, rx: 10, ry: 5, fill: "#2e7d32" }));
  },
  7(s) { // bush clover
    for (const d of ["M10 80 Q20 40 52 14", "M20 82 Q34 50 58 40"]) s.append(svgEl("path", { d, stroke: "#6d4c41", "stroke-width": 2, fill: "none" }));
    for (const [x, y] of [[18, 56], [24, 42], [34, 30], [44, 22], [32, 60], [42, 50], [52, 42]]) s.append(svgEl("ellipse", { cx: x, cy: y, rx: 4, ry: 2.5, fill: "#c2185b" }));
  },
  8(s, light) { // pampas: a hill under the sky (the light: the full moon, red sky)
    if (light) { s.append(svgEl("rect", { x: 5, y: 5, width: 54, height: 50, fill: "#e57373" })); s.append(svgEl("circle", { cx: 32, cy: 30, r: 15, fill: "#fffdf6" })); }
    s.append(svgEl("path", { d: "M5 85 L5 58 Q32 36 59 58 L59 85 Z", fill: "#1a1a1a" }));
    for (const x of [16, 26, 38, 48]) s.append(svgEl("path", { d: `M${x} 60 L${x + 2} 44`, stroke: "#f6efd9", "stroke-width": 1.5 }));
  },
  9(s) { // chrysanthemum
    for (let k = 0; k < 12; k++) {
      const a = (k * Math.PI) / 6;
      s.append(svgEl("ellipse", { cx: (32 + 10 * Math.sin(a)).toFixed(1), cy: (36 - 10 * Math.cos(a)).toFixed(1), rx: 3.5, ry: 7,
        transform: `rotate(${k * 30} ${(32 + 10 * Math.sin(a)).toFixed(1)} ${(36 - 10 * Math.cos(a)).toFixed(1)})`, fill: "#fbc02d", stroke: "#f57f17" }));
    }
    s.append(svgEl("circle", { cx: 32, cy: 36, r: 5, fill: "#f57f17" }));
    s.append(svgEl("path", { d: "M32 50 L32 80", stroke: "#2e7d32", "stroke-width": 3 }));
  },
  10(s) { // maple
    for (const [x, y, c] of [[20, 26, "#d84315"], [42, 22, "#c62828"], [30, 46, "#e64a19"], [46, 56, "#bf360c"], [18, 64, "#d84315"]]) {
      s.append(svgEl("path", { d: `M${x} ${y - 9} L${x + 3} ${y - 2} L${x + 9} ${y - 3} L${x + 4} ${y + 2} L${x + 6} ${y + 8} L${x} ${y + 4} L${x - 6} ${y + 8} L${x - 4} ${y + 2} L${x - 9} ${y - 3} L${x - 3} ${y - 2} Z`, fill: c }));
    }
  },
};

function hanafuda(s, card) {
  const month = Number(card.rank);
  s.append(svgEl("rect", { x: 1, y: 1, width: 62, height: 88, rx: 5, fill: "#3e2723" }));
  s.append(svgEl("rect", { x: 5, y: 5, width: 54, height: 80, rx: 2, fill: "#f6efd9" }));
  (HANA[month] || (() => {}))(s, card.light);
  if (card.light) s.append(svgEl("text", { x: 52, y: 80, "font-size": 11, "text-anchor": "middle", fill: "#c62828", "font-weight": "bold" }, "光"));
  cornerValue(s, card.rank, "#1a1a1a", "#f6efd9");
}

function western(s, card) {
  const ink = card.red ? "#c62828" : "#1a1a1a";
  s.append(svgEl("rect", { x: 1, y: 1, width: 62, height: 88, rx: 5, fill: "#fffdf6", stroke: "#bbb" }));
  s.append(svgEl("text", { x: 5, y: 18, "font-size": 16, fill: ink, "font-weight": "bold", "font-family": "sans-serif" }, card.rank));
  s.append(svgEl("text", { x: 5, y: 33, "font-size": 14, fill: ink }, card.suit));
  s.append(svgEl("text", { x: 34, y: 62, "font-size": 32, fill: ink, "text-anchor": "middle" }, card.suit));
  s.append(svgEl("text", { x: 59, y: 85, "font-size": 16, fill: ink, "text-anchor": "end", "font-weight": "bold", "font-family": "sans-serif" }, card.rank));
}

function numberCard(s, card) {
  s.append(svgEl("rect", { x: 1, y: 1, width: 62, height: 88, rx: 5, fill: "#fffdf6", stroke: "#bbb" }));
  s.append(svgEl("text", { x: 32, y: 56, "font-size": 30, "text-anchor": "middle", fill: "#1a1a1a", "font-family": "sans-serif" }, card.rank));
}

// A red back: a lattice on red, white rim.
function back(s) {
  s.append(svgEl("rect", { x: 1, y: 1, width: 62, height: 88, rx: 5, fill: "#fffdf6" }));
  s.append(svgEl("rect", { x: 4, y: 4, width: 56, height: 82, rx: 3, fill: "#a31515" }));
  s.append(svgEl("path", { d: "M4 18 L46 86 M4 46 L28 86 M18 4 L60 72 M46 4 L60 26 M60 18 L18 86 M60 46 L36 86 M46 4 L4 72 M18 4 L4 26", stroke: "#d84a4a", "stroke-width": 1.5 }));
  s.append(svgEl("circle", { cx: 32, cy: 45, r: 9, fill: "#a31515", stroke: "#f6efd9", "stroke-width": 2 }));
}

const DRAW = { kabufuda, hanafuda, western, number: numberCard };

// The picture of one card (a seat-view card: {hidden} or {kind, rank, suit, red, light, ...}).
function cardSvg(card) {
  const s = svgEl("svg", { viewBox: "0 0 64 90", role: "img" });
  if (card.hidden) back(s);
  else (DRAW[card.kind] || numberCard)(s, card);
  return s;
}
