// The chain in the DOM: elements linked to user lines, lit for the pinned and the hovered chain, and the
// chain bar (chain.js has the rules, this file applies them).

import { chainCounts, countLabel, lightOf, linkAttrs, nextSelection, PALETTE } from "./chain.js";
import { h, shortPath } from "./dom.js";

export const Lighting = {
  // ---- the chain ----
  // mark an element as linked to user lines (or as glue) and register it for lighting
  decorate(el, origins, pane) {
    if (origins === "glue") {
      el.classList.add("cx-glue");
      el.setAttribute("data-glue", "");
      el.title = this._glueTitle || (this._glueTitle = this.m.w("glue_title")); // once: every glue line has it
      return;
    }
    if (!origins || !origins.length) return;
    el._o = origins;
    const { cls, attrs } = linkAttrs(this.m, origins);
    el.classList.add(...cls);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    (pane ? pane.linked : this._headerLinked).push(el);
    if (this.sel.size || this.hover) this.lightOne(el);
  },

  lightOne(el) {
    const { lit, hov } = lightOf(el._o, this.sel, this.hover);
    if (lit) el.classList.add("cx-lit");
    if (hov) el.classList.add("cx-hov");
    if (lit || hov) this.lit.push(el);
  },

  relight() {
    for (const el of this.lit) el.classList.remove("cx-lit", "cx-hov");
    this.lit = [];
    this.root.classList.toggle("cx-has-sel", this.sel.size > 0);
    if (!this.sel.size && !this.hover) return;
    for (const p of this.panes) for (const el of p.linked) this.lightOne(el);
    for (const el of this._headerLinked) this.lightOne(el);
  },

  // pin the chain of `origins` (clicking the element that pinned it again clears it)
  select(origins, from) {
    const next = nextSelection(this.sel, origins, from, this.selFrom);
    this.sel = next.sel;
    this.selFrom = next.from;
    this.relight();
    this.renderChain();
    if (this.sel.size) for (const p of this.panes) if (!from || !p.el.contains(from)) p.revealChain(this.sel);
    if (this.host.onState) this.host.onState(this.state());
  },

  renderChain() {
    const bar = this.chainBar,
      m = this.m;
    if (!bar) return;
    if (!this.sel.size) {
      bar.replaceChildren(h("span", { class: "cx-muted" }, m.w(m.linkedOrigins ? "chain_hint" : "no_chain")));
      return;
    }
    const kids = [h("b", null, m.w("chain"))];
    for (const o of this.sel) {
      const text = m.originText(o),
        { file, line } = m.places[o];
      kids.push(
        h(
          "button",
          {
            type: "button",
            class: `cx-origin cx-l cx-t cx-c${o % PALETTE} cx-lit`,
            "data-origin": m.origins[o],
            title: m.w("show_line"),
            onclick: () => this.showSource(o),
          },
          m.placeText(file, line, shortPath),
          text ? h("code", null, ` ${text}`) : null,
        ),
      );
    }
    const cid = (this.active || this.panes[1]).cid;
    const counts = chainCounts(m, cid, this.sel);
    kids.push(h("span", { class: "cx-muted" }, m.w("in_compilation", { cid })));
    if (!counts.size) kids.push(h("span", { class: "cx-muted" }, m.w("nothing_else")));
    for (const s of m.stages) {
      const c = counts.get(s.id);
      if (!c) continue;
      kids.push(
        h(
          "button",
          {
            type: "button",
            class: "cx-btn cx-hop",
            "data-stage": s.id,
            title: m.w("show_stage", { title: s.title }),
            onclick: () => this.showStage(s.id, cid),
          },
          s.title,
          h(
            "span",
            { class: "cx-count" },
            countLabel(s.id, c, (k, v) => m.w(k, v)),
          ),
        ),
      );
    }
    kids.push(
      h(
        "button",
        { type: "button", class: "cx-btn cx-clear", title: m.w("clear"), onclick: () => this.select([]) },
        "✕",
      ),
    );
    bar.replaceChildren(...kids);
  },

  showStage(stageId, cid) {
    // the pane that is not showing the source shows the stage
    const pane = this.panes.find((p) => p.stage !== "source") || this.panes[1];
    pane.set({ stage: stageId, cid, diff: null, mode: "code" });
    pane.revealChain(this.sel);
  },

  showSource(o) {
    let pane = this.panes.find((p) => p.stage === "source");
    if (!pane) {
      pane = this.panes[0];
      pane.set({ stage: "source", diff: null });
    }
    pane.revealChain(new Set([o]));
  },
};
