// The view: two panes of one report, the stepping through stages, the theme. What it draws and how it
// reacts are split by concept into mixins: controls.js, lighting.js (the chain), pictures.js, input.js.

import { Controls } from "./controls.js";
import { Input } from "./input.js";
import { Kernel } from "./kernel.js";
import { Lighting } from "./lighting.js";
import { Model, paneTarget, readPayload, stepFrom, stepList } from "./model.js";
import { Pane } from "./pane.js";
import { Pictures } from "./pictures.js";
import { rankDiffOf, Ranks } from "./ranks.js";
import { h } from "./dom.js";

export class View {
  constructor(el, payload, host) {
    this.root = el;
    this.host = host || {};
    this.m = new Model(payload);
    this.sel = new Set();
    this.hover = null;
    this.lit = [];
    this.showExplain = true;
    this.panes = [];
    this.active = null;
    this._headerLinked = [];
    this.job = null; // a merged multi-rank report: its ranks (ranks.js)
    this._diffs = new Map(); // diffs the kernel made on request, and the requests under way
    this._asking = new Map();
    if (this.m.p.ranks) this.initRanks();
    this.build();
  }

  build() {
    const m = this.m,
      root = this.root;
    root.classList.add("cxv");
    root.setAttribute("tabindex", "0");
    root.setAttribute("data-lm-suppress-shortcuts", "true");
    this.themeWatch();
    this.headerEl = this.header();
    root.replaceChildren(this.headerEl);
    this.emptyEl = h(
      "div",
      { class: "cx-missing cx-empty" },
      h("b", null, m.w("no_compilations")),
      m.w("no_compilations_why"),
    );
    if (!m.comps.length && !this.job) {
      root.append(this.emptyEl);
      return;
    }
    // (a rank of a distributed job may have compiled nothing: the rank picker still offers the others)
    const first = m.comps.length ? m.comps[0].compile_id : undefined;
    const leftStage = m.has(first, "source") ? "source" : "original_bytecode";
    const rightStage = m.has(first, "graph") ? "graph" : "rewritten_bytecode";
    this.toolbar = h("div", { class: "cx-toolbar", role: "toolbar", "aria-label": m.w("toolbar") });
    this.chainBar = h("div", { class: "cx-chainbar", "aria-live": "polite" });
    this.panesEl = h("div", { class: "cx-panes" });
    root.append(this.toolbar, this.emptyEl, this.chainBar, this.panesEl);
    this.panes = [
      new Pane(this, "left", { cid: first, stage: leftStage }),
      new Pane(this, "right", { cid: first, stage: rightStage }),
    ];
    this.active = this.panes[1];
    this.panesEl.append(this.panes[0].el, this.panes[1].el);
    if (this.showEmpty()) this.panes.forEach((p) => p.render());
    this.renderToolbar();
    this.renderChain();
    this.setActive(this.panes[1]);
    this.wire();
    this.watchKernel();
  }

  // the panes where the report has compilations, else what it says instead; true: there are some
  showEmpty() {
    const some = this.m.comps.length > 0;
    this.emptyEl.hidden = some;
    this.chainBar.hidden = !some;
    this.panesEl.hidden = !some;
    return some;
  }

  fetchRest() {
    const m = this.m; // the payload's own rank (another rank's payload comes whole)
    if (m._restAsked) return;
    m._restAsked = true;
    Promise.resolve(this.host.kernel.call("rest", {}))
      .then((r) => readPayload(r.buffers && r.buffers[0], r.encoding))
      .then(
        (rest) => {
          const waiting = this.panes.filter((p) => {
            const t = p.diff;
            const mine = this.m === m && m.pending(p.cid, p.stage, p.kernel);
            const theirs = t && (t.rank == null ? this.m === m : t.rank === m.rank);
            return mine || (theirs && m.pending(t.cid, t.stage, t.kernel ?? null));
          });
          m.merge(rest);
          // and the picture panes: the rest names the pictures
          for (const p of this.panes) if (waiting.includes(p) || p.mode === "picture") p.render();
          this.renderChain();
          this.root.setAttribute("data-complete", "1");
        },
        () => {},
      );
  }

