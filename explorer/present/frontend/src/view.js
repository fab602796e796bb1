// compile-explorer's one front end: the same ES module renders a report in the notebook (as an
// anywidget widget: `export default { render }`) and on the standalone page (`mount(el, payload, host)`,
// called by the page's inline script). present/page.py joins the files of frontend/src into that
// one module (this file last); node's tests import them one by one.
//
// Input: the payload built by explorer/present/payload.py: the view model (present/viewmodel.py:
// what each pane, the header and the timing section show, as blocks), the stage registry, the
// report's JSON (the texts code blocks name), the line-level chain (lineage) and graph pictures.
// Nothing here knows a stage or a label by heart: they all come from the payload.
//
// Safety: every string from the report is set as text (textContent, text nodes, attribute values);
// nothing from the report goes through innerHTML. Graph pictures (SVG made by Graphviz, sanitised
// in Python) are parsed as XML and sanitised again.
//
// Contract for tests and other tools: every element linked to a user line carries
// data-origin="FILE:LINE" (its first origin; data-origins holds all of them as JSON when there are
// several); lines that came from no user line (glue) carry data-glue. Lit elements (the current
// chain) have the class cx-lit; the root has data-ready once the first render is done.

import { chainCounts, countLabel, lightOf, linkAttrs, nextSelection, PALETTE } from "./chain.js";
import { h, shortPath, splitOrigin } from "./dom.js";
import { renderBlocks } from "./blocks.js";
import { KERNEL_PREFIX, Model, splitTarget, stepFrom, stepList } from "./model.js";
import { Pane } from "./pane.js";

