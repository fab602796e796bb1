// @ts-check
// The header (numbers first, then what to fix: the view model's header and timing section), the toolbar
// (compilation, stepping, side-by-side presets) and the actions offered where a kernel is connected: components
// of the view, each drawing from the model it is handed and saying what the user asked through its `on` callbacks.

import { renderBlocks } from "./blocks.js";
import { h } from "./dom.js";

/** @typedef {import("./model.js").Model} Model */
/** @typedef {import("./viewmodel.js").Go} Go */
/** @typedef {import("./kernel.js").KernelStatus} KernelStatus */
/** @typedef {import("./ranks.js").Job} Job */

// The header: numbers first, then what to fix (the view model's header and timing section); a job's ranks section.
export class Header {
  /** @param {{chain: import("./lighting.js").Chain, job: Job | null, go: (go: Go) => void}} on */
  constructor(on) {
    this.on = on;
    /** @type {HTMLElement | null} */
    this.el = null;
  }

  // drawn (again) from `m`: the sections' open or closed state kept
  /** @param {Model} m */
  render(m) {
    const old = this.el;
    const open = old ? [...old.querySelectorAll("details")].map((d) => d.open) : [];
    this.on.chain.clear(this);
    const el = this.build(m);
    el.querySelectorAll("details").forEach((d, i) => {
      if (i < open.length) d.open = open[i];
    });
    if (old) old.replaceWith(el);
    this.el = el;
    return el;
  }

  /** @param {Model} m */
  build(m) {
    const hd = m.p.header || { chips: [], body: [] },
      job = this.on.job;
    // a header row may lead to a compilation's stage (an exported program, a refused recompile): go
    /** @type {import("./blocks.js").RenderCtx} */
    const ctx = {
      m,
      cid: null,
      pane: null,
      decorate: (el, o) => this.on.chain.decorate(el, o, this),
      go: (go) => this.on.go(go),
    };
    const chips = hd.chips.map(([k, v]) =>
      h("span", { class: "cx-chip", "data-chip": k }, `${k} `, h("b", null, String(v))),
    );
    return h(
      "div",
      { class: "cx-header" },
      h(
        "div",
        { class: "cx-title" },
        h("span", { class: "cx-brand" }, m.w("brand")),
        job ? null : h("span", { class: "cx-stat" }, chips),
      ),
      job ? job.section(m, ctx) : null,
      job ? h("div", { class: "cx-stat cx-rank-stat" }, chips) : null,
      renderBlocks(ctx, hd.body),
      m.p.timing ? renderBlocks(ctx, [m.p.timing]) : null,
    );
  }
}

// pairs worth seeing side by side (their names come from the registry)
const PAIRS = [
  ["source", "graph"],
  ["original_bytecode", "rewritten_bytecode"],
  ["graph", "kernels"],
  ["ir_pre_fusion", "ir_post_fusion"],
];

/** What the toolbar's controls ask of the view.
 * @typedef {{comp: (cid: string) => void, step: (delta: number) => void, preset: (left: string, right: string) =>
 *   void, explain: (show: boolean) => void}} ToolbarHost */

// The toolbar: the compilation picker, the stepper and its label, the explanations switch, the side-by-side presets,
// a job's rank picker, and the kernel's actions. It owns whether explanations show.
export class Toolbar {
  /** @param {KernelStatus} kernel @param {Job | null} job @param {ToolbarHost} on */
  constructor(kernel, job, on) {
    this.kernel = kernel;
    this.job = job;
    this.on = on;
    this.showExplain = true;
    this.el = h("div", { class: "cx-toolbar", role: "toolbar" });
    /** @type {HTMLSelectElement | null} */
    this.cidSel = null;
    /** @type {HTMLElement | null} */
    this.stepLabel = null;
    /** @type {HTMLElement | null} */
    this.kernelBox = null;
  }

