// A distributed job, rank by rank: the rank picker, "ranks compared" above the rank's own view, and any
// pane diffed against the same compilation on another rank. A merged report's payload carries `ranks`
// (present/ranks.py: the ranks, each matched compilation's compile id per rank, the section's blocks, the
// rank-to-rank diffs its differences lead to, computed in Python: present/diff_view.py) and, on the page, every
// other rank's own payload, each in its own element (`host.rankPayload`), unpacked only when that rank is first
// picked; the widget asks the kernel for a rank's payload when it is first needed. Picking a rank swaps its Model
// in; every pane draws it unchanged.
// A single-rank report has no `ranks`: none of this runs for it.

import { renderBlocks } from "./blocks.js";
import { h } from "./dom.js";
import { Model, readPayload, sameTarget } from "./model.js";

// The compile id on rank `to` of the compilation that is `cid` on rank `from`: matched by frame and by how many
// times that frame was compiled before (compile ids shift on a rank that broke or recompiled); undefined: none.
export function sameCompilation(info, from, cid, to) {
  if (from === to) return cid;
  const match = info.compilations.find((c) => c.ids[String(from)] === cid);
  return match ? match.ids[String(to)] : undefined;
}

// "vs rank B" choices of the diff picker of a pane ({cid, stage, [kernel]}) of rank `rank`: the same compilation on
// each other rank that compiled it, as [target, label] (a target: {cid, stage, [kernel], rank}; `w`: the view
// model's words, Model.w).
export function rankTargets(info, rank, pane, w) {
  if (!info) return [];
  const match = info.compilations.find((c) => c.ids[String(rank)] === pane.cid);
  if (!match) return [];
  const out = [];
  for (const r of info.ranks) {
    const other = match.ids[String(r.rank)];
    if (r.rank !== rank && other !== undefined)
      out.push([{ ...pane, cid: other, rank: r.rank }, w("vs_rank", { rank: r.rank, cid: other })]);
  }
  return out;
}

// The diff of rank `rank`'s pane ({cid, stage, [kernel]}) against another rank's (`target`) that the job carries:
// the diffs its differences lead to (present/ranks.py, computed in present/diff_view.py); undefined: not here.
export function rankDiffOf(info, rank, pane, target) {
  if (!info || target.rank == null) return undefined;
  return (info.diffs || []).find((d) => sameTarget(d.b, { ...pane, rank }) && sameTarget(d.a, target));
}

export const Ranks = {
  initRanks() {
    this.m0 = this.m; // the payload's own rank: its Model holds the other ranks' embedded payloads
    this.job = { info: this.m.p.ranks, models: new Map([[this.m.rank, this.m]]), waiting: new Map() };
  },

  // rank r's Model: made already, made now from the page's embedded payload, or asked of the kernel (null until
  // it arrives: job.waiting holds the promise); null too where neither has it
  rankModel(r) {
    const job = this.job;
    if (!job) return null;
    if (job.models.has(r)) return job.models.get(r);
    const embedded = (this.m0.p.rank_payloads || {})[String(r)];
    if (embedded) {
      const m = new Model(embedded, this.m0.shared, r);
      job.models.set(r, m);
      return m;
    }
    if (job.waiting.has(r)) return null;
    // the page: the rank's own element, unpacked only now; the widget: asked of the kernel, once it answers
    const source = this.host.rankPayload
      ? this.host.rankPayload(r)
      : this.kernelUp() &&
        Promise.resolve(this.host.kernel.call("rank", { rank: r })).then((res) =>
          readPayload(res.buffers && res.buffers[0], res.encoding),
        );
    if (source) {
      const asked = source
        .then((p) => {
          const m = new Model(p, this.m0.shared, r);
          job.models.set(r, m);
          return m;
        })
        .finally(() => job.waiting.delete(r));
      job.waiting.set(r, asked);
    }
    return null;
  },

  // show rank r: its report swapped in, each pane on the same compilation (by frame) and stage; then(), if given
  setRank(r, then) {
    const m = this.rankModel(r);
    if (!m) {
      const asked = this.job.waiting.get(r);
      if (!asked) return this.rankNote(this.m.w("rank_not_here", { rank: r }));
      this.rankNote(this.m.w("loading_rank", { rank: r }));
      asked.then(
        () => this.setRank(r, then),
        (e) => this.rankNote(this.m.w("rank_failed", { rank: r, error: (e && e.message) || e })),
      );
      return;
    }
    const from = this.m.rank;
    if (r !== from) {
      for (const p of this.panes) {
        const cid = sameCompilation(this.job.info, from, p.cid, r);
        p.cid = cid ?? (m.comps[0] || {}).compile_id;
        if (p.kernel != null && !m.shows(p.cid, p.stage, p.kernel)) p.kernel = null; // that rank lacks the kernel
        if (p.diff) {
          const t = p.diff;
          const dcid = t.rank == null ? sameCompilation(this.job.info, from, t.cid, r) : t.cid;
          p.diff = t.rank === r || dcid === undefined ? null : t.rank == null ? { ...t, cid: dcid } : t;
        }
      }
      this.m = m;
      this.redraw();
    }
    this.rankNote("");
    if (then) then();
  },

  // everything that shows the rank's own report, drawn again (the sections' open or closed state kept)
  redraw() {
    const open = [...this.headerEl.querySelectorAll("details")].map((d) => d.open);
    this._headerLinked = [];
    const header = this.header();
    header.querySelectorAll("details").forEach((d, i) => {
      if (i < open.length) d.open = open[i];
    });
    this.headerEl.replaceWith(header);
    this.headerEl = header;
    const some = this.showEmpty();
    this.renderToolbar();
    if (some) {
      for (const p of this.panes) p.render();
      this.renderChain();
      this.changed();
    }
  },

  rankNote(text) {
    if (this.rankStatus) this.rankStatus.textContent = text;
  },

  // the section above the rank's view; its rows lead where they point (goTo)
  ranksSection() {
    const ctx = {
      m: this.m,
      cid: null,
      pane: null,
      decorate: (el, o) => this.decorate(el, o, null),
      go: (go) => this.goTo(go),
    };
    const el = h("div", { class: "cx-ranks-view" }, renderBlocks(ctx, this.job.info.blocks));
    for (const row of el.querySelectorAll("[data-go-rank]"))
      row.classList.toggle("cx-current", Number(row.getAttribute("data-go-rank")) === this.m.rank);
    return el;
  },

  rankPicker() {
    const pick = h("select", { class: "cx-rank-pick", "aria-label": this.m.w("rank_aria") });
    for (const r of this.job.info.ranks) {
      pick.append(
        h(
          "option",
          { value: String(r.rank), selected: r.rank === this.m.rank, disabled: r.status === "missing" },
          r.label,
        ),
      );
    }
    pick.addEventListener("change", () => this.setRank(Number(pick.value)));
    this.rankStatus = h("span", { class: "cx-muted cx-rank-status", "aria-live": "polite" });
    return [h("label", { class: "cx-lbl" }, this.m.w("rank"), pick), this.rankStatus];
  },

  // a row of "ranks compared": its rank, its compilation and the stage of its kind (the right pane; the left
  // shows the same compilation), a diff source, the user lines to light
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
      if (go.origins && go.origins.length) this.select(go.origins.map((o) => this.m.origin(o)));
    };
    if (go.rank != null && go.rank !== this.m.rank) this.setRank(go.rank, apply);
    else apply();
  },
};
