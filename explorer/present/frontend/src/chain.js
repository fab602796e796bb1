// @ts-check
// The line-level chain: which elements light up for a selection, and what the chain bar counts.

export const PALETTE = 12; // colours for origins: cx-c0 .. cx-c11

// how an element linked to `origins` shows: lit (pinned chain), hov (hovered chain)
/** @param {number[]} origins @param {Set<number>} sel @param {Set<number> | null} hover */
export function lightOf(origins, sel, hover) {
  let lit = false,
    hov = false;
  for (const o of origins) {
    if (sel.has(o)) lit = true;
    if (hover && hover.has(o)) hov = true;
  }
  return { lit, hov };
}

// clicking the element that pinned the chain again clears it; anything else pins its origins
/** @param {Set<number>} current @param {number[] | null | undefined} origins @param {Element | null | undefined} from
 * @param {Element | null | undefined} pinnedFrom @returns {{sel: Set<number>, from: Element | null | undefined}} */
export function nextSelection(current, origins, from, pinnedFrom) {
  const again = from && from === pinnedFrom && current.size;
  const sel = new Set(again ? [] : origins || []);
  return { sel, from: sel.size ? from : null };
}

// per stage: the lines (and kernels) of one compilation that came from the selected origins (a block's stage comes
// with the chain, beside its key: Model.stageOf; a block of the kernels stage is one kernel)
/** @typedef {{lines: Set<string>, kernels: Set<string>}} StageCount */

/** @param {import("./model.js").Model} m @param {string | undefined} cid @param {Set<number>} sel
 * @returns {Map<string | null, StageCount>} */
export function chainCounts(m, cid, sel) {
  const chain = m.chain(cid),
    /** @type {Map<string | null, StageCount>} */
    counts = new Map();
  for (const o of sel) {
    for (const [key, line] of chain.get(o) || []) {
      const stage = m.stageOf(cid, key);
      if (!counts.has(stage)) counts.set(stage, { lines: new Set(), kernels: new Set() });
      const c = /** @type {StageCount} */ (counts.get(stage));
      c.lines.add(JSON.stringify([key, line]));
      if (stage === "kernels") c.kernels.add(key);
    }
  }
  return counts;
}

// what the chain bar counts for a stage, in the view model's words (`w`: Model.w)
/** @param {string} stageId @param {StageCount} c
 * @param {(key: string, vars?: Record<string, any>) => string} w */
export function countLabel(stageId, c, w) {
  const lines = w("n_lines", { n: c.lines.size });
  return stageId === "kernels" ? w("in_kernels", { lines, n: c.kernels.size }) : lines;
}

// the classes and attributes an element linked to `origins` carries (the data-origin contract)
/** @param {import("./model.js").Model} m @param {number[]} origins
 * @returns {{cls: string[], attrs: Record<string, string>}} */
export function linkAttrs(m, origins) {
  const o0 = origins[0];
  /** @type {Record<string, string>} */
  const attrs = { "data-origin": m.origins[o0] };
  if (origins.length > 1) attrs["data-origins"] = JSON.stringify(origins.map((o) => m.origins[o]));
  const cls = ["cx-l"];
  if (o0 < m.linkedOrigins) cls.push("cx-t", `cx-c${o0 % PALETTE}`);
  return { cls, attrs };
}
