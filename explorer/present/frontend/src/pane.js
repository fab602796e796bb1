// @ts-check
// One pane (a component of the view): a stage (or one kernel of the kernels stage: `kernel`, its key) of one
// compilation, or a diff of two texts (`diff`: the other pane, {cid, stage, [kernel], [rank]}). It owns what it
// shows and its code blocks; what it needs of the rest of the view comes through its host (PaneHost), and it says
// when it was picked (`active`) or changed (`changed`).

import { renderDiff } from "./diff.js";
import { h } from "./dom.js";
import { CodeBlock, LH, renderBlocks } from "./blocks.js";
import { diffTargets, paneTarget, sameTarget, sideLines } from "./model.js";
import { rankTargets } from "./ranks.js";

/** @typedef {import("./viewmodel.js").Target} Target */
/** @typedef {import("./viewmodel.js").BlockCode} BlockCode */
/** @typedef {import("./lighting.js").LinkedEl} LinkedEl */
/** @typedef {import("./blocks.js").ChunkEl} ChunkEl */

/** What a pane shows: `diff` the pane it is compared with, `mode` "code" or "picture" (a graph's).
 * @typedef {{cid: string, stage: string, kernel: string | null, diff: Target | null, mode: string}} PaneState */

/** What a pane asks of the view.
 * @typedef {{model: () => import("./model.js").Model, chain: import("./lighting.js").Chain,
 *   pictures: import("./pictures.js").Pictures, diffs: import("./diff.js").Diffs, job: import("./ranks.js").Job | null,
 *   kernel: import("./kernel.js").KernelStatus, other: (pane: Pane) => Pane | undefined, explain: () => boolean,
 *   active: (pane: Pane) => void, changed: (pane: Pane) => void}} PaneHost */

export class Pane {
  /** @param {PaneHost} host @param {string} side "left" or "right"
   * @param {{cid: string, stage: string, kernel?: string | null, diff?: Target | null, mode?: string}} state */
  constructor(host, side, state) {
    this.host = host;
    this.side = side;
    this.cid = state.cid;
    this.stage = state.stage;
    /** @type {string | null} */
    this.kernel = state.kernel ?? null;
    /** @type {Target | null} */
    this.diff = state.diff || null;
    this.mode = state.mode || "code";
    /** @type {CodeBlock[]} */
    this.blocks = [];
    this._scrolled = false;
    this.el = h("section", { class: "cx-pane", "data-side": side, "aria-label": host.model().w("pane", { side }) });
    this.head = h("div", { class: "cx-pane-head" });
    this.explain = h("div", { class: "cx-explain" });
    this.body = h("div", { class: "cx-pane-body", tabindex: "-1" });
    this.el.append(this.head, this.explain, this.body);
    /** @type {IntersectionObserver | null} */
    this.io =
      typeof IntersectionObserver === "function"
        ? new IntersectionObserver(
            (entries) => {
              for (const e of entries)
                if (e.isIntersecting) {
                  const chunk = /** @type {ChunkEl} */ (e.target);
                  if (this.io) this.io.unobserve(chunk);
                  chunk._block.fill(chunk);
                }
            },
            { root: this.body, rootMargin: "800px 0px" },
          )
        : null;
    this.body.addEventListener(
      "scroll",
      () => {
        this._scrolled = true;
      },
      { passive: true },
    );
    this.el.addEventListener("focusin", () => host.active(this));
    this.el.addEventListener("pointerdown", () => host.active(this));
  }

  model() {
    return this.host.model();
  }

  /** link `el` to user lines, lit with the chain @param {HTMLElement} el
   * @param {number[] | "glue" | null | undefined} origins */
  decorate(el, origins) {
    this.host.chain.decorate(el, origins, this);
  }

  relight() {
    this.host.chain.relight();
  }

  /** a chunk of a code block, filled when scrolled near @param {ChunkEl} chunk */
  observe(chunk) {
    if (this.io) this.io.observe(chunk);
    else chunk._block.fill(chunk);
  }

  /** @returns {PaneState} */
  state() {
    return { cid: this.cid, stage: this.stage, kernel: this.kernel, diff: this.diff, mode: this.mode };
  }

