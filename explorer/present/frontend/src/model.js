// The payload, prepared: the view model (what each pane shows), the report's texts the
// code blocks name, and the line-level chain. No DOM here: node's tests read it directly.

import { trimNl } from "./dom.js";
import { unpacked } from "./packed.js";

// A user line ({file, line}, as the payload names it) as the views' data-origin attribute writes it: FILE:LINE,
// built here from the object and never read back.
export function originKey(o) {
  return `${o.file}:${o.line}`;
}

export function fieldOf(obj, path) {
  let v = obj;
  for (const name of path.split(".")) {
    if (v == null) return undefined;
    v = v[name];
  }
  return v;
}

// every code block among `blocks`, however deep (details, kernels, graphs, list items)
export function codeBlocks(blocks, out = []) {
  for (const b of blocks || []) {
    if (b.t === "code") out.push(b);
    else if (b.t === "graph") out.push(b.code);
    else if (b.body) codeBlocks(b.body, out);
    else if (b.items) for (const i of b.items) codeBlocks(i.body, out);
  }
  return out;
}

// A template of the view model's words (present/words.py) with its blanks filled: "Loading rank {rank}…";
// a [singular, plural] pair picks by vars.n.
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
  constructor(payload, shared = null, rank = null) {
    this.p = payload;
    this.stages = payload.stages;
    this.byId = new Map(this.stages.map((s) => [s.id, s]));
    this.labels = payload.labels || { parts: {}, missing: {} };
    this.report = payload.report || {};
    this.capture = this.report.capture || { compilations: [] };
    this.comps = this.capture.compilations || [];
    this.views = payload.views || [];
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
    this._text = new Map();
    this._chain = new Map();
  }

  // what build_rest() sent: the heavy fields, kernel sources, the panes not drawn first, the whole chain
  merge(rest) {
    for (const [cid, fields] of Object.entries(rest.compilations || {})) {
      const comp = this.comp(cid);
      if (!comp) continue;
      const { kernel_sources: sources, panes, view_pictures: pics, ...others } = fields;
      Object.assign(comp, others);
      const view = this.view(cid);
      if (panes) Object.assign(view.panes, panes);
      // the stages' pictures, named only now (folding a big report's graphs waits for the rest)
      for (const key of ["pictures", "boxes", "no_picture"])
        if (pics && pics[key]) view[key] = Object.assign(view[key] || {}, pics[key]);
      (sources || []).forEach((src, i) => {
        if (comp.kernels[i]) comp.kernels[i].source = src;
      });
    }
    if (rest.lineage) this.lineage = rest.lineage.compilations || {};
    this.deferred = false;
    this._text.clear();
    this._chain.clear();
  }

  comp(cid) {
    return this.comps[this.cidIndex.get(cid)];
  }
  view(cid) {
    return this.views[this.cidIndex.get(cid)] || { panes: {}, why: {}, why_report: {} };
  }

  // does this compilation have something to show for this stage (a report-wide one included); a deferred
  // payload's pane may not be here yet (pending)
  has(cid, stageId) {
    const v = this.view(cid);
    return (v.present || []).includes(stageId) || !!(v.panes || {})[stageId];
  }

  // the view model's words for the views' own controls and states (labels.ui), filled in
  w(key, vars) {
    return fill((this.labels.ui || {})[key] ?? key, vars);
  }

  why(cid, stageId) {
    const v = this.view(cid);
    return (v.why || {})[stageId] || (v.why_report || {})[stageId] || this.w("not_recorded");
  }

  missingLabel(stageId) {
    return (this.labels.missing || {})[stageId] || this.w("not_captured");
  }

  partName(part) {
    return (this.labels.parts || {})[part] || part;
  }

  // the blocks a pane shows: a stage's, or (`kernel`: its key) one kernel's part of the kernels stage; null: none
  blocks(cid, stage, kernel = null) {
    const panes = this.view(cid).panes || {};
    if (stage !== "kernels" || kernel == null) return panes[stage] || null;
    const divs = (panes.kernels || []).filter((b) => b.t === "div" && b.data && b.data.ref === kernel);
    return divs.length ? divs : null;
  }

  kernelExists(cid, kernel) {
    return (this.view(cid).kernels || []).includes(kernel);
  }

  // a stage, or one kernel of it, this compilation shows
  shows(cid, stage, kernel = null) {
    return kernel != null ? stage === "kernels" && this.kernelExists(cid, kernel) : this.has(cid, stage);
  }

  // a text a code block names ("graph.code", "kernels.3.source"); undefined: not here yet (deferred)
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

  splice(cid, o) {
    const refs = this.view(cid).kernels || [],
      comp = this.comp(cid);
    let text = unpacked(o.code_parts[0]);
    for (let j = 0; j < o.kernel_refs.length; j++) {
      const k = comp.kernels[refs.indexOf(o.kernel_refs[j])];
      if (!k || k.source === undefined) return undefined;
      text += unpacked(k.source) + unpacked(o.code_parts[j + 1]);
    }
    return text;
  }

  // still waiting for the rest of a deferred report
  pending(cid, stage, kernel = null) {
    if (!this.deferred) return false;
    const blocks = this.blocks(cid, stage, kernel);
    if (!blocks) return this.shows(cid, stage, kernel); // its pane comes with the rest
    return codeBlocks(blocks).some((b) => this.text(cid, b.src) === undefined);
  }

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
  linkOf(cid, key, line) {
    const c = this.lineage[cid];
    const arr = c && c.blocks && c.blocks[key];
    if (!arr) return null;
    const v = arr[line - 1];
    if (v === undefined || v === 0) return null;
    if (v === -1) return "glue";
    return Array.isArray(v) ? v.map((x) => x - 1) : [v - 1];
  }

  hasLineage(cid, key) {
    const c = this.lineage[cid];
    return !!(c && c.blocks && c.blocks[key]);
  }

  // the stage of a block of the chain (sent beside its key: the key is a name, never split)
  stageOf(cid, key) {
    const c = this.lineage[cid];
    return (c && c.stages && c.stages[key]) || null;
  }

  // every (block, line) of a compilation per origin: what the chain bar counts
  chain(cid) {
    if (!this._chain.has(cid)) {
      const m = new Map(),
        c = this.lineage[cid];
      for (const [key, arr] of Object.entries((c && c.blocks) || {})) {
        for (let i = 0; i < arr.length; i++) {
          const v = arr[i];
          if (!v || v === -1) continue;
          for (const o of Array.isArray(v) ? v : [v]) {
            if (!m.has(o - 1)) m.set(o - 1, []);
            m.get(o - 1).push([key, i + 1]);
          }
        }
      }
      this._chain.set(cid, m);
    }
    return this._chain.get(cid);
  }

  // a user line's place as the views name it: "cell [5], line 3" in a notebook cell's file (the report's
  // clinic names its cells), else the file as `short` writes it and the line
  placeText(file, line, short) {
    const cell = ((this.report.clinic || {}).cells || {})[file];
    return cell ? this.w("cell_line", { cell, line }) : `${short(file)}:${line}`;
  }

  // the user line's text for an origin, from any captured source (a frame's, or a function inlined into one)
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
  diffOf(pane, target) {
    if (target.rank != null) return undefined;
    return (this.view(pane.cid).diffs || []).find((d) => sameTarget(d.b, pane) && sameTarget(d.a, target));
  }
}