class View {
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
    this.build();
  }

  build() {
    const m = this.m,
      root = this.root;
    root.classList.add("cxv");
    root.setAttribute("tabindex", "0");
    root.setAttribute("data-lm-suppress-shortcuts", "true");
    this.themeWatch();
    root.replaceChildren(this.header());
    if (!m.comps.length) {
      root.append(
        h(
          "div",
          { class: "cx-missing" },
          h("b", null, "No compilations were captured. "),
          "Nothing ran through torch.compile here (or every frame was skipped).",
        ),
      );
      return;
    }
    const first = m.comps[0].compile_id;
    const leftStage = m.has(first, "source") ? "source" : "original_bytecode";
    const rightStage = m.has(first, "graph") ? "graph" : "rewritten_bytecode";
    this.toolbar = h("div", { class: "cx-toolbar", role: "toolbar", "aria-label": "explorer controls" });
    this.chainBar = h("div", { class: "cx-chainbar", "aria-live": "polite" });
    this.panesEl = h("div", { class: "cx-panes" });
    root.append(this.toolbar, this.chainBar, this.panesEl);
    this.panes = [
      new Pane(this, "left", { cid: first, stage: leftStage }),
      new Pane(this, "right", { cid: first, stage: rightStage }),
    ];
    this.active = this.panes[1];
    this.panesEl.append(this.panes[0].el, this.panes[1].el);
    this.panes.forEach((p) => p.render());
    this.renderToolbar();
    this.renderChain();
    this.setActive(this.panes[1]);
    this.wire();
    if (this.host.kernel && this.m.p.pictures_lazy) this.fetchPictures();
    if (this.host.kernel && this.m.deferred) this.fetchRest();
  }

  fetchRest() {
    Promise.resolve(this.host.kernel.call("rest", {}))
      .then((r) => readPayload(r.buffers && r.buffers[0], r.encoding))
      .then(
        (rest) => {
          const m = this.m;
          const waiting = this.panes.filter(
            (p) => m.pending(p.cid, p.stage) || (p.diff && m.pending(...splitTarget(p.diff))),
          );
          m.merge(rest);
          for (const p of waiting) p.render();
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
    if (this._mq && this._mq.removeEventListener) this._mq.removeEventListener("change", this._mqf);
    for (const p of this.panes) if (p.io) p.io.disconnect();
  }

  // ---- header: numbers first, then what to fix (the view model's header and timing section) ----
  header() {
    const m = this.m,
      hd = m.p.header || { chips: [], body: [] };
    const ctx = { m, cid: null, pane: null, decorate: (el, o) => this.decorate(el, o, null) };
    const chips = hd.chips.map(([k, v]) =>
      h("span", { class: "cx-chip", "data-chip": k }, `${k} `, h("b", null, String(v))),
    );
    return h(
      "div",
      { class: "cx-header" },
      h(
        "div",
        { class: "cx-title" },
        h("span", { class: "cx-brand" }, "compile-explorer"),
        h("span", { class: "cx-stat" }, chips),
      ),
      renderBlocks(ctx, hd.body),
      m.p.timing ? renderBlocks(ctx, [m.p.timing]) : null,
    );
  }

  // ---- toolbar: compilation, stepping, presets, kernel actions ----
  renderToolbar() {
    const m = this.m,
      tb = this.toolbar;
    const cidSel = h("select", { class: "cx-comp-pick", "aria-label": "compilation (both panes)" });
    for (const [i, c] of m.comps.entries())
      cidSel.append(h("option", { value: c.compile_id }, (m.views[i] || {}).label || c.compile_id));
    cidSel.value = this.panes[1].cid;
    cidSel.addEventListener("change", () => {
      for (const p of this.panes) p.set({ cid: cidSel.value, diff: null });
    });
    this.cidSel = cidSel;
    this.stepLabel = h("span", { class: "cx-step-label", "aria-live": "polite" });
    const prev = h(
      "button",
      { type: "button", class: "cx-btn cx-prev", title: "Previous stage (←)", onclick: () => this.step(-1) },
      "◀ Previous",
    );
    const next = h(
      "button",
      { type: "button", class: "cx-btn cx-next", title: "Next stage (→)", onclick: () => this.step(1) },
      "Next ▶",
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
        title: "Show or hide each stage's explanation",
      },
      "Explanations",
    );
    explain.addEventListener("click", () => {
      this.showExplain = !this.showExplain;
      explain.setAttribute("aria-pressed", String(this.showExplain));
      for (const p of this.panes) p.explain.hidden = !this.showExplain;
    });
    const help = h(
      "span",
      { class: "cx-muted cx-keys" },
      "Keys: ← → step through the stages · ↑ ↓ move along a pane's lines · Enter follows a line · Esc clears",
    );
    tb.replaceChildren(
      h(
        "div",
        { class: "cx-row" },
        h("label", { class: "cx-lbl" }, "Compilation ", cidSel),
        h(
          "span",
          { class: "cx-stepper", role: "group", "aria-label": "step through the stages" },
          prev,
          this.stepLabel,
          next,
        ),
        explain,
      ),
      h("div", { class: "cx-row" }, h("span", { class: "cx-muted" }, "Side by side: "), presets, help),
    );
    if (this.host.kernel) tb.append(this.kernelActions());
    this.updateStep();
  }

  kernelActions() {
    // offered only where a kernel is connected (the widget); the page has none
    const box = h("div", { class: "cx-kernel-actions" });
    const input = h("input", {
      type: "text",
      class: "cx-why-input",
      placeholder: "f(torch.randn(16))",
      "aria-label": "a call to check against the guards",
      size: "22",
    });
    const out = h("pre", { class: "cx-action-out", hidden: true });
    const run = (action, args) => {
      out.hidden = false;
      out.textContent = "…";
      Promise.resolve(this.host.kernel.call(action, args)).then(
        (r) => {
          out.textContent = (r && r.text) || "";
        },
        (e) => {
          out.textContent = String((e && e.message) || e);
        },
      );
    };
    box.append(
      h("span", { class: "cx-muted" }, "With the kernel: "),
      h("label", { class: "cx-lbl" }, "why would this call recompile? ", input),
      h(
        "button",
        { type: "button", class: "cx-btn", onclick: () => run("why", { expr: input.value }) },
        "Check guards",
      ),
      h("button", { type: "button", class: "cx-btn", onclick: () => run("save_html", {}) }, "Save as HTML"),
      out,
    );
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") run("why", { expr: input.value });
      e.stopPropagation();
    });
    return box;
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
    const cur = pane.stage.startsWith(KERNEL_PREFIX) ? "kernels" : pane.stage;
    const i = list.findIndex((s) => s.id === cur);
    const st = this.m.byId.get(cur);
    this.stepLabel.textContent = `${pane.side} pane · step ${i + 1 || "–"} of ${list.length}: ${st ? st.title : cur}`;
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
      left: this.panes[0].state(),
      right: this.panes[1].state(),
      selection: [...this.sel].map((o) => this.m.origins[o]),
    };
  }

  applyState(s) {
    if (!s || !this.panes.length) return;
    if (s.comp != null)
      for (const p of this.panes) p.cid = typeof s.comp === "number" ? (this.m.comps[s.comp] || {}).compile_id : s.comp;
    if (s.left) this.panes[0].set(typeof s.left === "string" ? { stage: s.left, diff: null } : s.left);
    if (s.right) this.panes[1].set(typeof s.right === "string" ? { stage: s.right, diff: null } : s.right);
    if (s.comp != null && !s.left && !s.right) for (const p of this.panes) p.set({});
  }

  // ---- the chain ----
  // mark an element as linked to user lines (or as glue) and register it for lighting
  decorate(el, origins, pane) {
    if (origins === "glue") {
      el.classList.add("cx-glue");
      el.setAttribute("data-glue", "");
      el.title = "came from no user line (glue: guards, wrapper bookkeeping, Dynamo's own code)";
      return;
    }
    if (!origins || !origins.length) return;
    el._o = origins;
    const { cls, attrs } = linkAttrs(this.m, origins);
    el.classList.add(...cls);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    (pane ? pane.linked : this._headerLinked).push(el);
    if (this.sel.size || this.hover) this.lightOne(el);
  }

  lightOne(el) {
    const { lit, hov } = lightOf(el._o, this.sel, this.hover);
    if (lit) el.classList.add("cx-lit");
    if (hov) el.classList.add("cx-hov");
    if (lit || hov) this.lit.push(el);
  }

  relight() {
    for (const el of this.lit) el.classList.remove("cx-lit", "cx-hov");
    this.lit = [];
    this.root.classList.toggle("cx-has-sel", this.sel.size > 0);
    if (!this.sel.size && !this.hover) return;
    for (const p of this.panes) for (const el of p.linked) this.lightOne(el);
    for (const el of this._headerLinked) this.lightOne(el);
  }

  // pin the chain of `origins` (clicking the element that pinned it again clears it)
  select(origins, from) {
    const next = nextSelection(this.sel, origins, from, this.selFrom);
    this.sel = next.sel;
    this.selFrom = next.from;
    this.relight();
    this.renderChain();
    if (this.sel.size) for (const p of this.panes) if (!from || !p.el.contains(from)) p.revealChain(this.sel);
    if (this.host.onState) this.host.onState(this.state());
  }

  renderChain() {
    const bar = this.chainBar,
      m = this.m;
    if (!bar) return;
    if (!this.sel.size) {
      bar.replaceChildren(
        h(
          "span",
          { class: "cx-muted" },
          m.linkedOrigins
            ? "The chain: click a line of the source (or of any pane) to light up everything that came from the " +
                "same user line."
            : "The line-level chain is not in this report (no lineage was recorded), so lines are not linked " +
                "across stages.",
        ),
      );
      return;
    }
    const kids = [h("b", null, "Chain: ")];
    for (const o of this.sel) {
      const text = m.originText(o),
        [file, line] = splitOrigin(m.origins[o]);
      kids.push(
        h(
          "button",
          {
            type: "button",
            class: `cx-origin cx-l cx-t cx-c${o % PALETTE} cx-lit`,
            "data-origin": m.origins[o],
            title: "show this line in the source",
            onclick: () => this.showSource(o),
          },
          `${shortPath(file)}:${line}`,
          text ? h("code", null, ` ${text}`) : null,
        ),
      );
    }
    const cid = (this.active || this.panes[1]).cid;
    const counts = chainCounts(m, cid, this.sel);
    kids.push(h("span", { class: "cx-muted" }, `→ in ${cid}:`));
    if (!counts.size) kids.push(h("span", { class: "cx-muted" }, "nothing else (no later stage came from it)"));
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
            title: `show ${s.title} in the other pane`,
            onclick: () => this.showStage(s.id, cid),
          },
          s.title,
          h("span", { class: "cx-count" }, countLabel(s.id, c)),
        ),
      );
    }
    kids.push(
      h(
        "button",
        { type: "button", class: "cx-btn cx-clear", title: "clear (Esc)", onclick: () => this.select([]) },
        "✕",
      ),
    );
    bar.replaceChildren(...kids);
  }

  showStage(stageId, cid) {
    // the pane that is not showing the source shows the stage
    const pane = this.panes.find((p) => p.stage !== "source") || this.panes[1];
    pane.set({ stage: stageId, cid, diff: null, mode: "code" });
    pane.revealChain(this.sel);
  }

  showSource(o) {
    let pane = this.panes.find((p) => p.stage === "source");
    if (!pane) {
      pane = this.panes[0];
      pane.set({ stage: "source", diff: null });
    }
    pane.revealChain(new Set([o]));
  }

  wire() {
    const root = this.root;
    const linkedOf = (t) => (t && t.closest ? t.closest(".cx-l, .cx-glue") : null);
    root.addEventListener("mouseover", (e) => {
      const el = linkedOf(e.target);
      const o = el && el._o ? new Set(el._o) : null;
      const same = o && this.hover && o.size === this.hover.size && [...o].every((x) => this.hover.has(x));
      if (same || (!o && !this.hover)) return;
      this.hover = o;
      this.relight();
    });
    root.addEventListener("mouseleave", () => {
      if (this.hover) {
        this.hover = null;
        this.relight();
      }
    });
    root.addEventListener("click", (e) => {
      if (e.target.closest("button, a, select, input, summary, .cx-fold")) return;
      const el = linkedOf(e.target);
      if (!el) return;
      if (el.classList.contains("cx-glue")) {
        this.select([]);
        this.chainBar.replaceChildren(
          h(
            "span",
            { class: "cx-muted" },
            "This line came from no user line: it is glue (guards, wrapper bookkeeping, Dynamo's own code).",
          ),
        );
        return;
      }
      this.select(el._o, el);
    });
    root.addEventListener("keydown", (e) => this.onKey(e));
  }

  onKey(e) {
    const t = e.target,
      tag = (t.tagName || "").toLowerCase();
    if (["input", "select", "textarea"].includes(tag)) {
      if (e.key !== "Escape") e.stopPropagation();
      return;
    }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const block = t.closest && t.closest(".cx-code") ? t.closest(".cx-code")._block : null;
    let handled = true;
    switch (e.key) {
      case "ArrowRight":
        this.step(1);
        break;
      case "ArrowLeft":
        this.step(-1);
        break;
      case "ArrowDown":
      case "ArrowUp": {
        if (!block) {
          handled = false;
          break;
        }
        const el = block.moveCursor(e.key === "ArrowDown" ? 1 : -1);
        this.hover = el && el._o ? new Set(el._o) : null;
        this.relight();
        break;
      }
      case "Enter": {
        if (!block || !block.cursor) {
          handled = false;
          break;
        }
        const el = block.lineEl(block.cursor);
        if (el && el._o) this.select(el._o, el);
        break;
      }
      case "Escape":
        this.hover = null;
        this.select([]);
        break;
      default:
        handled = false;
    }
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  }

  // ---- pictures ----
  picture(pane, stageId) {
    const m = this.m,
      v = m.view(pane.cid),
      nopic = (text) => [h("p", { class: "cx-muted cx-nopic" }, text)];
    const pid = (v.pictures || {})[stageId];
    if (!pid) return nopic((v.no_picture || {})[stageId] || "No picture for this graph.");
    const svg = m.pictures[pid];
    if (svg === undefined) {
      return nopic(
        this.host.kernel
          ? "Drawing the picture (Graphviz runs in the kernel)…"
          : "The picture was not drawn (no kernel is connected).",
      );
    }
    if (typeof svg !== "string" || !svg.startsWith("<svg")) return nopic(String(svg));
    const el = parseSvg(svg);
    if (!el) return nopic("The picture could not be read.");
    // nodes carry their FX node's chain: <g class="node"><title>NAME</title>
    const byElement = new Map();
    const key = `${stageId}:0`,
      lin = m.lineage[pane.cid];
    const els = lin && lin.elements && lin.elements[key];
    if (els) for (const [line, name] of Object.entries(els)) byElement.set(name, Number(line));
    for (const g of el.querySelectorAll("g.node")) {
      const t = g.querySelector("title");
      const line = t ? byElement.get(t.textContent) : undefined;
      if (line) this.decorate(g, m.linkOf(pane.cid, key, line), pane);
    }
    const zoom = h("span", { class: "cx-seg" });
    let scale = 1;
    const w0 = el.getAttribute("width"),
      h0 = el.getAttribute("height");
    const setScale = (s) => {
      scale = s;
      if (s === 0) {
        el.setAttribute("width", "100%");
        el.removeAttribute("height");
        return;
      }
      for (const [a, v0] of [
        ["width", w0],
        ["height", h0],
      ])
        if (v0) el.setAttribute(a, `${parseFloat(v0) * s}pt`);
    };
    const steps = [
      ["−", () => setScale(scale / 1.25 || 0.8)],
      ["+", () => setScale((scale || 1) * 1.25)],
      ["fit", () => setScale(0)],
    ];
    for (const [label, f] of steps) zoom.append(h("button", { type: "button", onclick: f }, label));
    return [zoom, h("div", { class: "cx-svg" }, el)];
  }

  fetchPictures() {
    const want = [];
    for (const v of this.m.views)
      for (const pid of Object.values(v.pictures || {})) if (!(pid in this.m.pictures)) want.push(pid);
    if (!want.length) return;
    Promise.resolve(this.host.kernel.call("pictures", { ids: [...new Set(want)] })).then(
      (r) => {
        Object.assign(this.m.pictures, (r && r.pictures) || {});
        for (const p of this.panes) if (p.mode === "picture") p.render();
      },
      () => {},
    );
  }
}

