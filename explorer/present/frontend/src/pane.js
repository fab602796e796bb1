// One pane: a stage (or one kernel) of one compilation, or a diff of two texts.

import { changedSpan, diffLines, hunks, MAX_DIFF_D } from "./diff.js";
import { h, num } from "./dom.js";
import { CodeBlock, LH, renderBlocks } from "./blocks.js";
import { diffTargets, KERNEL_PREFIX, titleOf } from "./model.js";
import { parseTarget, rankDiffLines, rankTargets } from "./ranks.js";

export class Pane {
  constructor(view, side, state) {
    this.view = view;
    this.side = side;
    this.cid = state.cid;
    this.stage = state.stage;
    this.diff = state.diff || null;
    this.mode = state.mode || "code";
    this.linked = []; // every rendered element that carries origins
    this.blocks = [];
    this.el = h("section", { class: "cx-pane", "data-side": side, "aria-label": `${side} pane` });
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
    return { cid: this.cid, stage: this.stage, diff: this.diff, mode: this.mode };
  }

  set(state) {
    const m = this.view.m;
    Object.assign(this, state);
    if (!m.comp(this.cid)) this.cid = (m.comps[0] || {}).compile_id; // none: a rank that compiled nothing
    if (this.stage.startsWith(KERNEL_PREFIX) && !m.kernelExists(this.cid, this.stage)) this.stage = "kernels";
    if (!this.stage.startsWith(KERNEL_PREFIX) && !m.byId.has(this.stage)) this.stage = m.stages[0].id;
    this.render();
    this.view.changed();
  }

  stageDef() {
    const m = this.view.m;
    return m.byId.get(this.stage.startsWith(KERNEL_PREFIX) ? "kernels" : this.stage);
  }

