// @ts-check
// The payload, prepared: the view model (what each pane shows), the report's texts the
// code blocks name, and the line-level chain. No DOM here: node's tests read it directly.

import { trimNl } from "./dom.js";
import { unpacked } from "./packed.js";

/** @typedef {import("./viewmodel.js").Payload} Payload */
/** @typedef {import("./viewmodel.js").Origin} Origin */
/** @typedef {import("./viewmodel.js").Block} Block */
/** @typedef {import("./viewmodel.js").BlockCode} BlockCode */
/** @typedef {import("./viewmodel.js").BlockDiff} BlockDiff */
/** @typedef {import("./viewmodel.js").CompView} CompView */
/** @typedef {import("./viewmodel.js").Stage} Stage */
/** @typedef {import("./viewmodel.js").Target} Target */
/** @typedef {import("./viewmodel.js").DiffSegment} DiffSegment */
/** @typedef {import("./viewmodel.js").Comp} Comp */
/** What every rank's model shares: the user lines (`places`, their keys `origins`, and back) and the pictures.
 * @typedef {{places: Origin[], origins: string[], originIdx: Map<string, number>,
 *   pictures: Record<string, string>}} Shared */
/** Words to fill: {n} picks a [singular, plural] pair. @typedef {Record<string, any>} Vars */

// A user line ({file, line}, as the payload names it) as the views' data-origin attribute writes it: FILE:LINE,
// built here from the object and never read back.
/** @param {Origin} o */
export function originKey(o) {
  return `${o.file}:${o.line}`;
}

/** @param {any} obj @param {string} path @returns {any} */
export function fieldOf(obj, path) {
  let v = obj;
  for (const name of path.split(".")) {
    if (v == null) return undefined;
    v = v[name];
  }
  return v;
}

// every code block among `blocks`, however deep (details, kernels, graphs, list items)
/** @param {Block[] | null | undefined} blocks @param {BlockCode[]} [out] */
export function codeBlocks(blocks, out = []) {
  for (const b of blocks || []) {
    if (b.t === "code") out.push(b);
    else if (b.t === "graph") out.push(b.code);
    else if ("body" in b && b.body) codeBlocks(b.body, out);
    else if ("items" in b && b.items) for (const i of b.items) codeBlocks(i.body, out);
  }
  return out;
}

// A template of the view model's words (present/words.py) with its blanks filled: "Loading rank {rank}…";
// a [singular, plural] pair picks by vars.n.
/** @param {string | string[] | undefined} t @param {Vars} [vars] */
export function fill(t, vars) {
  const text = String((Array.isArray(t) ? t[vars && vars.n === 1 ? 0 : 1] : t) ?? "");
  if (!vars) return text; // most words have no blanks: no pattern to run (a pane's lines ask for one each)
  return text.replace(/\{(\w+)\}/g, (all, k) => (k in vars ? String(vars[k]) : all));
}

// One report's payload, read. A merged multi-rank report makes one per rank, all sharing `shared`: the user
// lines the chain's indexes refer to (every rank's payload indexes the same list, so a pinned line stays lit
// when the rank changes: `places` as {file, line}, `origins` their data-origin keys) and the graph pictures;
// `rank` is whose report it is (null: a single-rank report).
export class Model {
  /** @param {Payload} payload @param {Shared | null} [shared] @param {number | null} [rank] */
  constructor(payload, shared = null, rank = null) {
    this.p = payload;
    this.stages = payload.stages;
    this.byId = new Map(this.stages.map((s) => [s.id, s]));
    this.labels = payload.labels || { parts: {}, missing: {} };
    this.report = payload.report || {};
    this.capture = this.report.capture || { compilations: [] };
    this.comps = this.capture.compilations || [];
    this.views = payload.views || [];
    /** @type {Map<string | undefined, number>} */
    this.cidIndex = new Map(this.comps.map((c, i) => [c.compile_id, i]));
    const lin = payload.lineage || {};
    if (shared) Object.assign(shared.pictures, payload.pictures || {});
    else {
      const places = (lin.origins || []).slice(),
        origins = places.map(originKey);
      shared = { places, origins, originIdx: new Map(origins.map((o, i) => [o, i])), pictures: payload.pictures || {} };
    }
    this.shared = shared;
    this.rank = rank ?? (payload.ranks ? payload.ranks.rank : null);
    this.places = shared.places;
    this.origins = shared.origins;
    this.originIdx = shared.originIdx;
    this.linkedOrigins = (lin.origins || []).length; // origins [0, linkedOrigins) appear in the chain
    this.lineage = lin.compilations || {};
    this.pictures = shared.pictures;
    this.deferred = !!payload.deferred; // only the first view's data is here; the rest comes from the kernel
    /** @type {Map<string, string>} */
    this._text = new Map();
    /** @type {Map<string | undefined, Map<number, [string, number][]>>} */
    this._chain = new Map();
  }