const SVG_DROP = new Set(["script", "foreignobject", "image", "iframe", "object", "embed", "style", "use", "a"]);

function parseSvg(text) {
  // XML parsing runs no script; dangerous elements and attributes are dropped again here
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  if (!svg || svg.nodeName.toLowerCase() !== "svg" || doc.getElementsByTagName("parsererror").length) return null;
  const walk = (node) => {
    for (const child of [...node.children]) {
      const name = child.localName.toLowerCase();
      if (SVG_DROP.has(name)) {
        if (name === "a") child.replaceWith(...child.childNodes);
        else child.remove();
        continue;
      }
      for (const attr of [...child.attributes]) {
        const n = attr.name.toLowerCase();
        if (n.startsWith("on") || n === "href" || n === "xlink:href" || /javascript:/i.test(attr.value))
          child.removeAttribute(attr.name);
      }
      walk(child);
    }
  };
  for (const attr of [...svg.attributes]) if (attr.name.toLowerCase().startsWith("on")) svg.removeAttribute(attr.name);
  walk(svg);
  return document.importNode(svg, true);
}

// ---------------------------------------------------------------- entry points

// The standalone page and tests: mount a view of `payload` into `el`.
// host: {kernel: {call(action, args) -> Promise}} where a kernel is connected (else none),
//       onState(state) after each change, and subscribe(fn) to receive state from outside.
export function mount(el, payload, host = {}) {
  const t0 = typeof performance !== "undefined" ? performance.now() : 0;
  let view;
  try {
    view = new View(el, payload, host);
  } catch (err) {
    el.replaceChildren(
      h("div", { class: "cx-bad cx-error" }, `compile-explorer could not draw this report: ${err && err.message}`),
    );
    el.setAttribute("data-ready", "error");
    return { destroy() {} };
  }
  if (host.subscribe) host.subscribe((s) => view.applyState(s));
  const ms = typeof performance !== "undefined" ? performance.now() - t0 : 0;
  el.setAttribute("data-ready", "1");
  if (!view.m.deferred) el.setAttribute("data-complete", "1");
  el.setAttribute("data-render-ms", ms.toFixed(1)); // mount() alone
  // since navigation
  if (typeof performance !== "undefined") el.setAttribute("data-ready-ms", performance.now().toFixed(1));
  el.setAttribute("data-rendered-at", String(Date.now()));
  el._cxView = view;
  return {
    view,
    destroy() {
      view.destroy();
    },
  };
}