  render() {
    const view = this.view,
      m = view.m;
    if (this.io) this.io.disconnect();
    this.linked = [];
    this.blocks = [];
    this.head.replaceChildren(...this.controls());
    const st = this.stageDef();
    const kernelTitle = this.stage.startsWith(KERNEL_PREFIX) ? ` — ${this.stage.slice(KERNEL_PREFIX.length)}` : "";
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
      body = [h("div", { class: "cx-bad cx-error" }, `The view could not draw this stage: ${err && err.message}`)];
    }
    this.body.replaceChildren(...body);
    if (this._scrolled) {
      this.body.scrollTop = 0;
      this._scrolled = false;
    } // reading it forces a layout
    view.relight();
  }

  controls() {
    const m = this.view.m;
    const stageSel = h("select", {
      class: "cx-stage-pick",
      "aria-label": `${this.side} pane: stage`,
      title: "Stage (pipeline order), then each kernel",
    });
    for (const s of m.stages) {
      const label = m.has(this.cid, s.id) ? s.title : `${s.title} (not captured)`;
      stageSel.append(h("option", { value: s.id, selected: s.id === this.stage }, label));
    }
    const refs = m.view(this.cid).kernels || [];
    if (refs.length) {
      const g = h("optgroup", { label: m.byId.has("kernels") ? m.byId.get("kernels").title : "kernels" });
      for (const r of refs) {
        g.append(h("option", { value: KERNEL_PREFIX + r, selected: KERNEL_PREFIX + r === this.stage }, `Kernel ${r}`));
      }
      stageSel.append(g);
    }
    stageSel.addEventListener("change", () => this.set({ stage: stageSel.value, diff: null }));
    const cidSel = h("select", {
      class: "cx-cid-pick",
      "aria-label": `${this.side} pane: compilation`,
      title: "Compilation (compile id)",
    });
    for (const c of m.comps) {
      cidSel.append(h("option", { value: c.compile_id, selected: c.compile_id === this.cid }, c.compile_id));
    }
    cidSel.addEventListener("change", () => this.set({ cid: cidSel.value }));
    const diffSel = h("select", {
      class: "cx-diff-pick",
      "aria-label": `${this.side} pane: compare with`,
      title: "Show the difference against another compilation or stage",
    });
    diffSel.append(h("option", { value: "" }, "Diff: off"));
    const other = this.view.panes.find((p) => p !== this);
    const job = this.view.job;
    const targets = diffTargets(m, this.cid, this.stage, other).concat(
      job ? rankTargets(job.info, m.rank, this.cid, this.stage) : [],
    );
    for (const [value, label] of targets) {
      diffSel.append(h("option", { value, selected: value === this.diff }, label));
    }
    diffSel.addEventListener("change", () => this.set({ diff: diffSel.value || null }));
    const out = [stageSel, cidSel, diffSel];
    const st = this.stageDef();
    if (st.kind === "graph" && !this.diff && m.has(this.cid, st.id)) {
      const tabs = h("span", { class: "cx-seg", role: "group", "aria-label": "graph view" });
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
            mode === "code" ? "Code" : "Picture",
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
      picture: (stageId) => view.picture(this, stageId),
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
    const blocks = m.blocks(this.cid, this.stage);
    if (m.pending(this.cid, this.stage)) {
      out.push(
        h(
          "p",
          { class: "cx-muted cx-pending" },
          this.view.kernelWords(this.view.kernelState() === "none" ? "rest_none" : "rest_waiting"),
        ),
      );
      return out;
    }
    if (!blocks) {
      out.push(h("div", { class: "cx-missing" }, h("b", null, `${m.missingLabel(st.id)}: `), m.why(this.cid, st.id)));
      return out;
    }
    return out.concat(renderBlocks(this.ctx(), blocks));
  }

  renderDiff() {
    const view = this.view,
      m = view.m,
      t = parseTarget(this.diff);
    const om = t.rank == null ? m : view.rankModel(t.rank); // the other side: this rank, or another
    if (!om) {
      const asked = view.job && view.job.waiting.get(t.rank);
      if (asked)
        asked.then(
          () => this.diff && this.render(),
          () => this.render(),
        );
      const why = asked ? `Loading rank ${t.rank}'s report…` : `Rank ${t.rank}'s report is not in this view.`;
      return [h("p", { class: "cx-muted cx-pending" }, why)];
    }
    const ocid = t.cid,
      okey = t.key;
    if (om.pending(ocid, okey) || m.pending(this.cid, this.stage)) {
      const state = view.kernelState() === "none" ? "rest_none" : "rest_waiting";
      return [h("p", { class: "cx-muted cx-pending" }, view.kernelWords(state))];
    }
    const [a, b] = rankDiffLines(om, t, m, this.cid, this.stage);
    const who = (mm) => (t.rank == null ? "" : `rank ${mm.rank} `);
    const head = h(
      "div",
      { class: "cx-diff-head" },
      h("span", { class: "cx-del-t" }, `− ${who(om)}${ocid} ${titleOf(m, okey)}`),
      "  →  ",
      h("span", { class: "cx-add-t" }, `+ ${who(m)}${this.cid} ${titleOf(m, this.stage)}`),
    );
    if (t.rank != null)
      head.append(h("span", { class: "cx-muted" }, "   (device indexes and object ids written away)"));
    if (!a.length || !b.length) {
      return [head, h("div", { class: "cx-missing" }, "Nothing to compare: one of the two stages has no text here.")];
    }
    const ops = diffLines(
      a.map((x) => x.text),
      b.map((x) => x.text),
    );
    if (!ops) {
      return [
        head,
        h(
          "div",
          { class: "cx-missing" },
          `The two texts differ in more than ${num(MAX_DIFF_D)} places; a line diff would not help here.`,
        ),
      ];
    }
    const adds = ops.filter((o) => o[0] === "+").length,
      dels = ops.filter((o) => o[0] === "-").length;
    head.append(
      h(
        "span",
        { class: "cx-muted" },
        `   ${adds} added, ${dels} removed, ${ops.length - adds - dels} unchanged lines`,
      ),
    );
    if (!adds && !dels) head.append(h("b", null, "  — identical"));
    const box = h("div", { class: "cx-code cx-diff", tabindex: "0", role: "list" });
    const rowOf = (op) => this.diffRow(op, a, b, ocid, om);
    for (const [start, end, shown] of hunks(ops)) {
      if (!shown) {
        const hidden = ops.slice(start, end);
        const fold = h(
          "div",
          { class: "cx-fold", role: "button", tabindex: "0" },
          `⋯ ${num(hidden.length)} unchanged lines (click to show)`,
        );
        const open = () => fold.replaceWith(...hidden.map(rowOf));
        fold.addEventListener("click", open);
        fold.addEventListener("keydown", (ev) => {
          if (ev.key === "Enter") open();
        });
        box.append(fold);
        continue;
      }
      let n = start;
      while (n < end) {
        // pair removed/added lines of one hunk to mark what changed inside them
        if (ops[n][0] !== "-") {
          box.append(rowOf(ops[n]));
          n++;
          continue;
        }
        let e = n;
        while (e < end && ops[e][0] === "-") e++;
        let f = e;
        while (f < end && ops[f][0] === "+") f++;
        const dl = ops.slice(n, e).map(rowOf),
          al = ops.slice(e, f).map(rowOf);
        if (dl.length === al.length) dl.forEach((el, q) => markChange(el, al[q]));
        box.append(...dl, ...al);
        n = f;
      }
    }
    return [head, box];
  }

  diffRow([t, i, j], a, b, ocid, om) {
    const item = t === "-" ? a[i] : b[j],
      cid = t === "-" ? ocid : this.cid,
      lm = t === "-" ? om : this.view.m; // whose chain the line is in (every rank's indexes the same origins)
    const el = h(
      "div",
      { class: `cx-ln ${t === "+" ? "cx-add" : t === "-" ? "cx-del" : ""}` },
      h("span", { class: "cx-no2" }, i >= 0 ? String(i + 1) : ""),
      h("span", { class: "cx-no2" }, j >= 0 ? String(j + 1) : ""),
      h("span", { class: "cx-sign" }, t === "=" ? " " : t === "+" ? "+" : "−"),
      h("span", { class: "cx-tx" }, item.text || " "),
    );
    if (item.key) this.view.decorate(el, lm.linkOf(cid, item.key, item.line), this);
    return el;
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

function markChange(del, add) {
  const a = del.lastChild.textContent,
    b = add.lastChild.textContent;
  const [p, s] = changedSpan(a, b);
  for (const [el, t] of [
    [del, a],
    [add, b],
  ]) {
    const mid = t.slice(p, t.length - s);
    if (mid) el.lastChild.replaceChildren(t.slice(0, p), h("mark", { class: "cx-chg" }, mid), t.slice(t.length - s));
  }
}