  // what build_rest() sent: the heavy fields, kernel sources, the panes not drawn first, the whole chain
  /** @param {{compilations?: Record<string, Record<string, any>>, lineage?: import("./viewmodel.js").Lineage}} rest */
  merge(rest) {
    for (const [cid, fields] of Object.entries(rest.compilations || {})) {
      const comp = this.comp(cid);
      if (!comp) continue;
      const { kernel_sources: sources, panes, view_pictures: pics, ...others } = fields;
      Object.assign(comp, others);
      const view = /** @type {Record<string, any>} */ (this.view(cid));
      if (panes) Object.assign(view.panes, panes);
      // the stages' pictures, named only now (folding a big report's graphs waits for the rest)
      for (const key of ["pictures", "boxes", "no_picture"])
        if (pics && pics[key]) view[key] = Object.assign(view[key] || {}, pics[key]);
      const kernels = comp.kernels || [];
      (sources || []).forEach((/** @type {any} */ src, /** @type {number} */ i) => {
        if (kernels[i]) kernels[i].source = src;
      });
    }
    if (rest.lineage) this.lineage = rest.lineage.compilations || {};
    this.deferred = false;
    this._text.clear();
    this._chain.clear();
  }

  /** @param {string | undefined} cid @returns {Comp | undefined} */
  comp(cid) {
    const i = this.cidIndex.get(cid);
    return i === undefined ? undefined : this.comps[i];
  }
  /** @param {string | undefined} cid @returns {CompView} */
  view(cid) {
    const i = this.cidIndex.get(cid);
    return (i !== undefined && this.views[i]) || { panes: {}, why: {}, why_report: {} };
  }

  // does this compilation have something to show for this stage (a report-wide one included); a deferred
  // payload's pane may not be here yet (pending)
  /** @param {string | undefined} cid @param {string} stageId */
  has(cid, stageId) {
    const v = this.view(cid);
    return (v.present || []).includes(stageId) || !!(v.panes || {})[stageId];
  }

  // the view model's words for the views' own controls and states (labels.ui), filled in
  /** @param {string} key @param {Vars} [vars] @returns {string} */
  w(key, vars) {
    return fill((this.labels.ui || {})[key] ?? key, vars);
  }

  /** @param {string} cid @param {string} stageId */
  why(cid, stageId) {
    const v = this.view(cid);
    return (v.why || {})[stageId] || (v.why_report || {})[stageId] || this.w("not_recorded");
  }

  /** @param {string} stageId */
  missingLabel(stageId) {
    return (this.labels.missing || {})[stageId] || this.w("not_captured");
  }

  /** @param {string} part */
  partName(part) {
    return (this.labels.parts || {})[part] || part;
  }

  // the blocks a pane shows: a stage's, or (`kernel`: its key) one kernel's part of the kernels stage; null: none
  /** @param {string} cid @param {string} stage @param {string | null} [kernel] @returns {Block[] | null} */
  blocks(cid, stage, kernel = null) {
    const panes = this.view(cid).panes || {};
    if (stage !== "kernels" || kernel == null) return panes[stage] || null;
    const divs = (panes.kernels || []).filter((b) => b.t === "div" && b.data && b.data.ref === kernel);
    return divs.length ? divs : null;
  }

  /** @param {string} cid @param {string} kernel */
  kernelExists(cid, kernel) {
    return (this.view(cid).kernels || []).includes(kernel);
  }

  // a stage, or one kernel of it, this compilation shows
  /** @param {string} cid @param {string} stage @param {string | null} [kernel] */
  shows(cid, stage, kernel = null) {
    return kernel != null ? stage === "kernels" && this.kernelExists(cid, kernel) : this.has(cid, stage);
  }