  // {cid, stage, [kernel]}: what the pane shows, as a diff names it
  target() {
    return paneTarget(this.cid, this.stage, this.kernel);
  }

  // a new stage without a kernel shows the whole stage; a kernel the compilation lacks shows the kernels stage
  /** @param {Partial<PaneState>} state */
  set(state) {
    this.place(state);
    this.render();
    this.host.changed(this);
  }

  // what the pane shows, set without drawing it: a new stage without a kernel shows the whole stage; a compilation,
  // stage or kernel the model lacks gives way to its first compilation, first stage, the whole kernels stage
  /** @param {Partial<PaneState>} state @param {import("./model.js").Model} [m] the model it is about to show */
  place(state, m = this.model()) {
    if ("cid" in state) this.cid = /** @type {string} */ (state.cid);
    if ("stage" in state) this.stage = /** @type {string} */ (state.stage);
    if ("kernel" in state) this.kernel = state.kernel ?? null;
    if ("diff" in state) this.diff = state.diff ?? null;
    if ("mode" in state) this.mode = state.mode || "code";
    if ("stage" in state && !("kernel" in state)) this.kernel = null;
    this.kernel = this.kernel ?? null;
    if (!m.comp(this.cid)) this.cid = (m.comps[0] || {}).compile_id; // none: a rank that compiled nothing
    if (!m.byId.has(this.stage)) this.stage = m.stages[0].id;
    if (this.kernel != null && !m.shows(this.cid, this.stage, this.kernel)) this.kernel = null;
  }

  /** the stage's explanation shown or hidden (the toolbar's switch) @param {boolean} show */
  showExplain(show) {
    this.explain.hidden = !show;
  }

  stageDef() {
    const m = this.model();
    return m.byId.get(this.stage) || m.stages[0];
  }

  render() {
    const host = this.host,
      m = this.model();
    if (this.io) this.io.disconnect();
    host.chain.clear(this);
    this.blocks = [];
    this.head.replaceChildren(...this.controls());
    const st = this.stageDef();
    const kernelTitle = this.kernel != null ? ` — ${this.kernel}` : "";
    this.explain.replaceChildren(
      h("span", { class: `cx-part cx-part-${st.part}` }, m.partName(st.part)),
      h("b", null, st.title + kernelTitle),
      " ",
      h("span", { class: "cx-explain-text" }, st.explanation),
    );
    this.explain.hidden = !host.explain();
    let body;
    try {
      body = this.diff ? this.renderDiff(this.diff) : this.renderStage();
    } catch (err) {
      body = [
        h(
          "div",
          { class: "cx-bad cx-error" },
          m.w("draw_failed", { error: err && /** @type {Error} */ (err).message }),
        ),
      ];
    }
    this.body.replaceChildren(...body);
    if (this._scrolled) {
      this.body.scrollTop = 0;
      this._scrolled = false;
    } // reading it forces a layout
    host.chain.relight();
  }

