// The rules panel: how the game on the table is played, as the game writes it for the rule set being
// played (state.rules: {head, lines, table}, messages of the server's table; its viewer's rules_say).
// The page only lays it out: a first line, a list, and a table whose first row is its column heads.
"use strict";

// The panel for the game in progress, in the page's language (hidden when the game writes none).
function drawRules(state) {
  const info = state.rules;
  const box = $("rules-body");
  if (!info) {
    box.replaceChildren();
    $("rules-box").classList.add("hidden");
    return;
  }
  $("rules-box").classList.remove("hidden");
  const parts = [textEl("p", "", info.head)];
  const list = document.createElement("ul");
  list.append(...info.lines.map((line) => textEl("li", "", line)));
  parts.push(list);
  if (info.table.length) {
    const table = document.createElement("table");
    table.className = "rules-table";
    info.table.forEach((cells, i) => {
      const tr = document.createElement("tr");
      tr.append(...cells.map((cell) => textEl(i === 0 ? "th" : "td", "", cell)));
      table.append(tr);
    });
    parts.push(table);
  }
  box.replaceChildren(...parts);
}