  /** drawn from `m`, its compilation picker on `cid` @param {Model} m @param {string | undefined} cid */
  render(m, cid) {
    const tb = this.el;
    tb.setAttribute("aria-label", m.w("toolbar"));
    const cidSel = h("select", { class: "cx-comp-pick", "aria-label": m.w("compilation_aria") });
    for (const [i, c] of m.comps.entries())
      cidSel.append(h("option", { value: c.compile_id }, (m.views[i] || {}).label || c.compile_id));
    if (!m.comps.length) cidSel.append(h("option", { value: "" }, m.w("compiled_nothing")));
    cidSel.value = cid || "";
    cidSel.addEventListener("change", () => this.on.comp(cidSel.value));
    this.cidSel = cidSel;
    this.stepLabel = h("span", { class: "cx-step-label", "aria-live": "polite" });
    const prev = h(
      "button",
      { type: "button", class: "cx-btn cx-prev", title: m.w("previous_title"), onclick: () => this.on.step(-1) },
      m.w("previous"),
    );
    const next = h(
      "button",
      { type: "button", class: "cx-btn cx-next", title: m.w("next_title"), onclick: () => this.on.step(1) },
      m.w("next"),
    );
    const presets = h("span", { class: "cx-presets" });
    for (const [l, r] of PAIRS) {
      const left = m.byId.get(l),
        right = m.byId.get(r);
      if (!left || !right) continue;
      presets.append(
        h(
          "button",
          { type: "button", class: "cx-btn cx-preset", onclick: () => this.on.preset(l, r) },
          `${left.title} | ${right.title}`,
        ),
      );
    }
    const explain = h(
      "button",
      {
        type: "button",
        class: "cx-btn",
        "aria-pressed": String(this.showExplain),
        title: m.w("explanations_title"),
      },
      m.w("explanations"),
    );
    explain.addEventListener("click", () => {
      this.showExplain = !this.showExplain;
      explain.setAttribute("aria-pressed", String(this.showExplain));
      this.on.explain(this.showExplain);
    });
    const help = h("span", { class: "cx-muted cx-keys" }, m.w("keys"));
    tb.replaceChildren(
      h(
        "div",
        { class: "cx-row" },
        this.job ? this.job.picker(m) : null,
        h("label", { class: "cx-lbl" }, m.w("compilation"), cidSel),
        h("span", { class: "cx-stepper", role: "group", "aria-label": m.w("stepper") }, prev, this.stepLabel, next),
        explain,
      ),
      h("div", { class: "cx-row" }, h("span", { class: "cx-muted" }, m.w("side_by_side")), presets, help),
    );
    this.kernelBox = null;
    this.renderKernelActions(m);
  }

  /** the stepper's words @param {string} text */
  step(text) {
    if (!this.stepLabel) return;
    this.stepLabel.textContent = text;
    this.stepLabel.title = text; // the label has one width (explorer.css): a long one is cut
  }

  /** the compilation picker on `cid` (both panes show it) @param {string} cid */
  comp(cid) {
    if (this.cidSel) this.cidSel.value = cid;
  }

  // the widget's kernel actions: offered once a kernel has answered, and only those it can do; while the view
  // asks, a line says so; where none answered, one line says what needs a kernel. The page has no kernel: nothing.
  /** @param {Model} m */
  renderKernelActions(m) {
    const kernel = this.kernel;
    if (!kernel.present()) return;
    const state = kernel.state();
    const box =
      state === "up"
        ? kernelActions(m, kernel)
        : h(
            "div",
            { class: "cx-kernel-actions", "data-kernel": state },
            h("span", { class: "cx-muted cx-kernel-note" }, m.w(kernel.gone() ? "kernel_none" : "kernel_asking")),
          );
    if (this.kernelBox && this.kernelBox.parentNode === this.el) this.kernelBox.replaceWith(box);
    else this.el.append(box);
    this.kernelBox = box;
  }
}

/** the actions a kernel that answered can do @param {Model} m @param {KernelStatus} kernel */
function kernelActions(m, kernel) {
  const box = h("div", { class: "cx-kernel-actions", "data-kernel": "up" });
  const input = h("input", {
    type: "text",
    class: "cx-why-input",
    placeholder: "f(torch.randn(16))",
    "aria-label": m.w("why_aria"),
    size: "22",
  });
  const out = h("pre", { class: "cx-action-out", hidden: true });
  /** @param {string} action @param {Record<string, any>} args */
  const run = (action, args) => {
    out.hidden = false;
    out.textContent = "…";
    kernel.call(action, args).then(
      (r) => {
        out.textContent = (r && r.text) || "";
      },
      (e) => {
        out.textContent = String((e && e.message) || e);
      },
    );
  };
  box.append(
    h("span", { class: "cx-muted" }, m.w("with_kernel")),
    kernel.can("why") ? h("label", { class: "cx-lbl" }, m.w("why_label"), input) : "",
    kernel.can("why")
      ? h(
          "button",
          { type: "button", class: "cx-btn", onclick: () => run("why", { expr: input.value }) },
          m.w("check_guards"),
        )
      : "",
    kernel.can("save_html")
      ? h("button", { type: "button", class: "cx-btn", onclick: () => run("save_html", {}) }, m.w("save_html"))
      : "",
    out,
  );
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") run("why", { expr: input.value });
    e.stopPropagation();
  });
  return box;
}