// The standalone page: the payload is in the script element #cx-payload, as JSON or, for a big
// report, as gzip + base64 (data-encoding="gzip+base64"), unpacked by the browser itself.
export async function mountPage(root, script) {
  try {
    return mount(root, await readPayload(script.textContent, script.dataset.encoding));
  } catch (err) {
    root.replaceChildren(
      h("div", { class: "cx-bad cx-error" }, `compile-explorer could not read this report: ${err && err.message}`),
    );
    root.setAttribute("data-ready", "error");
    return null;
  }
}

// The payload as text (JSON), base64 text of gzip ("gzip+base64"), or bytes (a widget's
// binary buffer: a DataView) of UTF-8 JSON or of gzip ("gzip").
async function readPayload(data, encoding) {
  let bytes;
  if (typeof data === "string") {
    if (encoding !== "gzip+base64") return JSON.parse(data);
    bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  } else if (data instanceof DataView || ArrayBuffer.isView(data)) {
    bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  } else if (data instanceof ArrayBuffer) {
    bytes = new Uint8Array(data);
  } else throw new Error("no report arrived");
  if (encoding === "gzip" || encoding === "gzip+base64") {
    if (typeof DecompressionStream !== "function")
      throw new Error("this browser cannot unpack it (no DecompressionStream); open the report in a current browser");
    return JSON.parse(
      await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text(),
    );
  }
  return JSON.parse(new TextDecoder().decode(bytes));
}

