// The header (numbers first, then what to fix: the view model's header and timing section), the toolbar
// (compilation, stepping, side-by-side presets) and the actions offered where a kernel is connected.

import { renderBlocks } from "./blocks.js";
import { h } from "./dom.js";

export const Controls = {
  // ---- header: numbers first, then what to fix (the view model's header and timing section) ----
  header() {
    const m = this.m,
      hd = m.p.header || { chips: [], body: [] };
    // a header row may lead to a compilation's stage (an exported program, a refused recompile): goTo
    const ctx = {
      m,
      cid: null,
      pane: null,
      decorate: (el, o) => this.decorate(el, o, null),
      go: (go) => this.goTo(go),
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
        this.job ? null : h("span", { class: "cx-stat" }, chips),
      ),
      this.job ? this.ranksSection() : null,
      this.job ? h("div", { class: "cx-stat cx-rank-stat" }, chips) : null,
      renderBlocks(ctx, hd.body),
      m.p.timing ? renderBlocks(ctx, [m.p.timing]) : null,
    );
  },

  // ---- toolbar: compilation, stepping, presets, kernel actions ----
  renderToolbar() {
    const m = this.m,
      tb = this.toolbar;
    const cidSel = h("select", { class: "cx-comp-pick", "aria-label": m.w("compilation_aria") });
    for (const [i, c] of m.comps.entries())
      cidSel.append(h("option", { value: c.compile_id }, (m.views[i] || {}).label || c.compile_id));
    if (!m.comps.length) cidSel.append(h("option", { value: "" }, m.w("compiled_nothing")));
    cidSel.value = this.panes[1].cid || "";
    cidSel.addEventListener("change", () => {
      for (const p of this.panes) p.set({ cid: cidSel.value, diff: null });
    });
    this.cidSel = cidSel;
    this.stepLabel = h("span", { class: "cx-step-label", "aria-live": "polite" });
    const prev = h(
      "button",
      { type: "button", class: "cx-btn cx-prev", title: m.w("previous_title"), onclick: () => this.step(-1) },
      m.w("previous"),
    );
    const next = h(
      "button",
      { type: "button", class: "cx-btn cx-next", title: m.w("next_title"), onclick: () => this.step(1) },
      m.w("next"),
    );
    const presets = h("span", { class: "cx-presets" });
    // pairs worth seeing side by side (their names come from the registry)
    const pairs = [
      ["source", "graph"],
      ["original_bytecode", "rewritten_bytecode"],
      ["graph", "kernels"],
      ["ir_pre_fusion", "ir_post_fusion"],
    ];
    for (const [l, r] of pairs) {
      if (!m.byId.has(l) || !m.byId.has(r)) continue;
      const show = () => {
        this.panes[0].set({ stage: l, diff: null });
        this.panes[1].set({ stage: r, diff: null });
      };
      presets.append(
        h(
          "button",
          { type: "button", class: "cx-btn cx-preset", onclick: show },
          `${m.byId.get(l).title} | ${m.byId.get(r).title}`,
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
      for (const p of this.panes) p.explain.hidden = !this.showExplain;
    });
    const help = h("span", { class: "cx-muted cx-keys" }, m.w("keys"));
    tb.replaceChildren(
      h(
        "div",
        { class: "cx-row" },
        this.job ? this.rankPicker() : null,
        h("label", { class: "cx-lbl" }, m.w("compilation"), cidSel),
        h("span", { class: "cx-stepper", role: "group", "aria-label": m.w("stepper") }, prev, this.stepLabel, next),
        explain,
      ),
      h("div", { class: "cx-row" }, h("span", { class: "cx-muted" }, m.w("side_by_side")), presets, help),
    );
    this.kernelBox = null;
    this.renderKernelActions();
    this.updateStep();
  },

  // the widget's kernel actions: offered once a kernel has answered, and only those it can do; while the view
  // asks, a line says so; where none answered, one line says what needs a kernel. The page has no kernel: nothing.
  renderKernelActions() {
    if (!this.host.kernel || !this.toolbar) return;
    const state = this.kernelState();
    const box =
      state === "up"
        ? this.kernelActions()
        : h(
            "div",
            { class: "cx-kernel-actions", "data-kernel": state },
            h(
              "span",
              { class: "cx-muted cx-kernel-note" },
              this.m.w(this.kernelGone() ? "kernel_none" : "kernel_asking"),
            ),
          );
    if (this.kernelBox && this.kernelBox.parentNode === this.toolbar) this.kernelBox.replaceWith(box);
    else this.toolbar.append(box);
    this.kernelBox = box;
  },

  kernelActions() {
    const kernel = this.host.kernel;
    const m = this.m;
    const box = h("div", { class: "cx-kernel-actions", "data-kernel": "up" });
    const input = h("input", {
      type: "text",
      class: "cx-why-input",
      placeholder: "f(torch.randn(16))",
      "aria-label": m.w("why_aria"),
      size: "22",
    });
    const out = h("pre", { class: "cx-action-out", hidden: true });
    const run = (action, args) => {
      out.hidden = false;
      out.textContent = "…";
      Promise.resolve(kernel.call(action, args)).then(
        (r) => {
          out.textContent = (r && r.text) || "";
        },
        (e) => {
          out.textContent = String((e && e.message) || e);
        },
      );
    };
    const can = (action) => !kernel.can || kernel.can(action);
    box.append(
      h("span", { class: "cx-muted" }, m.w("with_kernel")),
      can("why") ? h("label", { class: "cx-lbl" }, m.w("why_label"), input) : null,
      can("why")
        ? h(
            "button",
            { type: "button", class: "cx-btn", onclick: () => run("why", { expr: input.value }) },
            m.w("check_guards"),
          )
        : null,
      can("save_html")
        ? h("button", { type: "button", class: "cx-btn", onclick: () => run("save_html", {}) }, m.w("save_html"))
        : null,
      out,
    );
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") run("why", { expr: input.value });
      e.stopPropagation();
    });
    return box;
  },
};
