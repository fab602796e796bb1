// @ts-check
// The view: two panes of one report, the stepping through stages, the theme. It is made of components that each
// own their state and draw their part (controls.js: the header and the toolbar; pane.js: a pane; lighting.js: the
// chain; pictures.js; diff.js: the diffs asked of the kernel; ranks.js: a job's ranks; kernel.js: whether a kernel
// answers) and talk to it through the callbacks it hands them; input.js wires pointer and keys. The view holds only
// which model is shown (a job's rank), the panes, which one is active, and moves them when a component asks.

import { Header, Toolbar } from "./controls.js";
import { Diffs } from "./diff.js";
import { h } from "./dom.js";
import { wire } from "./input.js";
import { KernelStatus } from "./kernel.js";
import { Chain } from "./lighting.js";
import { Model, readPayload, stepFrom, stepList } from "./model.js";
import { Pane } from "./pane.js";
import { Pictures } from "./pictures.js";
import { Job } from "./ranks.js";

/** @typedef {import("./viewmodel.js").Payload} Payload */
/** @typedef {import("./viewmodel.js").Go} Go */
/** @typedef {import("./viewmodel.js").Origin} Origin */
/** @typedef {import("./pane.js").PaneState} PaneState */

/** A view's state, as the widget keeps it (its "selection" trait) and hands back.
 * @typedef {{rank?: number | null, left?: PaneState, right?: PaneState, selection?: Origin[]}} ViewState */
/** A state from outside: `comp` a compilation (its id or index), `left`/`right` a pane's state or its stage.
 * @typedef {{rank?: number | null, comp?: string | number | null, left?: string | Partial<PaneState>,
 *   right?: string | Partial<PaneState>}} AppliedState */

/** What the host gives the view: the widget's kernel, where its state goes and comes from; the page's way to
 * unpack another rank's payload and its pictures.
 * @typedef {{kernel?: import("./kernel.js").HostKernel, onState?: (state: ViewState) => void,
 *   subscribe?: (fn: (state: AppliedState) => void) => void, rankPayload?: (r: number) => Promise<Payload> | null,
 *   pagePictures?: () => Promise<Record<string, string>>}} Host */

export class View {
  /** @param {HTMLElement} el @param {Payload} payload @param {Host} [host] */
  constructor(el, payload, host) {
    this.root = el;
    this.host = host || {};
    this.m = new Model(payload);
    /** @type {Pane[]} */
    this.panes = [];
    /** @type {Pane | null} */
    this.active = null;
    this.kernel = new KernelStatus(this.host.kernel);
    const model = () => this.m;
    /** @type {Job | null} a merged multi-rank report: its ranks */
    this.job = this.m.p.ranks
      ? new Job(this.m, { kernel: this.kernel, rankPayload: this.host.rankPayload, pick: (r) => this.setRank(r) })
      : null;
    this.chain = new Chain(el, {
      model,
      cid: () => (this.active || this.panes[1]).cid,
      showSource: (o) => this.showSource(o),
      showStage: (stage, cid) => this.showStage(stage, cid),
      selected: (from) => this.selected(from),
    });
    this.pictures = new Pictures({
      model,
      kernel: this.kernel,
      chain: this.chain,
      pagePictures: this.host.pagePictures,
      redraw: () => this.panes.forEach((p) => p.mode === "picture" && p.render()),
    });
    this.diffs = new Diffs({ model, job: this.job, kernel: this.kernel });
    this.header = new Header({ chain: this.chain, job: this.job, go: (go) => this.goTo(go) });
    this.toolbar = new Toolbar(this.kernel, this.job, {
      comp: (cid) => this.panes.forEach((p) => p.set({ cid, diff: null })),
      step: (delta) => this.step(delta),
      preset: (l, r) => {
        this.panes[0].set({ stage: l, diff: null });
        this.panes[1].set({ stage: r, diff: null });
      },
      explain: (show) => this.panes.forEach((p) => p.showExplain(show)),
    });
    /** @type {PaneHost} */
    this.paneHost = {
      model,
      chain: this.chain,
      pictures: this.pictures,
      diffs: this.diffs,
      job: this.job,
      kernel: this.kernel,
      other: (pane) => this.panes.find((p) => p !== pane),
      explain: () => this.toolbar.showExplain,
      active: (pane) => this.setActive(pane),
      changed: () => this.changed(),
    };
    this.restAsked = false;
    /** @type {(() => void) | null} */
    this.unwatch = null;
    /** @type {(() => void) | null} */
    this.unwatchTheme = null;
    this.build();
  }

