// A diff, drawn: a `diff` block of the view model. Python computes it (present/diff_view.py: which lines were
// removed, added or replaced, what changed inside a replaced line, which unchanged runs fold) and the page, the
// widget and the static copy draw the same rows; nothing is compared here. Its two sides' lines are read back
// by model.js's sideLines.

import { h } from "./dom.js";

// [heading, rows] of diff block `d` between lines `a` (removed side) and `b` (added side), each {text, key, line}.
// decorate(el, item, side): links a row to the chain ("a" or "b": whose chain the line is in); foldTitle: what a
// folded run says when pointed at.
export function renderDiff(d, a, b, decorate, foldTitle) {
  const head = h(
    "div",
    { class: "cx-diff-head" },
    h("span", { class: "cx-del-t" }, d.del),
    "  →  ",
    h("span", { class: "cx-add-t" }, d.add),
  );
  for (const k of ["note", "counts"]) if (d[k]) head.append(h("span", { class: "cx-muted" }, `   ${d[k]}`));
  if (d.same) head.append(h("b", null, `  ${d.same}`));
  if (!d.rows) return [head, h("div", { class: "cx-missing" }, d.missing)];
  const row = (t, i, j) => {
    const item = t === "-" ? a[i] : b[j];
    const el = h(
      "div",
      { class: `cx-ln ${t === "+" ? "cx-add" : t === "-" ? "cx-del" : ""}` },
      h("span", { class: "cx-no2" }, i >= 0 ? String(i + 1) : ""),
      h("span", { class: "cx-no2" }, j >= 0 ? String(j + 1) : ""),
      h("span", { class: "cx-sign" }, t === "=" ? " " : t === "+" ? "+" : "−"),
      h("span", { class: "cx-tx" }, item.text || " "),
    );
    decorate(el, item, t === "-" ? "a" : "b");
    return el;
  };
  const equal = (i, j, n) => Array.from({ length: n }, (_, k) => row("=", i + k, j + k));
  const box = h("div", { class: "cx-code cx-diff", tabindex: "0", role: "list" });
  for (const r of d.rows) {
    const [tag] = r;
    if (tag === "=") box.append(...equal(r[1], r[2], r[3]));
    else if (tag === "-") for (let k = 0; k < r[2]; k++) box.append(row("-", r[1] + k, -1));
    else if (tag === "+") for (let k = 0; k < r[2]; k++) box.append(row("+", -1, r[1] + k));
    else if (tag === "~") {
      const dels = [],
        adds = [];
      for (let k = 0; k < r[3]; k++) {
        dels.push(mark(row("-", r[1] + k, -1), r[4][k]));
        adds.push(mark(row("+", -1, r[2] + k), r[4][k]));
      }
      box.append(...dels, ...adds);
    } else if (tag === "fold") {
      const fold = h("div", { class: "cx-fold", role: "button", tabindex: "0", title: foldTitle }, r[4]);
      const open = () => fold.replaceWith(...equal(r[1], r[2], r[3]));
      fold.addEventListener("click", open);
      fold.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter") open();
      });
      box.append(fold);
    }
  }
  return [head, box];
}

// what changed inside a replaced line: its middle, between the common prefix and suffix Python measured
function mark(el, [p, s]) {
  const tx = el.lastChild,
    t = tx.textContent;
  const mid = t.slice(p, t.length - s);
  if (mid) tx.replaceChildren(t.slice(0, p), h("mark", { class: "cx-chg" }, mid), t.slice(t.length - s));
  return el;
}
