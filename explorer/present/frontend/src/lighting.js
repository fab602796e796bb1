// @ts-check
// The chain in the DOM (a component of the view): elements linked to user lines, lit for the pinned and the
// hovered chain, and the chain bar. It owns the selection, the hover and every linked element, grouped by who drew
// them (a pane, the header): each group is dropped when its owner draws again. chain.js has the rules, this file
// applies them. What the chain bar's buttons do, and what a new selection makes the panes do, are the view's
// (the `on` callbacks).

import { chainCounts, countLabel, lightOf, linkAttrs, nextSelection, PALETTE } from "./chain.js";
import { h, shortPath } from "./dom.js";

/** An element linked to user lines: `_o` holds their indexes (Model.origin).
 * @typedef {HTMLElement & {_o?: number[]}} LinkedEl */

/** What the chain asks of the view.
 * @typedef {{model: () => import("./model.js").Model, cid: () => string | undefined,
 *   showSource: (o: number) => void, showStage: (stageId: string, cid: string | undefined) => void,
 *   selected: (from: Element | null | undefined) => void}} ChainHost */

export class Chain {
  /** @param {HTMLElement} root the view's (cx-has-sel while a chain is pinned) @param {ChainHost} on */
  constructor(root, on) {
    this.root = root;
    this.on = on;
    /** @type {Set<number>} the pinned user lines */
    this.sel = new Set();
    /** @type {Element | null | undefined} the element that pinned them */
    this.selFrom = null;
    /** @type {Set<number> | null} the hovered user lines */
    this.hover = null;
    /** @type {LinkedEl[]} the elements lit now */
    this.lit = [];
    /** @type {Map<object, LinkedEl[]>} the linked elements by who drew them */
    this.groups = new Map();
    /** @type {string | null} */
    this.glueTitle = null;
    this.bar = h("div", { class: "cx-chainbar", "aria-live": "polite" });
  }

  // ---- linked elements ----
  /** `owner` draws again: its elements are forgotten @param {object} owner */
  clear(owner) {
    this.groups.set(owner, []);
  }

  /** `owner`'s linked elements @param {object} owner @returns {LinkedEl[]} */
  linked(owner) {
    return this.groups.get(owner) || [];
  }

  /** `owner` is gone for good @param {object} owner */
  drop(owner) {
    this.groups.delete(owner);
  }

  /** mark an element as linked to user lines (or as glue) and register it for lighting under `owner`
   * @param {HTMLElement} el @param {number[] | "glue" | null | undefined} origins @param {object} owner */
  decorate(el, origins, owner) {
    if (origins === "glue") {
      el.classList.add("cx-glue");
      el.setAttribute("data-glue", "");
      el.title = this.glueTitle || (this.glueTitle = this.on.model().w("glue_title")); // once: every glue line has it
      return;
    }
    if (!origins || !origins.length) return;
    const linked = /** @type {LinkedEl} */ (el);
    linked._o = origins;
    const { cls, attrs } = linkAttrs(this.on.model(), origins);
    el.classList.add(...cls);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    let group = this.groups.get(owner);
    if (!group) this.groups.set(owner, (group = []));
    group.push(linked);
    if (this.sel.size || this.hover) this.lightOne(linked);
  }

  /** @param {LinkedEl} el */
  lightOne(el) {
    const { lit, hov } = lightOf(el._o || [], this.sel, this.hover);
    if (lit) el.classList.add("cx-lit");
    if (hov) el.classList.add("cx-hov");
    if (lit || hov) this.lit.push(el);
  }

  relight() {
    for (const el of this.lit) el.classList.remove("cx-lit", "cx-hov");
    this.lit = [];
    this.root.classList.toggle("cx-has-sel", this.sel.size > 0);
    if (!this.sel.size && !this.hover) return;
    for (const group of this.groups.values()) for (const el of group) this.lightOne(el);
  }

  // ---- hover and selection ----
  /** the chain of `origins` hovered (null: none); true if that changed what is lit @param {number[] | null} origins */
  hoverOn(origins) {
    const o = origins && origins.length ? new Set(origins) : null;
    const hv = this.hover;
    const same = o && hv && o.size === hv.size && [...o].every((x) => hv.has(x));
    if (same || (!o && !hv)) return false;
    this.hover = o;
    this.relight();
    return true;
  }

  /** pin the chain of `origins` (clicking the element that pinned it again clears it)
   * @param {number[] | null | undefined} origins @param {Element | null} [from] */
  select(origins, from) {
    const next = nextSelection(this.sel, origins, from, this.selFrom);
    this.sel = next.sel;
    this.selFrom = next.from;
    this.relight();
    this.render();
    this.on.selected(from);
  }

  /** a line of words in the bar instead of the chain (a glue line clicked) @param {string} text */
  say(text) {
    this.bar.replaceChildren(h("span", { class: "cx-muted" }, text));
  }

  // ---- the chain bar ----
  render() {
    const bar = this.bar,
      m = this.on.model();
    if (!this.sel.size) {
      this.say(m.w(m.linkedOrigins ? "chain_hint" : "no_chain"));
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
            onclick: () => this.on.showSource(o),
          },
          m.placeText(file, line, shortPath),
          text ? h("code", null, ` ${text}`) : null,
        ),
      );
    }
    const cid = this.on.cid();
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
            onclick: () => this.on.showStage(s.id, cid),
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
  }
}