  themeWatch() {
    const dark = () => {
      const b = document.body,
        jp = b && b.dataset ? b.dataset.jpThemeLight : undefined;
      if (jp === "false") return true;
      if (jp === "true") return false;
      const cl = b && b.classList;
      if (cl && (cl.contains("vscode-dark") || cl.contains("vscode-high-contrast"))) return true;
      if (cl && cl.contains("vscode-light")) return false;
      return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
    };
    const apply = () => this.root.classList.toggle("cx-dark", dark());
    apply();
    if (typeof MutationObserver === "function" && document.body) {
      this._mo = new MutationObserver(apply);
      this._mo.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "class"] });
    }
    if (typeof matchMedia === "function") {
      this._mq = matchMedia("(prefers-color-scheme: dark)");
      this._mqf = apply;
      if (this._mq.addEventListener) this._mq.addEventListener("change", apply);
    }
  }

  destroy() {
    if (this._mo) this._mo.disconnect();
    if (this._unwatchKernel) this._unwatchKernel();
    if (this._mq && this._mq.removeEventListener) this._mq.removeEventListener("change", this._mqf);
    for (const p of this.panes) if (p.io) p.io.disconnect();
  }

  step(delta) {
    const pane = this.active || this.panes[1];
    const stage = stepFrom(this.m, pane.cid, pane.stage, delta);
    if (stage) pane.set({ stage, diff: null, mode: "code" });
  }

  updateStep() {
    if (!this.stepLabel || !this.panes.length) return;
    const pane = this.active || this.panes[1];
    const list = stepList(this.m, pane.cid);
    const cur = pane.stage;
    const i = list.findIndex((s) => s.id === cur);
    const st = this.m.byId.get(cur);
    this.stepLabel.textContent = this.m.w("step", {
      side: pane.side,
      i: i + 1 || "–",
      n: list.length,
      title: st ? st.title : cur,
    });
    this.stepLabel.title = this.stepLabel.textContent; // the label has one width (explorer.css): a long one is cut
  }

  // the diff of `pane` against diff target `t` ({cid, stage, [kernel], [rank]}) that the view has: carried by the
  // payload (a recompile's, two ranks'), or made by the kernel on request; undefined: not here
  diffOf(pane, t) {
    const m = this.m,
      here = pane.target();
    const d = t.rank == null ? m.diffOf(here, t) : rankDiffOf(this.job && this.job.info, m.rank, here, t);
    return d !== undefined ? d : this._diffs.get(this.diffKey(pane, t));
  }

  diffKey(pane, t) {
    const where = (x) => [x.rank ?? null, x.cid, x.stage, x.kernel ?? null];
    return JSON.stringify([where({ ...pane.target(), rank: this.m.rank }), where(t)]);
  }

  // ask the kernel for a diff the view does not carry (widget.py's "diff" action: present/diff_view.py)
  askDiff(pane, t) {
    const k = this.diffKey(pane, t),
      rank = this.m.rank;
    if (!this._asking.has(k)) {
      const side = (r, target) => (r == null ? target : { ...target, rank: r });
      const args = { a: side(t.rank ?? rank, paneTarget(t.cid, t.stage, t.kernel)), b: side(rank, pane.target()) };
      const asked = Promise.resolve(this.host.kernel.call("diff", args)).then(
        (r) => this._diffs.set(k, r.diff),
        (e) => this._diffs.set(k, { error: String((e && e.message) || e) }),
      );
      this._asking.set(k, asked);
    }
    return this._asking.get(k);
  }

  setActive(pane) {
    if (this.active === pane && pane.el.classList.contains("cx-active")) return;
    this.active = pane;
    for (const p of this.panes) p.el.classList.toggle("cx-active", p === pane);
    this.updateStep();
  }

  changed() {
    this.updateStep();
    if (this.cidSel && this.panes.length && this.panes[0].cid === this.panes[1].cid)
      this.cidSel.value = this.panes[0].cid;
    this.renderChain();
    if (this.host.onState) this.host.onState(this.state());
  }

  state() {
    return {
      ...(this.job ? { rank: this.m.rank } : {}),
      left: this.panes[0].state(),
      right: this.panes[1].state(),
      selection: [...this.sel].map((o) => this.m.places[o]), // the pinned user lines, {file, line}
    };
  }

  applyState(s) {
    if (!s || !this.panes.length) return;
    if (this.job && s.rank != null && s.rank !== this.m.rank) return this.setRank(s.rank, () => this.applyState(s));
    if (s.comp != null)
      for (const p of this.panes) p.cid = typeof s.comp === "number" ? (this.m.comps[s.comp] || {}).compile_id : s.comp;
    if (s.left) this.panes[0].set(typeof s.left === "string" ? { stage: s.left, diff: null } : s.left);
    if (s.right) this.panes[1].set(typeof s.right === "string" ? { stage: s.right, diff: null } : s.right);
    if (s.comp != null && !s.left && !s.right) for (const p of this.panes) p.set({});
  }
}

Object.assign(View.prototype, Controls, Lighting, Pictures, Input, Ranks, Kernel);
