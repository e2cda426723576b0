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

// Kabufuda (株札): one suit of 1..10 on a cream ground inside a black border with a red inner rule, as
// the hanafuda makers print them. 2..9 are pip cards: the dense pattern of black lozenges (each with a
// cream rim, a red heart and a black eye, whiskers at its points) joined by a red lattice; 1 (ピン) is
// the crest card, 10 the standing court figure (a jack-like retainer). The pips' places, (x, y):
const KABU_PIPS = {
  2: [[32, 29], [32, 61]],
  3: [[32, 21], [32, 45], [32, 69]],
  4: [[21, 28], [43, 28], [21, 62], [43, 62]],
  5: [[21, 24], [43, 24], [32, 45], [21, 66], [43, 66]],
  6: [[21, 22], [43, 22], [21, 45], [43, 45], [21, 68], [43, 68]],
  7: [[20, 21], [44, 21], [32, 33], [20, 45], [44, 45], [20, 69], [44, 69]],
  8: [[20, 19], [44, 19], [20, 36], [44, 36], [20, 54], [44, 54], [20, 71], [44, 71]],
  9: [[20, 19], [44, 19], [20, 36], [44, 36], [32, 45], [20, 54], [44, 54], [20, 71], [44, 71]],
};
const KABU = { ground: "#f1e4c0", ink: "#161616", red: "#b3261e", gold: "#b8912c", flesh: "#f0cfa8" };

// The frame every kabufuda shares: cream card, black border, red rule, a fine black rule inside.
function kabuFrame(s) {
  s.append(svgEl("rect", { x: 1, y: 1, width: 62, height: 88, rx: 5, fill: KABU.ground, stroke: KABU.ink, "stroke-width": 2 }));
  s.append(svgEl("rect", { x: 4, y: 4, width: 56, height: 82, rx: 2.5, fill: "none", stroke: KABU.ink, "stroke-width": 2.2 }));
  s.append(svgEl("rect", { x: 6.6, y: 6.6, width: 50.8, height: 76.8, rx: 1.5, fill: "none", stroke: KABU.red, "stroke-width": 1.3 }));
}

// One lozenge pip of half-width w and half-height h.
function kabuPip(s, x, y, w, h) {
  const diamond = (a, b) => `M${x} ${y - b} L${x + a} ${y} L${x} ${y + b} L${x - a} ${y} Z`;
  s.append(svgEl("path", { d: `M${x} ${y - h - 3} V${y - h} M${x} ${y + h} V${y + h + 3} M${x - w - 2.5} ${y} H${x - w} M${x + w} ${y} H${x + w + 2.5}`, stroke: KABU.ink, "stroke-width": 1.1 }));
  s.append(svgEl("path", { d: diamond(w, h), fill: KABU.ink }));
  s.append(svgEl("path", { d: diamond(w * 0.68, h * 0.68), fill: "none", stroke: KABU.ground, "stroke-width": 0.9 }));
  s.append(svgEl("path", { d: diamond(w * 0.45, h * 0.45), fill: KABU.red }));
  s.append(svgEl("circle", { cx: x, cy: y, r: Math.min(w, h) * 0.14, fill: KABU.ink }));
}

function kabuPips(s, v) {
  const pips = KABU_PIPS[v] || [];
  const [w, h] = v >= 7 ? [6.4, 7.6] : v >= 4 ? [8, 9.6] : [9.5, 11];
  // the ground's diaper: a fine red lattice of small lozenges, with black beads down both sides
  const lattice = [];
  for (let k = -80; k <= 80; k += 8) lattice.push(`M${10 + k} 10 L${10 + k + 70} 80`, `M${54 - k} 10 L${54 - k - 70} 80`);
  const clip = `kabu-clip-${v}`;
  const defs = svgEl("defs", {});
  const cp = svgEl("clipPath", { id: clip });
  cp.append(svgEl("rect", { x: 12.5, y: 10, width: 39, height: 70 }));
  defs.append(cp);
  s.append(defs);
  s.append(svgEl("path", { d: lattice.join(" "), stroke: KABU.red, "stroke-width": 0.5, opacity: 0.45, "clip-path": `url(#${clip})` }));
  for (let y = 12; y <= 78; y += 5.5) {
    for (const x of [10, 54]) s.append(svgEl("rect", { x: x - 1.1, y: y - 1.1, width: 2.2, height: 2.2, fill: KABU.ink, transform: `rotate(45 ${x} ${y})` }));
  }
  for (const [x, y] of pips) kabuPip(s, x, y, w, h);
}