  controls() {
    const host = this.host,
      m = this.model(),
      side = this.side;
    const stageSel = h("select", {
      class: "cx-stage-pick",
      "aria-label": m.w("stage_aria", { side }),
      title: m.w("stage_title"),
    });
    for (const s of m.stages) {
      const label = m.has(this.cid, s.id) ? s.title : m.w("not_captured_option", { title: s.title });
      stageSel.append(h("option", { value: s.id, selected: s.id === this.stage && this.kernel == null }, label));
    }
    const refs = m.view(this.cid).kernels || [],
      kernels = m.byId.get("kernels");
    if (refs.length && kernels) {
      // one kernel: the kernels stage, that kernel named beside it (data-kernel)
      const g = h("optgroup", { label: kernels.title });
      for (const r of refs) {
        g.append(
          h(
            "option",
            { value: "kernels", "data-kernel": r, selected: this.stage === "kernels" && this.kernel === r },
            m.w("kernel_option", { ref: r }),
          ),
        );
      }
      stageSel.append(g);
    }
    stageSel.addEventListener("change", () => {
      const picked = stageSel.selectedOptions[0];
      this.set({ stage: stageSel.value, kernel: (picked && picked.dataset.kernel) ?? null, diff: null });
    });
    const cidSel = h("select", {
      class: "cx-cid-pick",
      "aria-label": m.w("cid_aria", { side }),
      title: m.w("cid_title"),
    });
    for (const c of m.comps) {
      cidSel.append(h("option", { value: c.compile_id, selected: c.compile_id === this.cid }, c.compile_id));
    }
    cidSel.addEventListener("change", () => this.set({ cid: cidSel.value }));
    const diffSel = h("select", {
      class: "cx-diff-pick",
      "aria-label": m.w("diff_aria", { side }),
      title: m.w("diff_title"),
    });
    diffSel.append(h("option", { value: "" }, m.w("diff_off")));
    const other = host.other(this);
    const job = host.job;
    let targets = diffTargets(m, this.target(), other && other.target()).concat(
      job ? rankTargets(job.info, m.rank, this.target(), (k, v) => m.w(k, v)) : [],
    );
    // without a kernel, only the diffs the page carries (present/diff_view.py): the kernel computes the others
    const all = targets.length;
    if (host.kernel.gone()) targets = targets.filter(([t]) => host.diffs.of(this.target(), t) !== undefined);
    // an option names its target by its place in `targets`, and says which pane it is in data-* (for other tools)
    targets.forEach(([t, label], i) => {
      const data = { "data-cid": t.cid, "data-stage": t.stage, "data-kernel": t.kernel, "data-rank": t.rank ?? null };
      diffSel.append(h("option", { value: String(i), selected: sameTarget(t, this.diff), ...data }, label));
    });
    if (targets.length < all) diffSel.append(h("option", { value: "", disabled: true }, m.w("diff_needs_kernel")));
    diffSel.addEventListener("change", () =>
      this.set({ diff: diffSel.value === "" ? null : targets[Number(diffSel.value)][0] }),
    );
    /** @type {HTMLElement[]} */
    const out = [stageSel, cidSel, diffSel];
    const st = this.stageDef();
    if (st.kind === "graph" && !this.diff && m.has(this.cid, st.id)) {
      const tabs = h("span", { class: "cx-seg", role: "group", "aria-label": m.w("graph_view") });
      for (const mode of ["code", "picture"]) {
        tabs.append(
          h(
            "button",
            {
              type: "button",
              class: mode === this.mode ? "cx-on" : "",
              "aria-pressed": String(mode === this.mode),
              onclick: () => this.set({ mode }),
            },
            m.w(mode),
          ),
        );
      }
      out.push(tabs);
    }
    return out;
  }

  // what every renderBlocks call of this pane shares
  /** @returns {import("./blocks.js").RenderCtx} */
  ctx() {
    const pictures = this.host.pictures;
    return {
      m: this.model(),
      cid: this.cid,
      pane: this,
      decorate: (el, o) => this.decorate(el, o),
      code: (spec) => this.codeEl(spec),
      picture: (stageId, note) => pictures.picture(this, stageId, note),
    };
  }

  /** @param {BlockCode} spec @returns {HTMLElement[]} */
  codeEl(spec) {
    const out = [];
    if (spec.title) {
      out.push(
        h("div", { class: "cx-h4" }, spec.title, spec.sub ? h("span", { class: "cx-muted" }, `  ${spec.sub}`) : null),
      );
    }
    const b = new CodeBlock(this, spec, this.model().text(this.cid, spec.src) || "");
    this.blocks.push(b);
    out.push(b.el);
    return out;
  }

  /** @returns {Node[]} */
  renderStage() {
    const m = this.model(),
      st = this.stageDef();
    const view = m.view(this.cid);
    const found = (view.findings || []).filter((f) => f.stage === st.id);
    // where this compilation came from (a warm capture's caches, its stance): over every stage of it
    const out = renderBlocks(this.ctx(), [...(view.from_where || []), ...found]);
    const blocks = m.blocks(this.cid, this.stage, this.kernel);
    if (m.pending(this.cid, this.stage, this.kernel)) {
      out.push(
        h("p", { class: "cx-muted cx-pending" }, m.w(this.host.kernel.gone() ? "stage_not_sent" : "loading_stage")),
      );
      return out;
    }
    if (!blocks) {
      out.push(h("div", { class: "cx-missing" }, h("b", null, `${m.missingLabel(st.id)}: `), m.why(this.cid, st.id)));
      return out;
    }
    return out.concat(renderBlocks(this.ctx(), blocks));
  }

