// @ts-check
// The view model's blocks as DOM, one small function per kind of block (present/viewmodel.py
// lists them): the same blocks the static copy draws in Python. Code blocks are `CodeBlock`s:
// drawn CHUNK lines at a time as they scroll near, each line linked to the user lines it came from.

import { h, safeUrl } from "./dom.js";
import { langOf, tokens, wrapperLangs } from "./highlight.js";
import { originKey } from "./model.js";
import { parseSvg } from "./pictures.js";

export const LH = 18; // px per code line: the same value as --cx-lh in explorer.css
const CHUNK = 250; // code lines rendered at once; further chunks render when scrolled near

/** @typedef {import("./viewmodel.js").Block} Block */
/** @typedef {import("./viewmodel.js").BlockCode} BlockCode */
/** @typedef {import("./viewmodel.js").Runs} Runs */
/** @typedef {import("./viewmodel.js").RunObject} RunObject */
/** @typedef {import("./viewmodel.js").Go} Go */
/** @typedef {import("./pane.js").Pane} Pane */

/** What renderBlocks draws with: the model, the compilation (null in the header), the pane (null in the header),
 * how an element is linked to the chain, how a code block and a picture are drawn (a pane's), where a row leads
 * (`go`: the header's).
 * @typedef {{m: import("./model.js").Model, cid: string | null, pane: Pane | null,
 *   decorate: (el: HTMLElement, origins: number[] | "glue" | null | undefined) => void,
 *   code?: (spec: BlockCode) => Node[], picture?: (stageId: string, note: string | undefined) => Node[],
 *   go?: (go: Go) => void}} RenderCtx */

/** A chunk of a code block's lines: filled when scrolled near.
 * @typedef {HTMLDivElement & {_start: number, _count: number, _filled: boolean, _block: CodeBlock}} ChunkEl */
/** A code block's element. @typedef {HTMLDivElement & {_block: CodeBlock}} CodeEl */
/** @typedef {(Node | string)[]} Out */

// inline runs, appended to `out` (one flat array: a kernels pane has thousands); `pane` is null in the header
/** @param {RenderCtx} ctx @param {Runs} r @param {Out} [out] @returns {Out} */
export function renderRuns(ctx, r, out = []) {
  if (r == null || r === "") return out;
  if (typeof r !== "object") out.push(String(r));
  else if (Array.isArray(r)) for (const x of r) renderRuns(ctx, x, out);
  else out.push(...runEl(ctx, r));
  return out;
}

/** @param {RenderCtx} ctx @param {RunObject} r @returns {Out} */
function runEl(ctx, r) {
  if ("b" in r) return [h("b", null, renderRuns(ctx, r.b))];
  if ("muted" in r) return [h("span", { class: "cx-muted" }, renderRuns(ctx, r.muted))];
  if ("a" in r) {
    const link = safeUrl(r.href);
    return [link ? h("a", { href: link, target: "_blank", rel: "noopener" }, r.a) : r.a];
  }
  if ("chip" in r) return [h("span", { class: "cx-chip" }, r.chip)];
  if ("go" in r) {
    const pane = ctx.pane;
    if (!pane) return [h("code", null, r.code)];
    // another compilation's pane (r.go.cid: a recompile and the specialization that caused it) or this one's
    const cid = r.go.cid ? { cid: r.go.cid } : {};
    const go = () => pane.set({ ...cid, stage: r.go.stage, kernel: r.go.kernel ?? null, diff: null });
    return [h("button", { type: "button", class: "cx-link", onclick: go }, r.code)];
  }
  if ("line" in r && ctx.pane) {
    // a line of one of this pane's code blocks (a module outline's row): shown, and scrolled to
    const pane = ctx.pane;
    const go = () => pane.showLine(r.key, r.line);
    return [h("button", { type: "button", class: "cx-link", onclick: go }, r.code)];
  }
  if ("code" in r || "origin" in r) {
    const rc = /** @type {import("./viewmodel.js").RunCode} */ (r);
    if (!rc.origin) return [h("code", null, rc.code)];
    const el = h("code", { class: "cx-uline" }, rc.code ?? originKey(rc.origin));
    ctx.decorate(el, [ctx.m.origin(rc.origin)]);
    return [el];
  }
  if ("bar" in r) {
    const bar = h("span", { class: "cx-bar" });
    bar.style.width = `${Math.max(1, Math.min(100, r.bar || 0))}%`;
    return [bar, " "];
  }
  return "br" in r ? [h("br")] : [];
}