// ピン: the crest card: a black field framed in gold, the crest (a three-comma tomoe in a red disc
// ringed in gold) and a lozenge above and below.
function kabuPin(s) {
  s.append(svgEl("rect", { x: 11, y: 13, width: 42, height: 64, rx: 2, fill: KABU.ink }));
  s.append(svgEl("rect", { x: 13.5, y: 15.5, width: 37, height: 59, rx: 1.5, fill: "none", stroke: KABU.gold, "stroke-width": 1 }));
  s.append(svgEl("circle", { cx: 32, cy: 45, r: 15, fill: KABU.red, stroke: KABU.gold, "stroke-width": 2.6 }));
  for (let k = 0; k < 3; k++) {
    s.append(svgEl("path", { d: "M32 45 m0 -10.5 a5.25 5.25 0 1 1 0 10.5 a10.5 10.5 0 0 0 -9 -5.25 a10.5 10.5 0 0 1 9 -5.25 Z",
      fill: KABU.ink, transform: `rotate(${k * 120} 32 45)` }));
  }
  s.append(svgEl("circle", { cx: 32, cy: 45, r: 1.8, fill: KABU.gold }));
  for (const y of [22, 68]) {
    s.append(svgEl("path", { d: `M32 ${y - 4} L36 ${y} L32 ${y + 4} L28 ${y} Z`, fill: KABU.red, stroke: KABU.gold, "stroke-width": 0.8 }));
    s.append(svgEl("path", { d: `M18 ${y} H27 M37 ${y} H46`, stroke: KABU.gold, "stroke-width": 0.9 }));
  }
}

// 10: the court card: a retainer standing full length, eboshi, face, wide-shouldered kataginu over a
// robe, hakama to the feet, a sword at the hip and a staff in hand, on a pale panel.
function kabuCourt(s) {
  s.append(svgEl("rect", { x: 11, y: 11, width: 42, height: 68, rx: 1.5, fill: "#e7d6a6", stroke: KABU.ink, "stroke-width": 0.8 }));
  s.append(svgEl("path", { d: "M46 14 L46 76", stroke: "#6d4c2f", "stroke-width": 1.8 })); // the staff
  s.append(svgEl("path", { d: "M43.5 14 L48.5 14 L46 10 Z", fill: KABU.ink }));
  s.append(svgEl("path", { d: "M28 21 L30 11 L36.5 13 L35.5 21 Z", fill: KABU.ink })); // eboshi
  s.append(svgEl("ellipse", { cx: 32, cy: 25, rx: 5.2, ry: 6, fill: KABU.flesh, stroke: KABU.ink, "stroke-width": 0.8 }));
  s.append(svgEl("path", { d: "M29.3 24 h2 M33 24 h2 M30.5 28 q1.5 1 3 0", stroke: KABU.ink, "stroke-width": 0.7, fill: "none" }));
  s.append(svgEl("path", { d: "M29 31 L35 31 L36 35 L28 35 Z", fill: "#fafafa", stroke: KABU.ink, "stroke-width": 0.6 })); // collar
  s.append(svgEl("path", { d: "M15 38 L28 32 L36 32 L49 38 L45 42 L37 40 L27 40 L19 42 Z", fill: "#1f3f8f", stroke: KABU.ink, "stroke-width": 0.8 })); // kataginu
  s.append(svgEl("path", { d: "M24 40 L40 40 L41 54 L23 54 Z", fill: KABU.red, stroke: KABU.ink, "stroke-width": 0.8 })); // robe
  s.append(svgEl("path", { d: "M32 40 L32 54 M26 47 L38 47", stroke: KABU.gold, "stroke-width": 1 }));
  s.append(svgEl("path", { d: "M23 54 L41 54 L45 75 L34 75 L32 60 L30 75 L19 75 Z", fill: KABU.ink })); // hakama
  s.append(svgEl("path", { d: "M25 58 L23 72 M39 58 L41 72", stroke: "#555", "stroke-width": 0.7 }));
  s.append(svgEl("path", { d: "M18 76 h9 M37 76 h9", stroke: KABU.ink, "stroke-width": 1.6 })); // feet
  s.append(svgEl("path", { d: "M21 50 L13 60", stroke: "#444", "stroke-width": 2.2 })); // the sword's hilt and sheath
  s.append(svgEl("circle", { cx: 43.5, cy: 44, r: 2, fill: KABU.flesh, stroke: KABU.ink, "stroke-width": 0.6 })); // the hand on the staff
  s.append(svgEl("circle", { cx: 32, cy: 36.5, r: 1.6, fill: "#fafafa" })); // the crest on the chest
}