  build() {
    const m = this.m,
      root = this.root;
    root.classList.add("cxv");
    root.setAttribute("tabindex", "0");
    root.setAttribute("data-lm-suppress-shortcuts", "true");
    this.unwatchTheme = watchTheme(root);
    root.replaceChildren(this.header.render(m));
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
    // (none: a rank that compiled nothing; its panes say so)
    const first = /** @type {string} */ (m.comps.length ? m.comps[0].compile_id : undefined);
    const leftStage = m.has(first, "source") ? "source" : "original_bytecode";
    const rightStage = m.has(first, "graph") ? "graph" : "rewritten_bytecode";
    this.panesEl = h("div", { class: "cx-panes" });
    root.append(this.toolbar.el, this.emptyEl, this.chain.bar, this.panesEl);
    this.panes = [
      new Pane(this.paneHost, "left", { cid: first, stage: leftStage }),
      new Pane(this.paneHost, "right", { cid: first, stage: rightStage }),
    ];
    this.active = this.panes[1];
    this.panesEl.append(this.panes[0].el, this.panes[1].el);
    if (this.showEmpty()) this.panes.forEach((p) => p.render());
    this.toolbar.render(m, this.panes[1].cid);
    this.updateStep();
    this.chain.render();
    this.setActive(this.panes[1]);
    wire(root, { chain: this.chain, step: (d) => this.step(d), words: (k) => this.m.w(k) });
    this.watchKernel();
  }

  // the panes where the report has compilations, else what it says instead; true: there are some
  showEmpty() {
    const some = this.m.comps.length > 0;
    if (this.emptyEl) this.emptyEl.hidden = some;
    this.chain.bar.hidden = !some;
    if (this.panesEl) this.panesEl.hidden = !some;
    return some;
  }

