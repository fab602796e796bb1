// @ts-check
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
/** @typedef {import("./viewmodel.js").RanksInfo} RanksInfo */
/** @typedef {import("./viewmodel.js").Target} Target */

/** @param {RanksInfo} info @param {number | null} from @param {string} cid @param {number} to
 * @returns {string | undefined} */
export function sameCompilation(info, from, cid, to) {
  if (from === to) return cid;
  const match = info.compilations.find((c) => c.ids[String(from)] === cid);
  return match ? match.ids[String(to)] : undefined;
}

// "vs rank B" choices of the diff picker of a pane ({cid, stage, [kernel]}) of rank `rank`: the same compilation on
// each other rank that compiled it, as [target, label] (a target: {cid, stage, [kernel], rank}; `w`: the view
// model's words, Model.w).
/** @param {RanksInfo | null | undefined} info @param {number | null} rank @param {Target} pane
 * @param {(key: string, vars?: Record<string, any>) => string} w @returns {[Target, string][]} */
export function rankTargets(info, rank, pane, w) {
  if (!info) return [];
  const match = info.compilations.find((c) => c.ids[String(rank)] === pane.cid);
  if (!match) return [];
  /** @type {[Target, string][]} */
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
/** @param {RanksInfo | null | undefined} info @param {number | null} rank @param {Target} pane @param {Target} target
 * @returns {import("./viewmodel.js").BlockDiff | undefined} */
export function rankDiffOf(info, rank, pane, target) {
  if (!info || target.rank == null) return undefined;
  return (info.diffs || []).find((d) => sameTarget(d.b, { ...pane, rank }) && sameTarget(d.a, target));
}

/** @typedef {import("./viewmodel.js").Payload} Payload */

// A job's ranks (a component of the view): the ranks' models, made when first needed, the rank picker and the words
// beside it, the "ranks compared" section. Which rank the view shows, and moving its panes there, are the view's.
export class Job {
  /** @param {Model} m0 the payload's own rank: its Model holds the other ranks' embedded payloads
   * @param {{kernel: import("./kernel.js").KernelStatus, rankPayload?: (r: number) => Promise<Payload> | null,
   *   pick: (r: number) => void}} on */
  constructor(m0, on) {
    this.m0 = m0;
    this.on = on;
    this.info = /** @type {import("./viewmodel.js").RanksInfo} */ (m0.p.ranks);
    /** @type {Map<number, Model>} */
    this.models = new Map([[/** @type {number} */ (m0.rank), m0]]);
    /** @type {Map<number, Promise<Model>>} the ranks on their way */
    this.waiting = new Map();
    /** @type {HTMLElement | null} */
    this.status = null;
  }

  // rank r's Model: made already, made now from the page's embedded payload, or asked of the kernel (null until
  // it arrives: waiting holds the promise); null too where neither has it
  /** @param {number} r @returns {Model | null} */
  model(r) {
    const have = this.models.get(r);
    if (have) return have;
    const embedded = (this.m0.p.rank_payloads || {})[String(r)];
    if (embedded) {
      const m = new Model(embedded, this.m0.shared, r);
      this.models.set(r, m);
      return m;
    }
    if (this.waiting.has(r)) return null;
    // the page: the rank's own element, unpacked only now; the widget: asked of the kernel, once it answers
    const kernel = this.on.kernel;
    const source = this.on.rankPayload
      ? this.on.rankPayload(r)
      : kernel.up() &&
        kernel.call("rank", { rank: r }).then((res) => readPayload(res.buffers && res.buffers[0], res.encoding));
    if (source) {
      const asked = source
        .then((p) => {
          const m = new Model(p, this.m0.shared, r);
          this.models.set(r, m);
          return m;
        })
        .finally(() => this.waiting.delete(r));
      this.waiting.set(r, asked);
    }
    return null;
  }

  /** the compile id on rank `to` of compilation `cid` of rank `from` @param {number | null} from @param {string}
   * cid @param {number} to */
  same(from, cid, to) {
    return sameCompilation(this.info, from, cid, to);
  }

  /** @param {string} text */
  note(text) {
    if (this.status) this.status.textContent = text;
  }

  // the section above the rank's view; its rows lead where they point (ctx.go)
  /** @param {Model} m @param {import("./blocks.js").RenderCtx} ctx */
  section(m, ctx) {
    const el = h("div", { class: "cx-ranks-view" }, renderBlocks(ctx, this.info.blocks));
    for (const row of el.querySelectorAll("[data-go-rank]"))
      row.classList.toggle("cx-current", Number(row.getAttribute("data-go-rank")) === m.rank);
    return el;
  }

  /** the rank picker, on rank `m`'s, and its words @param {Model} m */
  picker(m) {
    const pick = h("select", { class: "cx-rank-pick", "aria-label": m.w("rank_aria") });
    for (const r of this.info.ranks) {
      pick.append(
        h("option", { value: String(r.rank), selected: r.rank === m.rank, disabled: r.status === "missing" }, r.label),
      );
    }
    pick.addEventListener("change", () => this.on.pick(Number(pick.value)));
    this.status = h("span", { class: "cx-muted cx-rank-status", "aria-live": "polite" });
    return [h("label", { class: "cx-lbl" }, m.w("rank"), pick), this.status];
  }
}
