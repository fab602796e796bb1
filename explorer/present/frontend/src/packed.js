// @ts-check
// Big texts as present/packed_text.py packs them: {"$lines": {t: [template, ...], l: "ROW\nROW..."}}, a ROW per
// line: its template's index, then each number's difference from the same number of that template's previous
// line. An 80-layer model's texts repeat one layer's lines with other numbers; packed, they gzip ~5x smaller.
// Unpacked when a pane first shows the text (the model caches it).

const KEY = "$lines";
const MARK = "\u0000";

/** A packed text. @typedef {{"$lines": {t: string[], l: string}}} Packed */

/** @param {unknown} v @returns {v is Packed} */
export function isPacked(v) {
  return v !== null && typeof v === "object" && KEY in v;
}

// a text of the report, unpacked if it was packed; anything else as it is
/** @template T @param {T | Packed} v @returns {T | string} */
export function unpacked(v) {
  if (!isPacked(v)) return v;
  const { t, l } = v[KEY];
  const parts = t.map((x) => x.split(MARK));
  /** @type {number[][]} */
  const last = new Array(t.length);
  const rows = l.split("\n"),
    out = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const f = rows[r].split(" "),
      tid = Number(f[0]),
      ps = parts[tid];
    if (f.length === 1) {
      out[r] = ps[0];
      continue;
    }
    const prev = last[tid],
      /** @type {number[]} */
      nums = new Array(f.length - 1);
    let s = ps[0];
    for (let j = 1; j < f.length; j++) {
      const n = Number(f[j]) + (prev ? prev[j - 1] : 0);
      nums[j - 1] = n;
      s += n + ps[j];
    }
    last[tid] = nums;
    out[r] = s;
  }
  return out.join("\n");
}