  // this pane against its diff source: the diff Python made (carried, or asked of the kernel), drawn
  /** @param {Target} t @returns {Node[]} */
  renderDiff(t) {
    const host = this.host,
      m = this.model(),
      job = host.job;
    /** @param {string} key @param {Record<string, any>} [vars] */
    const pending = (key, vars) => [h("p", { class: "cx-muted cx-pending" }, m.w(key, vars))];
    const om = t.rank == null ? m : job && job.model(t.rank); // the other side: this rank, or another
    if (!om) {
      const asked = job && t.rank != null ? job.waiting.get(t.rank) : undefined;
      if (asked)
        asked.then(
          () => this.diff && this.render(),
          () => this.render(),
        );
      return pending(asked ? "loading_rank_report" : "rank_not_here", { rank: t.rank });
    }
    const d = host.diffs.of(this.target(), t);
    if (d === undefined) {
      if (host.kernel.gone()) return pending("diff_not_here");
      if (!host.kernel.up()) return pending("computing_diff"); // asked when the kernel answers: kernelChanged
      host.diffs.ask(this.target(), t).then(() => this.diff && this.render());
      return pending("computing_diff");
    }
    if ("error" in d) return [h("div", { class: "cx-bad cx-error" }, m.w("diff_failed", { error: d.error }))];
    const a = sideLines(om, t.cid, d.lines[0]),
      b = sideLines(m, this.cid, d.lines[1]);
    if (!a || !b) return pending("loading_rest");
    /** @param {HTMLElement} el @param {import("./diff.js").SideLine} item @param {string} side */
    const decorate = (el, item, side) => {
      // whose chain the line is in (every rank's indexes the same origins)
      const [lm, cid] = side === "a" ? [om, t.cid] : [m, this.cid];
      if (item.key) this.decorate(el, lm.linkOf(cid, item.key, item.line));
    };
    return renderDiff(d, a, b, decorate, m.w("show_folded"));
  }

  /** @param {HTMLElement} el @param {boolean} [center] */
  scrollTo(el, center = true) {
    const body = this.body;
    let top = 0;
    /** @type {HTMLElement | null} */
    let x = el;
    while (x && x !== body) {
      top += x.offsetTop;
      x = /** @type {HTMLElement | null} */ (x.offsetParent);
      if (x && !body.contains(x) && x !== body) break;
    }
    if (center) body.scrollTop = Math.max(0, top - body.clientHeight / 2 + LH);
    else if (top < body.scrollTop) body.scrollTop = top - LH;
    else if (top + LH > body.scrollTop + body.clientHeight) body.scrollTop = top - body.clientHeight + 2 * LH;
  }

  // a line of one of this pane's code blocks, shown (a picture gives way to the code) and scrolled to
  /** @param {string} key @param {number} line */
  showLine(key, line) {
    if (this.mode === "picture") this.set({ mode: "code" });
    const b = this.blocks.find((x) => x.key === key);
    const el = b && b.lineEl(line);
    if (!el) return;
    b.moveCursor(line - (b.cursor || 0));
    this.scrollTo(el);
  }

  // scroll to the first line of the chain in this pane (data first: the line may not be rendered yet)
  /** @param {Set<number>} sel */
  revealChain(sel) {
    for (const b of this.blocks) {
      const line = b.firstLine((i) => {
        const o = b.originsAt(i);
        return Array.isArray(o) && o.some((x) => sel.has(x));
      });
      if (line) {
        const el = b.lineEl(line);
        if (el) {
          this.relight();
          this.scrollTo(el);
        }
        return true;
      }
    }
    const el = this.host.chain.linked(this).find((e) => e._o && e._o.some((x) => sel.has(x)));
    if (el) this.scrollTo(el);
    return !!el;
  }
}