  // a text a code block names ("graph.code", "kernels.3.source"); undefined: not here yet (deferred)
  /** @param {string} cid @param {string} src @returns {string | undefined} */
  text(cid, src) {
    const k = `${cid}|${src}`;
    if (this._text.has(k)) return this._text.get(k);
    const comp = this.comp(cid);
    let text = comp ? unpacked(fieldOf(comp, src)) : undefined; // a big text travels packed (packed.js)
    if (text == null && comp && src.endsWith(".code")) {
      // a wrapper module whose kernel sources travel in the kernels: spliced back in
      const o = fieldOf(comp, src.slice(0, -5));
      if (o && o.code_parts) text = this.splice(cid, o);
    }
    if (text === undefined) return undefined;
    text = trimNl(text);
    this._text.set(k, text);
    return text;
  }

  /** @param {string} cid @param {{code_parts: any[], kernel_refs: string[]}} o @returns {string | undefined} */
  splice(cid, o) {
    const refs = this.view(cid).kernels || [],
      kernels = (this.comp(cid) || {}).kernels || [];
    let text = unpacked(o.code_parts[0]);
    for (let j = 0; j < o.kernel_refs.length; j++) {
      const k = kernels[refs.indexOf(o.kernel_refs[j])];
      if (!k || k.source === undefined) return undefined;
      text += unpacked(k.source) + unpacked(o.code_parts[j + 1]);
    }
    return text;
  }

  // still waiting for the rest of a deferred report
  /** @param {string} cid @param {string} stage @param {string | null} [kernel] */
  pending(cid, stage, kernel = null) {
    if (!this.deferred) return false;
    const blocks = this.blocks(cid, stage, kernel);
    if (!blocks) return this.shows(cid, stage, kernel); // its pane comes with the rest
    return codeBlocks(blocks).some((b) => this.text(cid, b.src) === undefined);
  }

  /** @param {Origin} place @returns {number} */
  origin(place) {
    // index of a user line ({file, line}), added on first sight (source lines nothing came from)
    const key = originKey(place);
    let i = this.originIdx.get(key);
    if (i === undefined) {
      i = this.origins.length;
      this.origins.push(key);
      this.places.push({ file: place.file, line: place.line });
      this.originIdx.set(key, i);
    }
    return i;
  }

  // origins of one line of one block: array of origin indexes, "glue", or null (no data)
  /** @param {string} cid @param {string} key @param {number} line @returns {number[] | "glue" | null} */
  linkOf(cid, key, line) {
    const c = this.lineage[cid];
    const arr = c && c.blocks && c.blocks[key];
    if (!arr) return null;
    const v = arr[line - 1];
    if (v === undefined || v === 0) return null;
    if (v === -1) return "glue";
    return Array.isArray(v) ? v.map((x) => x - 1) : [v - 1];
  }

  /** @param {string} cid @param {string} key */
  hasLineage(cid, key) {
    const c = this.lineage[cid];
    return !!(c && c.blocks && c.blocks[key]);
  }

  // the stage of a block of the chain (sent beside its key: the key is a name, never split)
  /** @param {string | undefined} cid @param {string} key @returns {string | null} */
  stageOf(cid, key) {
    const c = cid === undefined ? undefined : this.lineage[cid];
    return (c && c.stages && c.stages[key]) || null;
  }

  // every (block, line) of a compilation per origin: what the chain bar counts
  /** @param {string | undefined} cid @returns {Map<number, [string, number][]>} */
  chain(cid) {
    let have = this._chain.get(cid);
    if (!have) {
      /** @type {Map<number, [string, number][]>} */
      const m = new Map(),
        c = cid === undefined ? undefined : this.lineage[cid];
      for (const [key, arr] of Object.entries((c && c.blocks) || {})) {
        for (let i = 0; i < arr.length; i++) {
          const v = arr[i];
          if (!v || v === -1) continue;
          for (const o of Array.isArray(v) ? v : [v]) {
            let at = m.get(o - 1);
            if (!at) m.set(o - 1, (at = []));
            at.push([key, i + 1]);
          }
        }
      }
      this._chain.set(cid, (have = m));
    }
    return have;
  }

