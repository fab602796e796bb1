// @ts-check
// A diff, drawn: a `diff` block of the view model. Python computes it (present/diff_view.py: which lines were
// removed, added or replaced, what changed inside a replaced line, which unchanged runs fold) and the page, the
// widget and the static copy draw the same rows; nothing is compared here. Its two sides' lines are read back
// by model.js's sideLines.

import { h } from "./dom.js";
import { paneTarget } from "./model.js";
import { rankDiffOf } from "./ranks.js";

/** @typedef {import("./viewmodel.js").BlockDiff} BlockDiff */
/** @typedef {import("./viewmodel.js").DiffResult} DiffResult */
/** @typedef {import("./viewmodel.js").Target} Target */
/** A line of a diff's side: its text, and the block and line it is (model.js sideLines).
 * @typedef {{text: string, key: string | null, line: number}} SideLine */

// The diffs a view has (a component of the view): those its payload carries (a recompile's, two ranks'), and
// those it asked the kernel to make, which it owns: made, and on their way.
export class Diffs {
  /** @param {{model: () => import("./model.js").Model, job: import("./ranks.js").Job | null,
   *   kernel: import("./kernel.js").KernelStatus}} on */
  constructor(on) {
    this.on = on;
    /** @type {Map<string, DiffResult>} made by the kernel on request */
    this.made = new Map();
    /** @type {Map<string, Promise<void>>} the requests under way (or answered) */
    this.asking = new Map();
  }

  // the diff of pane `here` ({cid, stage, [kernel]}) against diff target `t` ({cid, stage, [kernel], [rank]}) that
  // the view has: carried by the payload (a recompile's, two ranks'), or made by the kernel on request;
  // undefined: not here
  /** @param {Target} here @param {Target} t @returns {DiffResult | undefined} */
  of(here, t) {
    const m = this.on.model(),
      job = this.on.job;
    const d = t.rank == null ? m.diffOf(here, t) : rankDiffOf(job && job.info, m.rank, here, t);
    return d !== undefined ? d : this.made.get(this.key(here, t));
  }

  /** @param {Target} here @param {Target} t */
  key(here, t) {
    /** @param {Target} x */
    const where = (x) => [x.rank ?? null, x.cid, x.stage, x.kernel ?? null];
    return JSON.stringify([where({ ...here, rank: this.on.model().rank }), where(t)]);
  }

  // ask the kernel for a diff the view does not carry (widget.py's "diff" action: present/diff_view.py)
  /** @param {Target} here @param {Target} t @returns {Promise<void>} */
  ask(here, t) {
    const k = this.key(here, t),
      rank = this.on.model().rank;
    let asked = this.asking.get(k);
    if (!asked) {
      /** @param {number | null | undefined} r @param {Target} target */
      const side = (r, target) => (r == null ? target : { ...target, rank: r });
      const args = { a: side(t.rank ?? rank, paneTarget(t.cid, t.stage, t.kernel)), b: side(rank, here) };
      asked = this.on.kernel.call("diff", args).then(
        (r) => {
          this.made.set(k, r.diff);
        },
        (e) => {
          this.made.set(k, { error: String((e && e.message) || e) });
        },
      );
      this.asking.set(k, asked);
    }
    return asked;
  }
}

// [heading, rows] of diff block `d` between lines `a` (removed side) and `b` (added side), each {text, key, line}.
// decorate(el, item, side): links a row to the chain ("a" or "b": whose chain the line is in); foldTitle: what a
// folded run says when pointed at.
/** @param {BlockDiff} d @param {SideLine[]} a @param {SideLine[]} b
 * @param {(el: HTMLElement, item: SideLine, side: string) => void} decorate @param {string} foldTitle
 * @returns {HTMLElement[]} */
export function renderDiff(d, a, b, decorate, foldTitle) {
  const head = h(
    "div",
    { class: "cx-diff-head" },
    h("span", { class: "cx-del-t" }, d.del),
    "  →  ",
    h("span", { class: "cx-add-t" }, d.add),
  );
  for (const k of /** @type {const} */ (["note", "counts"]))
    if (d[k]) head.append(h("span", { class: "cx-muted" }, `   ${d[k]}`));
  if (d.same) head.append(h("b", null, `  ${d.same}`));
  if (!d.rows) return [head, h("div", { class: "cx-missing" }, d.missing)];
  /** @param {string} t @param {number} i @param {number} j */
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
  /** @param {number} i @param {number} j @param {number} n */
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
/** @param {HTMLElement} el @param {[number, number]} ends */
function mark(el, [p, s]) {
  const tx = /** @type {HTMLElement} */ (el.lastChild),
    t = tx.textContent || "";
  const mid = t.slice(p, t.length - s);
  if (mid) tx.replaceChildren(t.slice(0, p), h("mark", { class: "cx-chg" }, mid), t.slice(t.length - s));
  return el;
}