  // a big report's rest (the heavy fields, the panes not drawn first, the whole chain), asked of the kernel once
  fetchRest() {
    const m = this.m; // the payload's own rank (another rank's payload comes whole)
    if (this.restAsked) return;
    this.restAsked = true;
    this.kernel
      .call("rest", {})
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
          this.chain.render();
          this.root.setAttribute("data-complete", "1");
        },
        () => {},
      );
  }

  destroy() {
    if (this.unwatchTheme) this.unwatchTheme();
    if (this.unwatch) this.unwatch();
    for (const p of this.panes) if (p.io) p.io.disconnect();
  }

  /** @param {number} delta */
  step(delta) {
    const pane = this.active || this.panes[1];
    const stage = stepFrom(this.m, pane.cid, pane.stage, delta);
    if (stage) pane.set({ stage, diff: null, mode: "code" });
  }

  updateStep() {
    if (!this.panes.length) return;
    const pane = this.active || this.panes[1];
    const list = stepList(this.m, pane.cid);
    const cur = pane.stage;
    const i = list.findIndex((s) => s.id === cur);
    const st = this.m.byId.get(cur);
    this.toolbar.step(
      this.m.w("step", { side: pane.side, i: i + 1 || "–", n: list.length, title: st ? st.title : cur }),
    );
  }

  /** @param {Pane} pane */
  setActive(pane) {
    if (this.active === pane && pane.el.classList.contains("cx-active")) return;
    this.active = pane;
    for (const p of this.panes) p.el.classList.toggle("cx-active", p === pane);
    this.updateStep();
  }

  // a pane changed what it shows
  changed() {
    this.updateStep();
    if (this.panes.length && this.panes[0].cid === this.panes[1].cid) this.toolbar.comp(this.panes[0].cid);
    this.chain.render();
    if (this.host.onState) this.host.onState(this.state());
  }

  // the chain pinned a new selection (from an element of a pane, or elsewhere): the other panes show it
  /** @param {Element | null | undefined} from */
  selected(from) {
    const sel = this.chain.sel;
    if (sel.size) for (const p of this.panes) if (!from || !p.el.contains(from)) p.revealChain(sel);
    if (this.host.onState) this.host.onState(this.state());
  }

  /** @param {string} stageId @param {string | undefined} cid */
  showStage(stageId, cid) {
    // the pane that is not showing the source shows the stage
    const pane = this.panes.find((p) => p.stage !== "source") || this.panes[1];
    pane.set({ stage: stageId, ...(cid !== undefined ? { cid } : {}), diff: null, mode: "code" });
    pane.revealChain(this.chain.sel);
  }

  /** @param {number} o */
  showSource(o) {
    let pane = this.panes.find((p) => p.stage === "source");
    if (!pane) {
      pane = this.panes[0];
      pane.set({ stage: "source", diff: null });
    }
    pane.revealChain(new Set([o]));
  }

  /** @returns {ViewState} */
  state() {
    return {
      ...(this.job ? { rank: this.m.rank } : {}),
      left: this.panes[0].state(),
      right: this.panes[1].state(),
      selection: [...this.chain.sel].map((o) => this.m.places[o]), // the pinned user lines, {file, line}
    };
  }

  /** @param {AppliedState} s */
  applyState(s) {
    if (!s || !this.panes.length) return;
    if (this.job && s.rank != null && s.rank !== this.m.rank) return this.setRank(s.rank, () => this.applyState(s));
    const comp = s.comp;
    if (comp != null)
      for (const p of this.panes)
        p.place({ cid: typeof comp === "number" ? (this.m.comps[comp] || {}).compile_id : comp });
    if (s.left) this.panes[0].set(typeof s.left === "string" ? { stage: s.left, diff: null } : s.left);
    if (s.right) this.panes[1].set(typeof s.right === "string" ? { stage: s.right, diff: null } : s.right);
    if (comp != null && !s.left && !s.right) for (const p of this.panes) p.set({});
  }

  // ---- the kernel ----
  watchKernel() {
    if (!this.kernel.present()) return;
    this.unwatch = this.kernel.watch(() => this.kernelChanged());
    // up already (a kernel without states of its own, or one that answered before the view was made): the panes
    // were just drawn knowing it, and drawing them again would double a big view's first draw
    if (this.kernel.up()) this.kernelChanged(false);
  }

  kernelChanged(redraw = true) {
    if (this.kernel.up() && this.m.deferred) this.fetchRest();
    if (this.panes.length) this.toolbar.renderKernelActions(this.m);
    // the panes say again what they said about the kernel (a picture, a stage or a diff it sends, the diffs offered)
    if (redraw) for (const p of this.panes) p.render();
  }

  // pictures the kernel drew (the widget's "pictures" state): the panes showing them redraw
  /** @param {Record<string, string> | null | undefined} pictures */
  gotPictures(pictures) {
    this.pictures.got(pictures);
  }

  // ---- a job's ranks ----
  // show rank r: its report swapped in, each pane on the same compilation (by frame) and stage; then(), if given
  /** @param {number} r @param {() => void} [then] */
  setRank(r, then) {
    const job = this.job;
    if (!job) return;
    const m = job.model(r);
    if (!m) {
      const asked = job.waiting.get(r);
      if (!asked) return job.note(this.m.w("rank_not_here", { rank: r }));
      job.note(this.m.w("loading_rank", { rank: r }));
      asked.then(
        () => this.setRank(r, then),
        (e) => job.note(this.m.w("rank_failed", { rank: r, error: (e && e.message) || e })),
      );
      return;
    }
    const from = this.m.rank;
    if (r !== from) {
      for (const p of this.panes) {
        // the same compilation there (else its first), without a kernel that rank lacks, against the same diff side
        let diff = p.diff;
        if (diff) {
          const t = diff;
          const dcid = t.rank == null ? job.same(from, t.cid, r) : t.cid;
          diff = t.rank === r || dcid === undefined ? null : t.rank == null ? { ...t, cid: dcid } : t;
        }
        p.place({ cid: job.same(from, p.cid, r), kernel: p.kernel, diff }, m);
      }
      this.m = m;
      this.redraw();
    }
    job.note("");
    if (then) then();
  }

  // everything that shows the rank's own report, drawn again (the header's sections kept open or closed)
  redraw() {
    this.header.render(this.m);
    const some = this.showEmpty();
    this.toolbar.render(this.m, this.panes.length ? this.panes[1].cid : undefined);
    this.updateStep();
    if (some) {
      for (const p of this.panes) p.render();
      this.chain.render();
      this.changed();
    }
  }

  // a row of "ranks compared" (or of the header): its rank, its compilation and the stage of its kind (the right
  // pane; the left shows the same compilation), a diff source, the user lines to light
  /** @param {Go} go */
  goTo(go) {
    const apply = () => {
      if (!this.panes.length) return;
      const [left, right] = this.panes;
      if (go.cid || go.stage) {
        const cid = go.cid || right.cid;
        left.set({ cid, diff: null });
        const stage = go.stage ? { stage: go.stage, kernel: go.kernel ?? null } : {};
        right.set({ cid, ...stage, diff: go.diff || null, mode: "code" });
        this.setActive(right);
      }
      if (go.origins && go.origins.length) this.chain.select(go.origins.map((o) => this.m.origin(o)));
    };
    if (go.rank != null && go.rank !== this.m.rank) this.setRank(go.rank, apply);
    else apply();
  }
}

/** @typedef {import("./pane.js").PaneHost} PaneHost */

// the view follows the host's theme (JupyterLab's, VS Code's, the system's): cx-dark on `root`; returns the way to
// stop watching
/** @param {HTMLElement} root */
function watchTheme(root) {
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
  const apply = () => root.classList.toggle("cx-dark", dark());
  apply();
  /** @type {MutationObserver | null} */
  let mo = null;
  if (typeof MutationObserver === "function" && document.body) {
    mo = new MutationObserver(apply);
    mo.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "class"] });
  }
  const mq = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
  if (mq && mq.addEventListener) mq.addEventListener("change", apply);
  return () => {
    if (mo) mo.disconnect();
    if (mq && mq.removeEventListener) mq.removeEventListener("change", apply);
  };
}