  // a user line's place as the views name it: "cell [5], line 3" in a notebook cell's file (the report's
  // clinic names its cells), else the file as `short` writes it and the line
  /** @param {string} file @param {number} line @param {(file: string) => string} short */
  placeText(file, line, short) {
    const cell = ((this.report.clinic || {}).cells || {})[file];
    return cell ? this.w("cell_line", { cell, line }) : `${short(file)}:${line}`;
  }

  // the user line's text for an origin, from any captured source (a frame's, or a function inlined into one)
  /** @param {number} o @returns {string | null} */
  originText(o) {
    const { file, line } = this.places[o] || {};
    for (const c of this.comps) {
      for (const fn of [c.original_bytecode, ...(c.inlined || [])]) {
        if (!fn || !fn.source || fn.filename !== file) continue;
        const lines = trimNl(unpacked(fn.source)).split("\n"),
          i = line - (fn.firstlineno || 1);
        if (i >= 0 && i < lines.length) return lines[i].trim();
      }
    }
    return null;
  }

  // the diff of pane {cid, stage} against `target` ({cid, stage, rank}: this rank's when rank is null) that this
  // payload carries (a recompile against what it replaced: present/diff_view.py); undefined: not here
  /** @param {Target} pane @param {Target} target @returns {BlockDiff | undefined} */
  diffOf(pane, target) {
    if (target.rank != null) return undefined;
    return (this.view(pane.cid).diffs || []).find((d) => sameTarget(d.b, pane) && sameTarget(d.a, target));
  }
}

// One side of a diff as lines, read back from its segments (present/diff_view.py pane_lines): each line with
// the block and line it is, so the chain lights it; null while a text it names has not arrived (deferred)
/** @param {Model} m @param {string} cid @param {DiffSegment[]} segs
 * @returns {import("./diff.js").SideLine[] | null} */
export function sideLines(m, cid, segs) {
  /** @type {import("./diff.js").SideLine[]} */
  const out = [];
  for (const seg of segs) {
    if (seg.rows) {
      seg.rows.forEach((text, i) => out.push({ text, key: seg.key || null, line: seg.key ? i + 1 : 0 }));
      continue;
    }
    if (seg.head) out.push({ text: seg.head, key: null, line: 0 });
    const text = m.text(cid, seg.src || "");
    if (text === undefined) return null;
    text.split("\n").forEach((t, i) => out.push({ text: t, key: seg.key || null, line: i + 1 }));
  }
  return out;
}

// The stages a pane steps through for one compilation: those with something to show.
/** @param {Model} m @param {string} cid */
export function stepList(m, cid) {
  return m.stages.filter((s) => m.has(cid, s.id));
}

// The stage `delta` steps from stage `cur` (a pane of one kernel is on the kernels stage; an absent
// stage steps to its nearest present neighbour in pipeline order); null: nothing to step to.
/** @param {Model} m @param {string} cid @param {string} cur @param {number} delta @returns {string | null} */
export function stepFrom(m, cid, cur, delta) {
  const list = stepList(m, cid);
  if (!list.length) return null;
  let i = list.findIndex((s) => s.id === cur);
  if (i < 0) {
    const order = m.stages.findIndex((s) => s.id === cur);
    const after = list.findIndex((s) => m.stages.indexOf(s) > order);
    i = delta > 0 ? (after < 0 ? list.length - 1 : after - 1) : after < 0 ? list.length : after;
  }
  return list[Math.max(0, Math.min(list.length - 1, i + delta))].id;
}

// A pane a diff compares, or a diff target: {cid, stage, [kernel]} on this rank, with `rank` on another
// (present/diff_view.py side; `kernel`: one kernel of the kernels stage, by its key). Two name the same pane when
// every part agrees (a missing rank is this rank's, a missing kernel the whole stage).
/** @param {Target | null | undefined} a @param {Target | null | undefined} b */
export function sameTarget(a, b) {
  return (
    !!a &&
    !!b &&
    a.cid === b.cid &&
    a.stage === b.stage &&
    (a.kernel ?? null) === (b.kernel ?? null) &&
    (a.rank ?? null) === (b.rank ?? null)
  );
}

