// One pane: a stage (or one kernel of the kernels stage: `kernel`, its key) of one compilation, or a diff of two
// texts (`diff`: the other pane, {cid, stage, [kernel], [rank]}).

import { renderDiff } from "./diff.js";
import { h } from "./dom.js";
import { CodeBlock, LH, renderBlocks } from "./blocks.js";
import { diffTargets, paneTarget, sameTarget, sideLines } from "./model.js";
import { rankTargets } from "./ranks.js";

export class Pane {
  constructor(view, side, state) {
    this.view = view;
    this.side = side;
    this.cid = state.cid;
    this.stage = state.stage;
    this.kernel = state.kernel ?? null;
    this.diff = state.diff || null;
    this.mode = state.mode || "code";
    this.linked = []; // every rendered element that carries origins
    this.blocks = [];
    this.el = h("section", { class: "cx-pane", "data-side": side, "aria-label": view.m.w("pane", { side }) });
    this.head = h("div", { class: "cx-pane-head" });
    this.explain = h("div", { class: "cx-explain" });
    this.body = h("div", { class: "cx-pane-body", tabindex: "-1" });
    this.el.append(this.head, this.explain, this.body);
    this.io =
      typeof IntersectionObserver === "function"
        ? new IntersectionObserver(
            (entries) => {
              for (const e of entries)
                if (e.isIntersecting) {
                  this.io.unobserve(e.target);
                  e.target._block.fill(e.target);
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
    this.el.addEventListener("focusin", () => view.setActive(this));
    this.el.addEventListener("pointerdown", () => view.setActive(this));
  }

  observe(chunk) {
    if (this.io) this.io.observe(chunk);
    else chunk._block.fill(chunk);
  }

  state() {
    return { cid: this.cid, stage: this.stage, kernel: this.kernel, diff: this.diff, mode: this.mode };
  }

  // {cid, stage, [kernel]}: what the pane shows, as a diff names it
  target() {
    return paneTarget(this.cid, this.stage, this.kernel);
  }

  // a new stage without a kernel shows the whole stage; a kernel the compilation lacks shows the kernels stage
  set(state) {
    const m = this.view.m;
    Object.assign(this, state);
    if ("stage" in state && !("kernel" in state)) this.kernel = null;
    this.kernel = this.kernel ?? null;
    if (!m.comp(this.cid)) this.cid = (m.comps[0] || {}).compile_id; // none: a rank that compiled nothing
    if (!m.byId.has(this.stage)) this.stage = m.stages[0].id;
    if (this.kernel != null && !m.shows(this.cid, this.stage, this.kernel)) this.kernel = null;
    this.render();
    this.view.changed();
  }

  stageDef() {
    return this.view.m.byId.get(this.stage);
  }

  render() {
    const view = this.view,
      m = view.m;
    if (this.io) this.io.disconnect();
    this.linked = [];
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
    this.explain.hidden = !view.showExplain;
    let body;
    try {
      body = this.diff ? this.renderDiff() : this.renderStage();
    } catch (err) {
      body = [h("div", { class: "cx-bad cx-error" }, m.w("draw_failed", { error: err && err.message }))];
    }
    this.body.replaceChildren(...body);
    if (this._scrolled) {
      this.body.scrollTop = 0;
      this._scrolled = false;
    } // reading it forces a layout
    view.relight();
  }

  controls() {
    const m = this.view.m,
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
    const refs = m.view(this.cid).kernels || [];
    if (refs.length && m.byId.has("kernels")) {
      // one kernel: the kernels stage, that kernel named beside it (data-kernel)
      const g = h("optgroup", { label: m.byId.get("kernels").title });
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
    const other = this.view.panes.find((p) => p !== this);
    const job = this.view.job;
    let targets = diffTargets(m, this.target(), other && other.target()).concat(
      job ? rankTargets(job.info, m.rank, this.target(), (k, v) => m.w(k, v)) : [],
    );
    // without a kernel, only the diffs the page carries (present/diff_view.py): the kernel computes the others
    const all = targets.length;
    if (this.view.kernelState() === "none") targets = targets.filter(([t]) => this.view.diffOf(this, t) !== undefined);
    // an option names its target by its place in `targets`, and says which pane it is in data-* (for other tools)
    targets.forEach(([t, label], i) => {
      const data = { "data-cid": t.cid, "data-stage": t.stage, "data-kernel": t.kernel, "data-rank": t.rank ?? null };
      diffSel.append(h("option", { value: String(i), selected: sameTarget(t, this.diff), ...data }, label));
    });
    if (targets.length < all) diffSel.append(h("option", { value: "", disabled: true }, m.w("diff_needs_kernel")));
    diffSel.addEventListener("change", () =>
      this.set({ diff: diffSel.value === "" ? null : targets[Number(diffSel.value)][0] }),
    );
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
  ctx() {
    const view = this.view;
    return {
      m: view.m,
      cid: this.cid,
      pane: this,
      decorate: (el, o) => view.decorate(el, o, this),
      code: (spec) => this.codeEl(spec),
      picture: (stageId, note) => view.picture(this, stageId, note),
    };
  }

  codeEl(spec) {
    const out = [];
    if (spec.title) {
      out.push(
        h("div", { class: "cx-h4" }, spec.title, spec.sub ? h("span", { class: "cx-muted" }, `  ${spec.sub}`) : null),
      );
    }
    const b = new CodeBlock(this, spec, this.view.m.text(this.cid, spec.src) || "");
    this.blocks.push(b);
    out.push(b.el);
    return out;
  }

  renderStage() {
    const m = this.view.m,
      st = this.stageDef();
    const view = m.view(this.cid);
    const found = (view.findings || []).filter((f) => f.stage === st.id);
    // where this compilation came from (a warm capture's caches, its stance): over every stage of it
    const out = renderBlocks(this.ctx(), [...(view.from_where || []), ...found]);
    const blocks = m.blocks(this.cid, this.stage, this.kernel);
    if (m.pending(this.cid, this.stage, this.kernel)) {
      out.push(
        h("p", { class: "cx-muted cx-pending" }, m.w(this.view.kernelGone() ? "stage_not_sent" : "loading_stage")),
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
  renderDiff() {
    const view = this.view,
      m = view.m,
      t = this.diff;
    const pending = (key, vars) => [h("p", { class: "cx-muted cx-pending" }, m.w(key, vars))];
    const om = t.rank == null ? m : view.rankModel(t.rank); // the other side: this rank, or another
    if (!om) {
      const asked = view.job && view.job.waiting.get(t.rank);
      if (asked)
        asked.then(
          () => this.diff && this.render(),
          () => this.render(),
        );
      return pending(asked ? "loading_rank_report" : "rank_not_here", { rank: t.rank });
    }
    const d = view.diffOf(this, t);
    if (d === undefined) {
      if (view.kernelState() === "none") return pending("diff_not_here");
      if (!view.kernelUp()) return pending("computing_diff"); // asked when the kernel answers: kernelChanged
      view.askDiff(this, t).then(() => this.diff && this.render());
      return pending("computing_diff");
    }
    if (d.error) return [h("div", { class: "cx-bad cx-error" }, m.w("diff_failed", { error: d.error }))];
    const a = sideLines(om, t.cid, d.lines[0]),
      b = sideLines(m, this.cid, d.lines[1]);
    if (!a || !b) return pending("loading_rest");
    const decorate = (el, item, side) => {
      // whose chain the line is in (every rank's indexes the same origins)
      const [lm, cid] = side === "a" ? [om, t.cid] : [m, this.cid];
      if (item.key) view.decorate(el, lm.linkOf(cid, item.key, item.line), this);
    };
    return renderDiff(d, a, b, decorate, m.w("show_folded"));
  }

  scrollTo(el, center = true) {
    const body = this.body;
    let top = 0,
      x = el;
    while (x && x !== body) {
      top += x.offsetTop;
      x = x.offsetParent;
      if (x && !body.contains(x) && x !== body) break;
    }
    if (center) body.scrollTop = Math.max(0, top - body.clientHeight / 2 + LH);
    else if (top < body.scrollTop) body.scrollTop = top - LH;
    else if (top + LH > body.scrollTop + body.clientHeight) body.scrollTop = top - body.clientHeight + 2 * LH;
  }

  // a line of one of this pane's code blocks, shown (a picture gives way to the code) and scrolled to
  showLine(key, line) {
    if (this.mode === "picture") this.set({ mode: "code" });
    const b = this.blocks.find((x) => x.key === key);
    const el = b && b.lineEl(line);
    if (!el) return;
    b.moveCursor(line - (b.cursor || 0));
    this.scrollTo(el);
  }

  // scroll to the first line of the chain in this pane (data first: the line may not be rendered yet)
  revealChain(sel) {
    for (const b of this.blocks) {
      const line = b.firstLine((i) => {
        const o = b.originsAt(i);
        return Array.isArray(o) && o.some((x) => sel.has(x));
      });
      if (line) {
        const el = b.lineEl(line);
        if (el) {
          this.view.relight();
          this.scrollTo(el);
        }
        return true;
      }
    }
    const el = this.linked.find((e) => e._o && e._o.some((x) => sel.has(x)));
    if (el) this.scrollTo(el);
    return !!el;
  }
}