function kabufuda(s, card) {
  const v = Number(card.rank);
  kabuFrame(s);
  if (v === 1) kabuPin(s);
  else if (v === 10) kabuCourt(s);
  else kabuPips(s, v);
  cornerValue(s, card.rank, v === 1 ? KABU.red : KABU.ink, KABU.ground);
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

// Hanafuda: 48 cards, four a month (the copy index, card id % 4: the oicho_kabu deck's ids are
// (month - 1) * 4 + copy, copy 0 the month's light where it has one). Each card is the month's plant
// with what makes it that card: the brights (crane and sun, the cherry curtain, the full moon, the rain
// man, the phoenix), the animals (warbler, cuckoo, the eight-plank bridge, butterflies, boar, geese,
// sake cup, deer, swallow), the ribbons (red poetry ribbons with their writing, blue ribbons, plain red
// ones) and the chaff (カス, the second of a month drawn mirrored).
const HANA_CARDS = {
  1: ["crane", "poetry", "chaff", "chaff"], 2: ["warbler", "poetry", "chaff", "chaff"],
  3: ["curtain", "poetry", "chaff", "chaff"], 4: ["cuckoo", "red", "chaff", "chaff"],
  5: ["bridge", "red", "chaff", "chaff"], 6: ["butterflies", "blue", "chaff", "chaff"],
  7: ["boar", "red", "chaff", "chaff"], 8: ["moon", "geese", "chaff", "chaff"],
  9: ["cup", "blue", "chaff", "chaff"], 10: ["deer", "blue", "chaff", "chaff"],
  11: ["rainman", "swallow", "red", "lightning"], 12: ["phoenix", "chaff", "chaff", "chaff"],
};
const BRIGHTS = new Set(["crane", "curtain", "moon", "rainman", "phoenix"]);
const POEMS = { 1: "あかよろし", 2: "あかよろし", 3: "みよしの" };

function blossom(s, x, y, r, petal, heart) {
  for (let k = 0; k < 5; k++) {
    const a = (k * 2 * Math.PI) / 5;
    s.append(svgEl("circle", { cx: (x + r * Math.sin(a)).toFixed(1), cy: (y - r * Math.cos(a)).toFixed(1), r: r * 0.75, fill: petal }));
  }
  s.append(svgEl("circle", { cx: x, cy: y, r: r * 0.45, fill: heart }));
}

// A maple leaf: seven pointed lobes round a stalk.
function mapleLeaf(s, x, y, r, fill) {
  let d = "";
  for (let k = 0; k < 7; k++) {
    const a = -Math.PI / 2 + ((k - 3) * Math.PI) / 4.2;
    const tip = [x + r * Math.cos(a), y + r * Math.sin(a)];
    const a2 = a + Math.PI / 8.4;
    const notch = [x + r * 0.45 * Math.cos(a2), y + r * 0.45 * Math.sin(a2)];
    d += `${k ? "L" : "M"}${tip[0].toFixed(1)} ${tip[1].toFixed(1)} L${notch[0].toFixed(1)} ${notch[1].toFixed(1)} `;
  }
  s.append(svgEl("path", { d: d + `L${x} ${y + r * 0.5} Z`, fill, stroke: "#7f1d0a", "stroke-width": 0.6 }));
  s.append(svgEl("path", { d: `M${x} ${y} L${x} ${y + r * 0.9}`, stroke: "#7f1d0a", "stroke-width": 1 }));
}

// A pine: a trunk and layered rounded clumps of needles.
function pineTree(s) {
  s.append(svgEl("path", { d: "M30 84 Q26 60 36 46 Q44 36 34 24", stroke: "#4e342e", "stroke-width": 5, fill: "none" }));
  for (const [x, y, w] of [[22, 58, 15], [44, 48, 14], [30, 34, 16], [46, 24, 11]]) {
    s.append(svgEl("ellipse", { cx: x, cy: y, rx: w, ry: 6, fill: "#1b5e20" }));
    for (let k = -w + 3; k < w; k += 4) s.append(svgEl("path", { d: `M${x + k} ${y - 4} L${x + k + 2} ${y + 5}`, stroke: "#66bb6a", "stroke-width": 1 }));
  }
}

const PLANTS = {
  1: pineTree,
  2(s) { // plum: a black branch, red blossoms
    s.append(svgEl("path", { d: "M10 84 Q18 56 50 22 M26 58 Q40 52 54 50", stroke: "#3e2723", "stroke-width": 4, fill: "none" }));
    for (const [x, y] of [[20, 64], [34, 42], [48, 26], [46, 52], [28, 52]]) blossom(s, x, y, 4.5, "#e53935", "#ffd54a");
  },
  3(s) { // cherry: a cloud of pink blossoms
    for (const [x, y] of [[16, 20], [30, 14], [46, 20], [22, 34], [38, 32], [52, 36], [12, 44]]) blossom(s, x, y, 5, "#f8bbd0", "#c2185b");
  },
  4(s) { // wisteria: hanging purple clusters
    s.append(svgEl("path", { d: "M6 10 Q32 18 58 8", stroke: "#3e2723", "stroke-width": 3, fill: "none" }));
    for (const x of [14, 28, 42, 54]) for (let k = 0; k < 6; k++) s.append(svgEl("circle", { cx: x + (k % 2) * 2, cy: 18 + k * 8, r: 4.2 - k * 0.45, fill: "#7e57c2" }));
  },
  5(s) { // iris: sword leaves, purple flowers
    for (const x of [14, 26, 40, 52]) s.append(svgEl("path", { d: `M${x} 86 Q${x - 2} 60 ${x + 3} 30 Q${x + 2} 60 ${x + 4} 86 Z`, fill: "#2e7d32" }));
    for (const [x, y] of [[20, 28], [44, 24]]) {
      for (const a of [-40, 0, 40]) s.append(svgEl("ellipse", { cx: x, cy: y - 6, rx: 3.5, ry: 8, fill: "#3949ab", transform: `rotate(${a} ${x} ${y})` }));
      s.append(svgEl("circle", { cx: x, cy: y, r: 2, fill: "#ffd54a" }));
    }
  },
  6(s) { // peony: a big pink-red flower, leaves
    for (const [x, y] of [[16, 70], [48, 70], [32, 78]]) s.append(svgEl("ellipse", { cx: x, cy: y, rx: 11, ry: 5, fill: "#2e7d32" }));
    for (const r of [18, 13, 8]) s.append(svgEl("circle", { cx: 32, cy: 44, r, fill: r === 13 ? "#c2185b" : "#e91e63", stroke: "#880e4f" }));
  },
  7(s) { // bush clover: arching stems, small red-purple flowers
    for (const d of ["M8 84 Q14 40 50 12", "M18 86 Q30 52 58 36"]) s.append(svgEl("path", { d, stroke: "#6d4c41", "stroke-width": 2, fill: "none" }));
    for (const [x, y] of [[14, 58], [20, 44], [30, 30], [42, 20], [28, 62], [40, 50], [52, 40], [16, 70]]) {
      s.append(svgEl("ellipse", { cx: x, cy: y, rx: 4, ry: 2.5, fill: "#c2185b" }));
      s.append(svgEl("ellipse", { cx: x + 3, cy: y + 4, rx: 3, ry: 1.6, fill: "#558b2f" }));
    }
  },
  8(s) { // pampas: a black hill, pale grass
    s.append(svgEl("path", { d: "M5 86 L5 60 Q32 38 59 60 L59 86 Z", fill: "#1a1a1a" }));
    for (const x of [12, 20, 28, 36, 44, 52]) s.append(svgEl("path", { d: `M${x} 62 Q${x + 3} 52 ${x + 1} 44`, stroke: "#f6efd9", "stroke-width": 1.3, fill: "none" }));
  },
  9(s) { // chrysanthemum: yellow flowers with many petals
    for (const [cx, cy, r] of [[32, 34, 10], [16, 58, 7], [48, 60, 7]]) {
      for (let k = 0; k < 12; k++) {
        const a = (k * Math.PI) / 6;
        const x = (cx + r * Math.sin(a)).toFixed(1), y = (cy - r * Math.cos(a)).toFixed(1);
        s.append(svgEl("ellipse", { cx: x, cy: y, rx: r * 0.3, ry: r * 0.65, transform: `rotate(${k * 30} ${x} ${y})`, fill: "#fbc02d", stroke: "#f57f17", "stroke-width": 0.5 }));
      }
      s.append(svgEl("circle", { cx, cy, r: r * 0.45, fill: "#f57f17" }));
    }
  },
  10(s) { // maple: red leaves
    for (const [x, y, c] of [[18, 22, "#d84315"], [44, 18, "#c62828"], [30, 42, "#e64a19"], [48, 56, "#bf360c"], [16, 64, "#c62828"]]) mapleLeaf(s, x, y, 10, c);
  },
  11(s) { // willow: drooping green strands
    for (const x of [14, 26, 38, 50]) s.append(svgEl("path", { d: `M${x} 6 Q${x + 6} 30 ${x - 2} 60`, stroke: "#558b2f", "stroke-width": 2.2, fill: "none" }));
  },
  12(s) { // paulownia: three flower spikes over big leaves
    for (const [x, y] of [[18, 72], [46, 72], [32, 64]]) s.append(svgEl("ellipse", { cx: x, cy: y, rx: 13, ry: 8, fill: "#33691e" }));
    for (const x of [20, 32, 44]) for (let k = 0; k < 4; k++) s.append(svgEl("circle", { cx: x, cy: 44 - k * 7, r: 3.3, fill: "#8e24aa" }));
  },
};

function bird(s, x, y, body, wing, scale) { // a small bird, head left
  const g = svgEl("g", { transform: `translate(${x} ${y}) scale(${scale})` });
  g.append(svgEl("ellipse", { cx: 0, cy: 0, rx: 9, ry: 5.5, fill: body }));
  g.append(svgEl("circle", { cx: -8, cy: -3, r: 4, fill: body }));
  g.append(svgEl("path", { d: "M-12 -3 L-16 -2 L-12 -1 Z", fill: "#f9a825" }));
  g.append(svgEl("path", { d: "M-3 -2 Q4 -12 10 -4 Z", fill: wing }));
  g.append(svgEl("path", { d: "M8 0 L16 -3 L15 3 Z", fill: body }));
  g.append(svgEl("circle", { cx: -9, cy: -4, r: 0.9, fill: "#111" }));
  s.append(g);
}

const FEATURES = {
  crane(s) { // the crane and the red sun
    s.append(svgEl("circle", { cx: 40, cy: 22, r: 13, fill: "#d32f2f" }));
    s.append(svgEl("ellipse", { cx: 26, cy: 62, rx: 12, ry: 7, fill: "#fafafa", stroke: "#333" }));
    s.append(svgEl("path", { d: "M18 60 Q10 40 20 30", stroke: "#fafafa", "stroke-width": 4, fill: "none" }));
    s.append(svgEl("path", { d: "M18 60 Q10 40 20 30", stroke: "#333", "stroke-width": 0.6, fill: "none" }));
    s.append(svgEl("circle", { cx: 21, cy: 29, r: 3, fill: "#d32f2f" }));
    s.append(svgEl("path", { d: "M23 29 L31 31", stroke: "#555", "stroke-width": 1.5 }));
    s.append(svgEl("path", { d: "M30 58 L42 52 L38 62 Z", fill: "#1a1a1a" }));
  },
  curtain(s) { // the cherry curtain (maku) with its crest
    s.append(svgEl("path", { d: "M5 50 Q18 58 32 50 Q46 58 59 50 L59 86 L5 86 Z", fill: "#b71c1c" }));
    s.append(svgEl("path", { d: "M5 62 H59 M5 74 H59", stroke: "#ffd54a", "stroke-width": 1.5 }));
    s.append(svgEl("circle", { cx: 32, cy: 68, r: 6, fill: "#fafafa" }));
    blossom(s, 32, 68, 3, "#f48fb1", "#b71c1c");
  },
  moon(s) { // the full moon in a red sky
    s.insertBefore(svgEl("rect", { x: 5, y: 5, width: 54, height: 56, fill: "#e57373" }), s.childNodes[2]);
    s.append(svgEl("circle", { cx: 32, cy: 30, r: 15, fill: "#fffdf6", stroke: "#e0c080" }));
  },
  rainman(s) { // Ono no Michikaze under his umbrella, the frog
    s.append(svgEl("path", { d: "M14 30 Q30 12 46 30 Z", fill: "#c62828" }));
    s.append(svgEl("path", { d: "M30 24 L30 50", stroke: "#5d4037", "stroke-width": 1.5 }));
    s.append(svgEl("circle", { cx: 36, cy: 36, r: 4.5, fill: "#f3d2b0", stroke: "#333" }));
    s.append(svgEl("path", { d: "M28 74 L32 42 L42 42 L46 74 Z", fill: "#fbc02d", stroke: "#333" }));
    s.append(svgEl("path", { d: "M32 52 L44 52", stroke: "#1a237e", "stroke-width": 3 }));
    s.append(svgEl("ellipse", { cx: 16, cy: 76, rx: 6, ry: 4, fill: "#2e7d32" }));
    s.append(svgEl("circle", { cx: 13, cy: 73, r: 1.3, fill: "#111" }));
  },
  phoenix(s) { // the phoenix (houou)
    s.append(svgEl("circle", { cx: 40, cy: 20, r: 10, fill: "#ef6c00" }));
    s.append(svgEl("path", { d: "M14 40 Q30 20 50 36 Q40 40 44 56 Q30 46 14 40 Z", fill: "#c62828", stroke: "#ffd54a" }));
    for (const [d, c] of [["M44 56 Q54 70 50 84", "#2e7d32"], ["M40 54 Q42 72 34 84", "#1565c0"], ["M36 52 Q30 70 20 80", "#ffd54a"]]) s.append(svgEl("path", { d, stroke: c, "stroke-width": 3, fill: "none" }));
    s.append(svgEl("circle", { cx: 16, cy: 38, r: 4, fill: "#ffd54a" }));
  },
  warbler(s) { bird(s, 36, 58, "#7cb342", "#33691e", 1.1); },
  cuckoo(s) {
    s.append(svgEl("path", { d: "M40 12 A10 10 0 1 0 50 24 A8 8 0 1 1 40 12 Z", fill: "#ffd54a" }));
    bird(s, 30, 34, "#37474f", "#111", 1.05);
  },
  bridge(s) { // the eight-plank bridge (yatsuhashi)
    for (const [x, y] of [[6, 62], [22, 70], [38, 62]]) {
      s.append(svgEl("path", { d: `M${x} ${y} L${x + 18} ${y + 8} L${x + 18} ${y + 13} L${x} ${y + 5} Z`, fill: "#8d6e63", stroke: "#3e2723" }));
    }
  },
  butterflies(s) {
    for (const [x, y, c] of [[22, 24, "#1e88e5"], [44, 34, "#fbc02d"]]) {
      for (const sx of [-1, 1]) s.append(svgEl("path", { d: `M${x} ${y} Q${x + sx * 12} ${y - 10} ${x + sx * 10} ${y + 2} Q${x + sx * 9} ${y + 10} ${x} ${y + 3} Z`, fill: c, stroke: "#333", "stroke-width": 0.6 }));
      s.append(svgEl("path", { d: `M${x} ${y - 4} L${x} ${y + 6}`, stroke: "#111", "stroke-width": 1.5 }));
    }
  },
  boar(s) {
    s.append(svgEl("ellipse", { cx: 34, cy: 64, rx: 16, ry: 9, fill: "#6d4c41" }));
    s.append(svgEl("path", { d: "M20 60 L10 64 L20 70 Z", fill: "#5d4037" }));
    for (const x of [24, 30, 38, 44]) s.append(svgEl("rect", { x, y: 70, width: 3, height: 9, fill: "#4e342e" }));
    s.append(svgEl("path", { d: "M22 58 Q34 50 48 58", stroke: "#3e2723", "stroke-width": 2, fill: "none" }));
    s.append(svgEl("circle", { cx: 18, cy: 62, r: 1, fill: "#fff" }));
  },
  geese(s) {
    for (const [x, y] of [[20, 18], [34, 26], [46, 16]]) s.append(svgEl("path", { d: `M${x - 7} ${y - 3} L${x} ${y + 2} L${x + 7} ${y - 3} L${x} ${y} Z`, fill: "#1a1a1a" }));
  },
  cup(s) { // the sake cup with 寿
    s.append(svgEl("path", { d: "M16 56 Q32 78 48 56 Z", fill: "#c62828", stroke: "#8e0000" }));
    s.append(svgEl("rect", { x: 27, y: 67, width: 10, height: 6, fill: "#8e0000" }));
    s.append(svgEl("text", { x: 32, y: 65, "font-size": 8, "text-anchor": "middle", fill: "#ffd54a", "font-family": "serif" }, "寿"));
  },
  deer(s) {
    s.append(svgEl("ellipse", { cx: 34, cy: 62, rx: 13, ry: 7, fill: "#a1662f" }));
    s.append(svgEl("path", { d: "M24 58 L20 44 L26 44 Z", fill: "#a1662f" }));
    s.append(svgEl("path", { d: "M20 44 L14 34 M20 44 L22 32 M17 38 L12 38", stroke: "#5d4037", "stroke-width": 1.5 }));
    for (const x of [26, 30, 38, 43]) s.append(svgEl("rect", { x, y: 67, width: 2.5, height: 12, fill: "#7b4a1e" }));
    for (const [x, y] of [[30, 60], [38, 58], [36, 64]]) s.append(svgEl("circle", { cx: x, cy: y, r: 1.2, fill: "#f6efd9" }));
  },
  swallow(s) {
    s.append(svgEl("path", { d: "M16 40 Q30 30 40 40 L56 30 L44 44 L56 52 L38 46 Q28 50 16 40 Z", fill: "#1a237e" }));
    s.append(svgEl("circle", { cx: 20, cy: 40, r: 2, fill: "#d32f2f" }));
  },
  lightning(s) { // the willow's chaff: the drum and lightning
    s.insertBefore(svgEl("rect", { x: 5, y: 5, width: 54, height: 80, fill: "#4a148c" }), s.childNodes[2]);
    s.append(svgEl("path", { d: "M40 8 L28 34 L36 34 L24 60 L44 30 L36 30 L46 8 Z", fill: "#ffd54a" }));
    s.append(svgEl("rect", { x: 12, y: 66, width: 40, height: 10, rx: 5, fill: "#c62828" }));
  },
};

// A ribbon (tanzaku), slanted across the card: red with a poem, blue, or plain red.
function ribbon(s, kind, month) {
  const fill = kind === "blue" ? "#1a3fa6" : "#c62828";
  const g = svgEl("g", { transform: "rotate(-12 32 48)" });
  g.append(svgEl("rect", { x: 27, y: 18, width: 11, height: 50, fill, stroke: "#1a1a1a", "stroke-width": 0.8 }));
  if (kind === "poetry") {
    [...POEMS[month] || ""].forEach((ch, i) => g.append(svgEl("text", { x: 32.5, y: 28 + i * 9, "font-size": 8, "text-anchor": "middle", fill: "#1a1a1a", "font-family": "serif" }, ch)));
  }
  s.append(g);
}

function hanafuda(s, card) {
  const month = Number(card.rank);
  const copy = Number(card.id ?? 0) % 4;
  const kind = (HANA_CARDS[month] || [])[copy] || "chaff";
  s.append(svgEl("rect", { x: 1, y: 1, width: 62, height: 88, rx: 5, fill: "#3e2723" }));
  s.append(svgEl("rect", { x: 5, y: 5, width: 54, height: 80, rx: 2, fill: "#f6efd9" }));
  const plant = svgEl("g", copy === 3 && kind === "chaff" ? { transform: "translate(64 0) scale(-1 1)" } : {});
  (PLANTS[month] || (() => {}))(plant);
  s.append(plant);
  if (FEATURES[kind]) FEATURES[kind](s);
  else if (kind === "poetry" || kind === "red" || kind === "blue") ribbon(s, kind, month);
  if (BRIGHTS.has(kind) || card.light) s.append(svgEl("text", { x: 52, y: 81, "font-size": 10, "text-anchor": "middle", fill: "#c62828", "font-weight": "bold", "font-family": "serif" }, "光"));
  cornerValue(s, card.rank, "#1a1a1a", "#f6efd9");
}

// A court figure (J, Q, K), drawn twice head to foot as on French cards: the crown, a cap or a
// coronet, the robe in the suit's colour, the suit in the corner of the robe.
function court(s, card, ink) {
  const hat = { K: "M22 22 L24 12 L28 18 L32 10 L36 18 L40 12 L42 22 Z", Q: "M24 22 Q32 10 40 22 Z", J: "M22 22 Q32 14 42 22 L42 24 L22 24 Z" }[card.rank];
  const robe = card.red ? "#c62828" : "#1a237e";
  s.append(svgEl("rect", { x: 11, y: 9, width: 42, height: 72, fill: "#fff8e1", stroke: ink, "stroke-width": 0.8 }));
  for (const flip of [false, true]) {
    const g = svgEl("g", flip ? { transform: "rotate(180 32 45)" } : {});
    g.append(svgEl("path", { d: "M14 45 L18 32 Q32 26 46 32 L50 45 Z", fill: robe }));
    g.append(svgEl("path", { d: "M26 32 L32 45 L38 32", fill: "#ffd54a", stroke: ink, "stroke-width": 0.6 }));
    g.append(svgEl("circle", { cx: 32, cy: 26, r: 6, fill: "#f3d2b0", stroke: ink, "stroke-width": 0.7 }));
    g.append(svgEl("path", { d: hat, fill: card.rank === "J" ? robe : "#fbc02d", stroke: ink, "stroke-width": 0.7 }));
    if (card.rank === "K") g.append(svgEl("path", { d: "M28 30 Q32 35 36 30", fill: "#6d4c41" }));
    g.append(svgEl("text", { x: 44, y: 42, "font-size": 8, fill: card.red ? "#fff" : "#fff", "text-anchor": "middle" }, card.suit));
    s.append(g);
  }
  s.append(svgEl("path", { d: "M11 45 H53", stroke: ink, "stroke-width": 0.6 }));
}

function western(s, card) {
  const ink = card.red ? "#c62828" : "#1a1a1a";
  s.append(svgEl("rect", { x: 1, y: 1, width: 62, height: 88, rx: 5, fill: "#fffdf6", stroke: "#bbb" }));
  if (["J", "Q", "K"].includes(card.rank)) court(s, card, ink);
  else s.append(svgEl("text", { x: 34, y: 62, "font-size": card.rank === "A" ? 38 : 32, fill: ink, "text-anchor": "middle" }, card.suit));
  s.append(svgEl("rect", { x: 2, y: 3, width: 13, height: 32, fill: "#fffdf6", opacity: 0.85 }));
  s.append(svgEl("text", { x: 4, y: 17, "font-size": 15, fill: ink, "font-weight": "bold", "font-family": "sans-serif" }, card.rank));
  s.append(svgEl("text", { x: 4, y: 31, "font-size": 13, fill: ink }, card.suit));
  s.append(svgEl("text", { x: 60, y: 86, "font-size": 15, fill: ink, "text-anchor": "end", "font-weight": "bold", "font-family": "sans-serif" }, card.rank));
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