// blocks -> elements. ctx: {m, cid, pane (or null), decorate(el, origins), code(spec) -> element}
/** @param {RenderCtx} ctx @param {Block[] | null | undefined} blocks @returns {Node[]} */
export function renderBlocks(ctx, blocks) {
  /** @type {Node[]} */
  const out = [];
  for (const b of blocks || []) {
    const draw = /** @type {((ctx: RenderCtx, b: Block) => Node | Node[] | null) | undefined} */ (KINDS[b.t]);
    const el = draw ? draw(ctx, b) : null;
    if (el) out.push(...(Array.isArray(el) ? el : [el]));
  }
  return out;
}

/** One function per kind; a kind the views do not draw here (diff: a pane's) has none.
 * @type {{[K in Block["t"]]?: (ctx: RenderCtx, b: Extract<Block, {t: K}>) => Node | Node[] | null}} */
const KINDS = {
  p: (ctx, b) => (b.interactive && !ctx.m.linkedOrigins ? null : h("p", { class: b.cls }, renderRuns(ctx, b.r))),
  h: (ctx, b) => h("div", { class: b.cls ? `cx-h4 ${b.cls}` : "cx-h4" }, renderRuns(ctx, b.r)),
  note: (ctx, b) => h("div", { class: b.cls }, renderRuns(ctx, b.r)),
  list: (ctx, b) =>
    h(
      b.ordered ? "ol" : "ul",
      { class: b.cls ? `cx-list ${b.cls}` : "cx-list" },
      b.items.map((i) => {
        const li = h("li", { class: i.cls || null }, renderRuns(ctx, i.r), renderBlocks(ctx, i.body));
        if (i.origin) ctx.decorate(li, [ctx.m.origin(i.origin)]);
        leads(ctx, li, i.go);
        return li;
      }),
    ),
  table: renderTable,
  code: (ctx, b) => (ctx.code ? ctx.code(b) : null),
  details: renderDetails,
  section: (ctx, b) =>
    h("details", { class: "cx-sec", open: !!b.open }, h("summary", null, b.title), renderBlocks(ctx, b.body)),
  div: (ctx, b) => {
    const data = Object.fromEntries(Object.entries(b.data || {}).map(([k, v]) => [`data-${k}`, v]));
    return h("div", { class: b.cls, ...data }, renderBlocks(ctx, b.body));
  },
  graph: (ctx, b) =>
    ctx.pane && ctx.pane.mode === "picture" && ctx.picture
      ? ctx.picture(b.stage, b.folded)
      : ctx.code
        ? ctx.code(b.code)
        : null,
  chart: (ctx, b) =>
    h(
      "table",
      { class: "cx-table cx-chart" },
      h("caption", null, b.title),
      b.rows.map(([label, value, text]) => {
        const top = Math.max(...b.rows.map((r) => r[1]), 0) || 1;
        return h(
          "tr",
          null,
          h("td", null, label),
          h("td", { class: "cx-barcell" }, renderRuns(ctx, { bar: (100 * value) / top }), text),
        );
      }),
    ),
  // a picture drawn in Python (every text escaped there), read through the SVG sanitiser; its rows lead on
  svg: (ctx, b) => {
    const el = parseSvg(b.svg);
    if (!el) return null;
    for (const node of /** @type {NodeListOf<SVGElement>} */ (el.querySelectorAll("[data-link]")))
      leads(ctx, node, b.links[Number(node.getAttribute("data-link"))]);
    return h("div", { class: "cx-svg cx-timeline" }, el);
  },
  button: (ctx, b) => {
    const pane = ctx.pane;
    return pane
      ? h(
          "p",
          null,
          h("button", { type: "button", class: "cx-btn", onclick: () => pane.set(b.go) }, renderRuns(ctx, b.r)),
        )
      : null;
  },
};