// One side of a diff as lines, read back from its segments (present/diff_view.py pane_lines): each line with
// the block and line it is, so the chain lights it; null while a text it names has not arrived (deferred)
export function sideLines(m, cid, segs) {
  const out = [];
  for (const seg of segs) {
    if (seg.rows) {
      seg.rows.forEach((text, i) => out.push({ text, key: seg.key || null, line: seg.key ? i + 1 : 0 }));
      continue;
    }
    if (seg.head) out.push({ text: seg.head, key: null, line: 0 });
    const text = m.text(cid, seg.src);
    if (text === undefined) return null;
    text.split("\n").forEach((t, i) => out.push({ text: t, key: seg.key, line: i + 1 }));
  }
  return out;
}

// The stages a pane steps through for one compilation: those with something to show.
export function stepList(m, cid) {
  return m.stages.filter((s) => m.has(cid, s.id));
}

// The stage `delta` steps from stage `cur` (a pane of one kernel is on the kernels stage; an absent
// stage steps to its nearest present neighbour in pipeline order); null: nothing to step to.
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
export function paneTarget(cid, stage, kernel = null) {
  return kernel == null ? { cid, stage } : { cid, stage, kernel };
}

// "vs ..." choices of a pane's diff picker ({cid, stage, [kernel]}), as [target, label]: the other pane, the same
// stage (or kernel) of other compilations (marking the one a recompile replaced), other stages of this compilation.
export function diffTargets(m, pane, other) {
  const { cid, stage, kernel = null } = pane;
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

export function titleOf(m, stage, kernel = null) {
  if (kernel != null) return m.w("kernel_title", { ref: kernel });
  const s = m.byId.get(stage);
  return s ? s.title : stage;
}

// base64 text -> bytes: the browser's own decoder where it has one, else a plain loop (Uint8Array.from with a
// callback per byte took ~45 ms for a big page's 0.5 MB, most of its first render's script time)
function fromBase64(data) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(data);
  const text = atob(data),
    bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

// The payload as text (JSON), base64 text of gzip ("gzip+base64"), or bytes (a widget's
// binary buffer: a DataView) of UTF-8 JSON or of gzip ("gzip").
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
      await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text(),
    );
  }
  return JSON.parse(new TextDecoder().decode(bytes));
}

// Another rank's payload on a job's page, written as the difference from a rank written in full (present/page.py
// RankScripts): [[path, value], ...] sets, [[path]] deletes, applied in place to that rank's payload (read afresh).
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
