// The line-level chain: which elements light up for a selection, and what the chain bar counts.

export const PALETTE = 12; // colours for origins: cx-c0 .. cx-c11

// how an element linked to `origins` shows: lit (pinned chain), hov (hovered chain)
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
export function nextSelection(current, origins, from, pinnedFrom) {
  const again = from && from === pinnedFrom && current.size;
  const sel = new Set(again ? [] : origins || []);
  return { sel, from: sel.size ? from : null };
}

// per stage: the lines (and kernels) of one compilation that came from the selected origins (a block's stage comes
// with the chain, beside its key: Model.stageOf; a block of the kernels stage is one kernel)
export function chainCounts(m, cid, sel) {
  const chain = m.chain(cid),
    counts = new Map();
  for (const o of sel) {
    for (const [key, line] of chain.get(o) || []) {
      const stage = m.stageOf(cid, key);
      if (!counts.has(stage)) counts.set(stage, { lines: new Set(), kernels: new Set() });
      const c = counts.get(stage);
      c.lines.add(JSON.stringify([key, line]));
      if (stage === "kernels") c.kernels.add(key);
    }
  }
  return counts;
}

// what the chain bar counts for a stage, in the view model's words (`w`: Model.w)
export function countLabel(stageId, c, w) {
  const lines = w("n_lines", { n: c.lines.size });
  return stageId === "kernels" ? w("in_kernels", { lines, n: c.kernels.size }) : lines;
}

// the classes and attributes an element linked to `origins` carries (the data-origin contract)
export function linkAttrs(m, origins) {
  const o0 = origins[0];
  const attrs = { "data-origin": m.origins[o0] };
  if (origins.length > 1) attrs["data-origins"] = JSON.stringify(origins.map((o) => m.origins[o]));
  const cls = ["cx-l"];
  if (o0 < m.linkedOrigins) cls.push("cx-t", `cx-c${o0 % PALETTE}`);
  return { cls, attrs };
}