// a lazy group (a folded family's members) draws its body when first opened: a pane of 11,000 guards stays small
/** @param {RenderCtx} ctx @param {import("./viewmodel.js").BlockDetails} b */
function renderDetails(ctx, b) {
  const el = h(
    "details",
    { class: b.cls ? `cx-sub ${b.cls}` : "cx-sub", open: !!b.open },
    h("summary", null, renderRuns(ctx, b.s)),
  );
  if (!b.lazy || b.open) {
    el.append(...renderBlocks(ctx, b.body));
    return el;
  }
  const fill = () => {
    el.removeEventListener("toggle", fill);
    el.append(...renderBlocks(ctx, b.body));
    if (ctx.pane) ctx.pane.relight();
  };
  el.addEventListener("toggle", fill);
  return el;
}

/** @param {RenderCtx} ctx @param {import("./viewmodel.js").BlockTable} b */
function renderTable(ctx, b) {
  const table = h("table", { class: b.cls ? `cx-table ${b.cls}` : "cx-table" });
  if (b.caption) table.append(h("caption", null, b.caption));
  if (b.head && b.head.length)
    table.append(
      h(
        "tr",
        null,
        b.head.map((x) => h("th", null, x)),
      ),
    );
  b.rows.forEach((r, i) => {
    const cells = r.c.map((c, j) => h(j === 0 && r.th ? "th" : "td", null, renderRuns(ctx, c)));
    const line = r.line ?? i + 1; // a folded table's rows name their own line of the block
    const tr = h("tr", { class: r.cls || null, "data-line": b.key ? line : null }, cells);
    let o = b.key && ctx.cid != null ? ctx.m.linkOf(ctx.cid, b.key, line) : null;
    if (!o && r.origin) o = [ctx.m.origin(r.origin)];
    ctx.decorate(tr, o);
    leads(ctx, tr, r.go);
    table.append(tr);
  });
  return table;
}

// a row that leads somewhere when clicked or on Enter (a rank, its compilation and stage: ctx.go); static views
// and hosts without ctx.go draw it as a plain row
/** @param {RenderCtx} ctx @param {HTMLElement | SVGElement} el @param {Go | undefined} go */
function leads(ctx, el, go) {
  const lead = ctx.go;
  if (!go || !lead) return;
  el.classList.add("cx-go");
  el.setAttribute("tabindex", "0");
  el.setAttribute("role", "button");
  if (go.rank != null) el.setAttribute("data-go-rank", String(go.rank));
  el.addEventListener("click", (e) => {
    if (!(/** @type {Element} */ (e.target).closest("a, button, summary"))) lead(go);
  });
  el.addEventListener("keydown", (e) => {
    if (/** @type {KeyboardEvent} */ (e).key !== "Enter") return;
    e.preventDefault();
    e.stopPropagation();
    lead(go);
  });
}