// The anywidget entry: one widget per view; the payload is one JSON string trait.
export default {
  render({ model, el }) {
    const pending = new Map();
    let seq = 0;
    const onMsg = (msg, buffers) => {
      if (!msg || msg.type !== "result" || !pending.has(msg.id)) return;
      const [ok, fail] = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.ok) ok({ ...msg, buffers: buffers || [] });
      else fail(new Error(msg.text || "the kernel could not do it"));
    };
    model.on("msg:custom", onMsg);
    const subs = [];
    const onSel = () => {
      const s = model.get("selection");
      if (s && s.from !== "view") subs.forEach((f) => f(s));
    };
    model.on("change:selection", onSel);
    let timer = 0;
    const host = {
      kernel: {
        call(action, args) {
          const id = ++seq;
          return new Promise((ok, fail) => {
            pending.set(id, [ok, fail]);
            model.send({ type: "action", id, action, args: args || {} });
          });
        },
      },
      onState(state) {
        clearTimeout(timer);
        timer = setTimeout(() => {
          model.set("selection", { ...state, from: "view" });
          model.save_changes();
        }, 150);
      },
      subscribe(fn) {
        subs.push(fn);
      },
    };
    let handle = null,
      gone = false;
    el.append(h("div", { class: "cx-muted" }, "compile-explorer: drawing the report…"));
    const t0 = Date.now();
    readPayload(model.get("payload"), model.get("payload_encoding")).then(
      (payload) => {
        if (gone) return;
        el.setAttribute("data-arrived-ms", String(t0 - (model.get("made_at") || 0) * 1000)); // the view made -> here
        el.setAttribute("data-decode-ms", String(Date.now() - t0));
        el.replaceChildren();
        handle = mount(el, payload, host);
        const made = model.get("made_at");
        if (made) el.setAttribute("data-latency-ms", String(Date.now() - made * 1000));
        const s0 = model.get("selection");
        if (s0 && s0.from !== "view" && handle.view) handle.view.applyState(s0);
      },
      (err) => {
        el.replaceChildren(
          h("div", { class: "cx-bad cx-error" }, `compile-explorer could not read this report: ${err && err.message}`),
        );
        el.setAttribute("data-ready", "error");
      },
    );
    return () => {
      gone = true;
      model.off("msg:custom", onMsg);
      model.off("change:selection", onSel);
      clearTimeout(timer);
      if (handle) handle.destroy();
    };
  },
};