// {cid, stage, [kernel]}: a pane's target, the kernel left out when it shows the whole stage
/** @param {string} cid @param {string} stage @param {string | null} [kernel] @returns {Target} */
export function paneTarget(cid, stage, kernel = null) {
  return kernel == null ? { cid, stage } : { cid, stage, kernel };
}

// "vs ..." choices of a pane's diff picker ({cid, stage, [kernel]}), as [target, label]: the other pane, the same
// stage (or kernel) of other compilations (marking the one a recompile replaced), other stages of this compilation.
/** @param {Model} m @param {Target} pane @param {Target | undefined} other @returns {[Target, string][]} */
export function diffTargets(m, pane, other) {
  const { cid, stage, kernel = null } = pane;
  /** @type {[Target, string][]} */
  const out = [];
  if (other)
    out.push([
      paneTarget(other.cid, other.stage, other.kernel),
      m.w("vs_other_pane", { cid: other.cid, title: titleOf(m, other.stage, other.kernel) }),
    ]);
  const prev = m.view(cid).previous;
  for (const c of m.comps) {
    if (c.compile_id === cid || !m.shows(c.compile_id, stage, kernel)) continue;
    out.push([
      paneTarget(c.compile_id, stage, kernel),
      m.w(c.compile_id === prev ? "vs_replaced" : "vs_compilation", { cid: c.compile_id }),
    ]);
  }
  for (const s of m.stages) {
    if (s.id === stage || s.scope !== "compilation" || !m.has(cid, s.id) || ["guards", "graph_break"].includes(s.id)) {
      continue;
    }
    out.push([paneTarget(cid, s.id), m.w("vs_stage", { title: s.title })]);
  }
  return out;
}

/** @param {Model} m @param {string} stage @param {string | null} [kernel] */
export function titleOf(m, stage, kernel = null) {
  if (kernel != null) return m.w("kernel_title", { ref: kernel });
  const s = m.byId.get(stage);
  return s ? s.title : stage;
}

// base64 text -> bytes: the browser's own decoder where it has one, else a plain loop (Uint8Array.from with a
// callback per byte took ~45 ms for a big page's 0.5 MB, most of its first render's script time)
/** @param {string} data @returns {Uint8Array} */
function fromBase64(data) {
  const native = /** @type {{fromBase64?: (s: string) => Uint8Array}} */ (/** @type {unknown} */ (Uint8Array));
  if (typeof native.fromBase64 === "function") return native.fromBase64(data);
  const text = atob(data),
    bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

// The payload as text (JSON), base64 text of gzip ("gzip+base64"), or bytes (a widget's
// binary buffer: a DataView) of UTF-8 JSON or of gzip ("gzip").
/** @param {unknown} data @param {string | undefined} encoding @returns {Promise<any>} */
export async function readPayload(data, encoding) {
  let bytes;
  if (typeof data === "string") {
    if (encoding !== "gzip+base64") return JSON.parse(data);
    bytes = fromBase64(data);
  } else if (data instanceof DataView || ArrayBuffer.isView(data)) {
    bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  } else if (data instanceof ArrayBuffer) {
    bytes = new Uint8Array(data);
  } else throw new Error("no report arrived");
  if (encoding === "gzip" || encoding === "gzip+base64") {
    if (typeof DecompressionStream !== "function")
      throw new Error("this browser cannot unpack it (no DecompressionStream); open the report in a current browser");
    return JSON.parse(
      await new Response(
        new Blob([/** @type {BlobPart} */ (bytes)]).stream().pipeThrough(new DecompressionStream("gzip")),
      ).text(),
    );
  }
  return JSON.parse(new TextDecoder().decode(bytes));
}

// Another rank's payload on a job's page, written as the difference from a rank written in full (present/page.py
// RankScripts): [[path, value], ...] sets, [[path]] deletes, applied in place to that rank's payload (read afresh).
/** @param {any} base @param {any[][]} ops */
export function applyPatch(base, ops) {
  for (const op of ops) {
    const path = op[0];
    let o = base;
    for (let i = 0; i < path.length - 1; i++) o = o[path[i]];
    const key = path[path.length - 1];
    if (op.length === 1) delete o[key];
    else o[key] = op[1];
  }
  return base;
}