// One text block shown as lines: rendered CHUNK lines at a time, the rest as placeholders
// of the exact height (every line is LH px tall) filled when scrolled near.
export class CodeBlock {
  /** @param {Pane} pane @param {BlockCode} spec @param {string} text @param {{eager?: boolean}} [opts] */
  constructor(pane, spec, text, opts = {}) {
    const m = pane.model();
    this.pane = pane;
    this.spec = spec;
    this.cid = pane.cid;
    this.key = spec.key;
    this.lines = text.split("\n");
    this.lang = langOf(spec.lang);
    this.langs = this.lang === "wrapper" ? wrapperLangs(this.lines) : null;
    this.marks = new Set(spec.marks || []);
    this.cursor = 0;
    /** @type {ChunkEl[]} */
    this.chunks = [];
    this.linked = m.hasLineage(this.cid, spec.key) || !!spec.file; // source lines link to themselves
    this.el = /** @type {CodeEl} */ (
      h("div", {
        class: "cx-code",
        tabindex: "0",
        role: "list",
        "aria-label": spec.title || spec.key,
        "data-block": spec.key,
      })
    );
    this.el._block = this;
    const n = this.lines.length;
    this.el.style.setProperty("--cx-gw", `${spec.linenos ? String((spec.first || 1) + n).length + 1 : 0}ch`);
    for (let start = 0; start < n; start += CHUNK) {
      const count = Math.min(CHUNK, n - start);
      const c = /** @type {ChunkEl} */ (h("div", { class: "cx-chunk" }));
      c.style.height = `${count * LH}px`;
      c._start = start;
      c._count = count;
      c._filled = false;
      c._block = this;
      this.chunks.push(c);
      this.el.append(c);
    }
    // the first block of a pane draws its first lines now; everything else when scrolled near
    if ((opts.eager ?? pane.blocks.length === 0) && this.chunks.length) this.fill(this.chunks[0]);
    for (const c of this.chunks) if (!c._filled) pane.observe(c);
  }

  /** @param {number} line @returns {number[] | "glue" | null} */
  originsAt(line) {
    const m = this.pane.model();
    if (this.spec.file) {
      // the frame's source, or a function inlined into it: each line is its own user line
      const l = m.linkOf(this.cid, this.spec.key, line);
      return l || [m.origin({ file: this.spec.file, line: (this.spec.first || 1) + line - 1 })];
    }
    return m.linkOf(this.cid, this.spec.key, line);
  }

  /** @param {ChunkEl} c */
  fill(c) {
    if (c._filled) return;
    c._filled = true;
    c.style.height = "";
    const pane = this.pane,
      frag = document.createDocumentFragment();
    const first = this.spec.first || 1;
    for (let i = c._start; i < c._start + c._count; i++) {
      const line = i + 1,
        text = this.lines[i];
      const el = h("div", { class: "cx-ln", "data-line": line });
      if (this.spec.linenos) el.append(h("span", { class: "cx-no", "aria-hidden": "true" }, String(first + i)));
      const tx = h("span", { class: "cx-tx" });
      for (const [cls, part] of tokens(text, this.langs ? this.langs[i] : this.lang)) {
        tx.append(cls ? h("span", { class: cls }, part) : part);
      }
      if (!text) tx.append(" ");
      el.append(tx);
      if (this.marks.has(line)) el.classList.add("cx-mark");
      pane.decorate(el, this.linked ? this.originsAt(line) : null);
      if (line === this.cursor) el.classList.add("cx-cursor");
      frag.append(el);
    }
    c.append(frag);
  }

  /** @param {number} line @returns {HTMLElement | null} */
  lineEl(line) {
    const c = this.chunks[Math.floor((line - 1) / CHUNK)];
    if (!c) return null;
    this.fill(c);
    return /** @type {HTMLElement | null} */ (c.children[line - 1 - c._start] || null);
  }

  /** @param {(line: number) => boolean} pred */
  firstLine(pred) {
    for (let i = 1; i <= this.lines.length; i++) if (pred(i)) return i;
    return 0;
  }

  /** @param {number} delta */
  moveCursor(delta) {
    const old = this.cursor && this.lineEl(this.cursor);
    if (old) old.classList.remove("cx-cursor");
    this.cursor = Math.max(1, Math.min(this.lines.length, (this.cursor || 0) + delta));
    const el = this.lineEl(this.cursor);
    if (el) {
      el.classList.add("cx-cursor");
      this.pane.scrollTo(el, false);
    }
    return el;
  }
}
