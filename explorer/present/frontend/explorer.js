// compile-explorer's one front end: the same ES module renders a report in the
// notebook (as an anywidget widget: `export default { render }`) and on the
// standalone page (`mount(el, payload, host)`, called by the page's inline script).
//
// Input: the payload built by explorer/present/payload.py (see its docstring for the
// format): the report's JSON, the stage registry, per-compilation facts derived in
// Python, the line-level chain (lineage) in compact form, and graph pictures.
// Nothing here knows a stage by heart: stages, their order, titles, kinds and
// explanations all come from the registry in the payload.
//
// Safety: every string from the report is set as text (textContent, text nodes,
// attribute values); nothing from the report goes through innerHTML. Graph pictures
// (SVG made by Graphviz, sanitised in Python) are parsed as XML and sanitised again.
//
// Contract for tests and other tools: every element linked to a user line carries
// data-origin="FILE:LINE" (its first origin; data-origins holds all of them as JSON
// when there are several); lines that came from no user line (glue) carry data-glue.
// Lit elements (the current chain) have the class cx-lit; the root has data-ready
// once the first render is done.

const PALETTE = 12; // colours for origins: cx-c0 .. cx-c11
const LH = 18; // px per code line: the same value as --cx-lh in explorer.css
const CHUNK = 250; // code lines rendered at once; further chunks render when scrolled near
const MAX_DIFF_D = 2000; // edit distance beyond which a line diff gives up (memory ~ D^2)
const KERNEL_PREFIX = "kernel:";

// ---------------------------------------------------------------- DOM, text only

function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v == null || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = String(v);
      else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid == null || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

function safeUrl(url) {
  return typeof url === "string" && /^https?:\/\//.test(url) ? url : null;
}

function fmtS(s) {
  if (s == null) return "—";
  if (s >= 1) return `${s.toFixed(2)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toFixed(2)} ms`;
  return `${(s * 1e6).toFixed(1)} µs`;
}

function num(n) {
  // 12,345 (not toLocaleString: its first call loads locale data, ~30 ms)
  return typeof n === "number" && Number.isFinite(n) ? String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",") : String(n ?? "");
}

function shortPath(p) {
  if (!p) return "?";
  const parts = String(p).split("/");
  return parts.length > 3 ? parts.slice(-2).join("/") : p;
}

function splitOrigin(o) {
  const i = o.lastIndexOf(":");
  return i < 0 ? [o, 0] : [o.slice(0, i), Number(o.slice(i + 1))];
}

// ---------------------------------------------------------------- highlighting

const PY_KW = new Set(("False None True and as assert async await break class continue def del elif else except " +
  "finally for from global if import in is lambda nonlocal not or pass raise return try while with yield").split(" "));
const CPP_KW = new Set(("auto bool break case char const constexpr continue default do double else enum extern " +
  "false float for if inline int long namespace nullptr return short signed sizeof static static_cast " +
  "reinterpret_cast struct switch template true typedef typename unsigned using void volatile while int64_t " +
  "int32_t int8_t uint8_t uint32_t uint64_t half bfloat16").split(" "));
const RX_PY = /(#.*$)|([rRbBfFuU]{0,2}(?:"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?))|(\b\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?j?\b)|(@?[A-Za-z_]\w*)/g;
const RX_CPP = /(\/\/.*$|\/\*.*?(?:\*\/|$))|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?)|(\b\d[\d.]*(?:[eE][+-]?\d+)?[fFlLuU]*\b)|(^\s*#\s*\w+)|([A-Za-z_]\w*)/g;
const RX_DIS = /^(\s*\d+)?(\s+>>|\s+L\d+:)?(\s*\d+\s+)([A-Z][A-Z0-9_]*)(.*)$/;  // jump targets: >> (to 3.12), L1: (3.13)

function tokens(line, lang) {
  // [[class or null, text], ...] covering the whole line
  const out = [];
  if (lang === "dis") {
    const m = RX_DIS.exec(line);
    if (!m) return [[null, line]];
    if (m[1]) out.push(["t-n", m[1]]);
    if (m[2]) out.push(["t-p", m[2]]);
    out.push(["t-c", m[3]], ["t-k", m[4]]);
    const rest = m[5], p = rest.indexOf("(");
    if (p >= 0) out.push([null, rest.slice(0, p)], ["t-s", rest.slice(p)]);
    else out.push([null, rest]);
    return out;
  }
  const rx = lang === "cpp" ? RX_CPP : lang === "python" ? RX_PY : null;
  if (!rx) return [[null, line]];
  rx.lastIndex = 0;
  let last = 0, m, prevWord = "";
  while ((m = rx.exec(line)) !== null) {
    if (m[0] === "") { rx.lastIndex++; continue; }
    if (m.index > last) out.push([null, line.slice(last, m.index)]);
    let cls = null;
    if (lang === "python") {
      if (m[1]) cls = "t-c";
      else if (m[2]) cls = "t-s";
      else if (m[3]) cls = "t-n";
      else if (m[4]) {
        const w = m[4];
        if (w[0] === "@") cls = "t-p";
        else if (PY_KW.has(w)) cls = "t-k";
        else if (prevWord === "def" || prevWord === "class") cls = "t-f";
        prevWord = w;
      }
    } else {
      if (m[1]) cls = "t-c";
      else if (m[2]) cls = "t-s";
      else if (m[3]) cls = "t-n";
      else if (m[4]) cls = "t-p";
      else if (m[5] && CPP_KW.has(m[5])) cls = "t-k";
    }
    out.push([cls, m[0]]);
    last = rx.lastIndex;
  }
  if (last < line.length) out.push([null, line.slice(last)]);
  return out;
}

function langOf(language) {
  const l = String(language || "").toLowerCase();
  if (["python", "py", "triton", "halide", "ir"].includes(l)) return "python";
  if (["cpp", "c++", "c", "cuda"].includes(l)) return "cpp";
  if (l === "dis") return "dis";
  if (l === "wrapper") return "wrapper";
  return null;
}

// Per-line languages of a wrapper module: Python outside triple-quoted strings, the
// embedded kernel's language inside them (C++ for cpp_pybinding / cpp_pybinding, Python for triton).
function wrapperLangs(lines) {
  const out = new Array(lines.length);
  let inside = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const n = (line.match(/'''|"""/g) || []).length;
    if (inside) {
      out[i] = n % 2 ? "python" : inside;
      if (n % 2) inside = null;
    } else {
      out[i] = "python";
      if (n % 2) inside = /cpp|cuda/.test(line) ? "cpp" : "python";
    }
  }
  return out;
}

function appendTokens(el, line, lang) {
  for (const [cls, text] of tokens(line, lang)) {
    if (cls) el.append(h("span", { class: cls }, text));
    else el.append(text);
  }
}

// ---------------------------------------------------------------- line diff

function diffLines(a, b) {
  // [["=", i, j] | ["-", i, -1] | ["+", -1, j], ...] or null when too different
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const ids = new Map();
  const idOf = (s) => { let v = ids.get(s); if (v === undefined) { v = ids.size; ids.set(s, v); } return v; };
  const A = Int32Array.from(a.slice(pre, a.length - suf), idOf);
  const B = Int32Array.from(b.slice(pre, b.length - suf), idOf);
  const mid = myers(A, B);
  if (mid === null) return null;
  const ops = [];
  for (let i = 0; i < pre; i++) ops.push(["=", i, i]);
  for (const [t, i, j] of mid) ops.push([t, i < 0 ? -1 : i + pre, j < 0 ? -1 : j + pre]);
  for (let s = 0; s < suf; s++) ops.push(["=", a.length - suf + s, b.length - suf + s]);
  return ops;
}

function myers(a, b) {
  const n = a.length, m = b.length, max = n + m;
  if (max === 0) return [];
  const off = max + 1, v = new Int32Array(2 * max + 3), trace = [];
  for (let d = 0; d <= max; d++) {
    if (d > MAX_DIFF_D) return null;
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = (k === -d || (k !== d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) { x++; y++; }
      v[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, d, n, m);
    }
  }
  return null;
}

function backtrack(trace, D, n, m) {
  const ops = [];
  let x = n, y = m;
  for (let d = D; d > 0; d--) {
    const vv = trace[d], base = -d - 1, get = (k) => vv[k - base];
    const k = x - y;
    const down = k === -d || (k !== d && get(k - 1) < get(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = get(prevK), prevY = prevX - prevK;
    const midX = down ? prevX : prevX + 1, midY = midX - k;
    while (x > midX && y > midY) { ops.push(["=", x - 1, y - 1]); x--; y--; }
    if (down) ops.push(["+", -1, prevY]); else ops.push(["-", prevX, -1]);
    x = prevX; y = prevY;
  }
  while (x > 0 && y > 0) { ops.push(["=", x - 1, y - 1]); x--; y--; }
  return ops.reverse();
}

// ---------------------------------------------------------------- the report, prepared

class Model {
  constructor(payload) {
    this.p = payload;
    this.stages = payload.stages;
    this.byId = new Map(this.stages.map((s) => [s.id, s]));
    this.report = payload.report || {};
    this.capture = this.report.capture || { compilations: [] };
    this.comps = this.capture.compilations || [];
    this.views = payload.views || [];
    this.cidIndex = new Map(this.comps.map((c, i) => [c.compile_id, i]));
    const lin = payload.lineage || {};
    this.origins = (lin.origins || []).slice();
    this.originIdx = new Map(this.origins.map((o, i) => [o, i]));
    this.linkedOrigins = this.origins.length; // origins [0, linkedOrigins) appear in the chain
    this.lineage = lin.compilations || {};
    this.pictures = payload.pictures || {};
    this.deferred = !!payload.deferred; // only the first view's data is here; the rest comes from the kernel
    this.firstFields = new Set(payload.first_fields || []);
    this._text = new Map();
    this._chain = new Map();
  }

  // what build_rest() sent: the heavy fields, kernel sources, the whole chain
  merge(rest) {
    for (const [cid, fields] of Object.entries(rest.compilations || {})) {
      const comp = this.comp(cid);
      if (!comp) continue;
      const { kernel_sources: sources, ...others } = fields;
      Object.assign(comp, others);
      (sources || []).forEach((src, i) => { if (comp.kernels[i]) comp.kernels[i].source = src; });
    }
    if (rest.lineage) this.lineage = rest.lineage.compilations || {};
    this.deferred = false;
    this._text.clear();
    this._chain.clear();
  }

  pending(key) {
    if (!this.deferred) return false;
    if (key.startsWith(KERNEL_PREFIX)) return true;
    const st = this.byId.get(key);
    if (!st || st.scope !== "compilation") return false;
    return st.kind === "kernels" || !this.firstFields.has(st.field.split(".")[0]);
  }

  comp(cid) { return this.comps[this.cidIndex.get(cid)]; }
  view(cid) { return this.views[this.cidIndex.get(cid)] || {}; }

  origin(key) {
    // index of "FILE:LINE", added on first sight (source lines nothing came from)
    let i = this.originIdx.get(key);
    if (i === undefined) { i = this.origins.length; this.origins.push(key); this.originIdx.set(key, i); }
    return i;
  }

  present(cid, stageId) {
    const v = this.view(cid);
    return (v.present || []).includes(stageId);
  }

  kernelOf(cid, ref) {
    const comp = this.comp(cid), refs = this.view(cid).kernels || [];
    const i = refs.indexOf(ref);
    return i < 0 ? null : comp.kernels[i];
  }

  outputCode(cid, i) {
    // the wrapper module, with the kernel sources the payload left out spliced back in
    const k = `${cid}|${i}`;
    if (!this._text.has(k)) {
      const o = this.comp(cid).output_code[i];
      let text = o.code;
      if (text == null && o.code_parts) {
        text = o.code_parts[0];
        o.kernel_refs.forEach((ref, j) => {
          const kern = this.kernelOf(cid, ref);
          text += (kern ? kern.source : "") + o.code_parts[j + 1];
        });
      }
      this._text.set(k, text || "");
    }
    return this._text.get(k);
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

  elementOf(cid, key, line) {
    const c = this.lineage[cid];
    return c && c.elements && c.elements[key] ? c.elements[key][String(line)] : undefined;
  }

  // every (block, line) of a compilation per origin: what the chain bar counts
  chain(cid) {
    if (!this._chain.has(cid)) {
      const m = new Map(), c = this.lineage[cid];
      if (c && c.blocks) {
        for (const [key, arr] of Object.entries(c.blocks)) {
          for (let i = 0; i < arr.length; i++) {
            const v = arr[i];
            if (!v || v === -1) continue;
            for (const o of Array.isArray(v) ? v : [v]) {
              let l = m.get(o - 1);
              if (!l) m.set(o - 1, (l = []));
              l.push([key, i + 1]);
            }
          }
        }
      }
      this._chain.set(cid, m);
    }
    return this._chain.get(cid);
  }

  // the user line's text for an origin, from any captured source
  originText(o) {
    const [file, line] = splitOrigin(this.origins[o] || "");
    for (const c of this.comps) {
      const bc = c.original_bytecode;
      if (!bc || !bc.source || bc.filename !== file) continue;
      const lines = bc.source.split("\n"), i = line - (bc.firstlineno || 1);
      if (i >= 0 && i < lines.length) return lines[i].trim();
    }
    return null;
  }

  // The stage's text as lines with, for each, the block and line it is (for diffs).
  stageLines(cid, key) {
    const out = [];
    for (const b of this.blocks(cid, key)) {
      if (b.kind === "table") continue;
      if (b.title) out.push({ text: `### ${b.title}`, key: null, line: 0 });
      b.text.split("\n").forEach((t, i) => out.push({ text: t, key: b.key, line: i + 1 }));
    }
    if (!out.length) {
      const comp = this.comp(cid);
      if (key === "guards" && comp) comp.guards.forEach((g, i) => out.push({ text: `${g.kind}  ${g.code}`, key: "guards:0", line: i + 1 }));
      if (key === "graph_break" && comp) {
        for (const t of [comp.recompile_reason, comp.graph_break && comp.graph_break.reason, comp.failure]) if (t) out.push(...t.split("\n").map((x) => ({ text: x, key: null, line: 0 })));
      }
    }
    return out;
  }

  // The text blocks a stage shows: [{key, title, text, lang, firstLine, linenos, kernel}]
  blocks(cid, key) {
    const comp = this.comp(cid);
    if (!comp) return [];
    if (key.startsWith(KERNEL_PREFIX)) {
      const ref = key.slice(KERNEL_PREFIX.length), k = this.pending(key) ? null : this.kernelOf(cid, ref);
      return k ? [{ key: `kernels:${ref}`, text: trimNl(k.source), lang: langOf(k.language), kernel: k, ref }] : [];
    }
    const st = this.byId.get(key);
    if (!st || st.scope !== "compilation" || !this.present(cid, key) || this.pending(key)) return [];
    const content = fieldOf(comp, st.field);
    switch (st.kind) {
      case "source": {
        const bc = comp.original_bytecode;
        return [{ key: "source:0", text: trimNl(bc.source), lang: "python", firstLine: bc.firstlineno || comp.frame.lineno, linenos: true, file: bc.filename }];
      }
      case "bytecode": return [{ key: `${key}:0`, text: trimNl(content.listing), lang: "dis" }];
      case "graph": return [{ key: `${key}:0`, text: trimNl(content.code), lang: "python", graph: content }];
      case "code":
        if (typeof content === "string") return [{ key: `${key}:0`, text: trimNl(content), lang: langOf(st.language) }];
        return content.map((o, i) => ({ key: `${key}:${i}`, title: o.graph_kind, sub: o.filename, text: trimNl(this.outputCode(cid, i)), lang: "wrapper" }));
      case "ir": return content.map((d, i) => ({ key: `${key}:${i}`, title: d.graph_kind, text: trimNl(d.text), lang: "python" }));
      case "kernels": {
        const refs = this.view(cid).kernels || [];
        return comp.kernels.map((k, i) => ({ key: `kernels:${refs[i]}`, title: refs[i], text: trimNl(k.source), lang: langOf(k.language), kernel: k, ref: refs[i] }));
      }
      default: return [];
    }
  }
}

function trimNl(s) { return String(s ?? "").replace(/\n$/, ""); }

function fieldOf(obj, path) {
  let v = obj;
  for (const name of path.split(".")) { if (v == null) return null; v = v[name]; }
  return v ?? null;
}

// ---------------------------------------------------------------- code blocks

// One text block shown as lines: rendered CHUNK lines at a time, the rest as placeholders
// of the exact height (every line is LH px tall) filled when scrolled near.
class Block {
  constructor(pane, spec, cid, opts = {}) {
    this.pane = pane; this.spec = spec; this.cid = cid; this.key = spec.key;
    this.lines = spec.text.split("\n");
    this.langs = spec.lang === "wrapper" ? wrapperLangs(this.lines) : null;
    this.marks = opts.marks || new Set();
    this.cursor = 0;
    this.chunks = [];
    const m = pane.view.m;
    this.linked = m.hasLineage(cid, spec.key) || spec.key === "source:0";
    this.el = h("div", { class: "cx-code", tabindex: "0", role: "list", "aria-label": spec.title || spec.key, "data-block": spec.key });
    this.el._block = this;
    const n = this.lines.length;
    const width = String((spec.firstLine || 1) + n).length;
    this.el.style.setProperty("--cx-gw", `${spec.linenos ? width + 1 : 0}ch`);
    for (let start = 0; start < n; start += CHUNK) {
      const count = Math.min(CHUNK, n - start);
      const c = h("div", { class: "cx-chunk" });
      c.style.height = `${count * LH}px`;
      c._start = start; c._count = count; c._filled = false; c._block = this;
      this.chunks.push(c);
      this.el.append(c);
    }
    // the first block of a pane draws its first lines now; everything else when scrolled near
    const eager = opts.eager ?? pane.blocks.length === 0;
    if (eager && this.chunks.length) this.fill(this.chunks[0]);
    for (const c of this.chunks) if (!c._filled) pane.observe(c);
  }

  originsAt(line) {
    const m = this.pane.view.m;
    if (this.spec.key === "source:0") {
      const l = m.linkOf(this.cid, "source:0", line);
      if (l) return l;
      return [m.origin(`${this.spec.file}:${(this.spec.firstLine || 1) + line - 1}`)];
    }
    return m.linkOf(this.cid, this.spec.key, line);
  }

  fill(c) {
    if (c._filled) return;
    c._filled = true;
    c.style.height = "";
    const view = this.pane.view, m = view.m, frag = document.createDocumentFragment();
    const first = this.spec.firstLine || 1, lang = this.spec.lang;
    for (let i = c._start; i < c._start + c._count; i++) {
      const line = i + 1, text = this.lines[i];
      const el = h("div", { class: "cx-ln", "data-line": line });
      if (this.spec.linenos) el.append(h("span", { class: "cx-no", "aria-hidden": "true" }, String(first + i)));
      const tx = h("span", { class: "cx-tx" });
      appendTokens(tx, text, this.langs ? this.langs[i] : lang);
      if (!text) tx.append(" ");
      el.append(tx);
      if (this.marks.has(first + i)) el.classList.add("cx-mark");
      const o = this.linked ? this.originsAt(line) : null;
      view.decorate(el, o, this.pane);
      if (line === this.cursor) el.classList.add("cx-cursor");
      frag.append(el);
    }
    c.append(frag);
  }

  lineEl(line) {
    const c = this.chunks[Math.floor((line - 1) / CHUNK)];
    if (!c) return null;
    this.fill(c);
    return c.children[(line - 1) - c._start] || null;
  }

  firstLine(pred) {
    for (let i = 1; i <= this.lines.length; i++) if (pred(i)) return i;
    return 0;
  }

  moveCursor(delta) {
    const old = this.cursor && this.lineEl(this.cursor);
    if (old) old.classList.remove("cx-cursor");
    this.cursor = Math.max(1, Math.min(this.lines.length, (this.cursor || 0) + delta));
    const el = this.lineEl(this.cursor);
    if (el) { el.classList.add("cx-cursor"); this.pane.scrollTo(el, false); }
    return el;
  }
}

// ---------------------------------------------------------------- a pane

class Pane {
  constructor(view, side, state) {
    this.view = view; this.side = side;
    this.cid = state.cid; this.stage = state.stage; this.diff = state.diff || null; this.mode = state.mode || "code";
    this.linked = []; // every rendered element that carries origins
    this.blocks = [];
    this.el = h("section", { class: "cx-pane", "data-side": side, "aria-label": `${side} pane` });
    this.head = h("div", { class: "cx-pane-head" });
    this.explain = h("div", { class: "cx-explain" });
    this.body = h("div", { class: "cx-pane-body", tabindex: "-1" });
    this.el.append(this.head, this.explain, this.body);
    this.io = typeof IntersectionObserver === "function"
      ? new IntersectionObserver((entries) => {
        for (const e of entries) if (e.isIntersecting) { this.io.unobserve(e.target); e.target._block.fill(e.target); }
      }, { root: this.body, rootMargin: "800px 0px" })
      : null;
    this.body.addEventListener("scroll", () => { this._scrolled = true; }, { passive: true });
    this.el.addEventListener("focusin", () => view.setActive(this));
    this.el.addEventListener("pointerdown", () => view.setActive(this));
  }

  observe(chunk) {
    if (this.io) this.io.observe(chunk); else chunk._block.fill(chunk);
  }

  state() { return { cid: this.cid, stage: this.stage, diff: this.diff, mode: this.mode }; }

  set(state) {
    Object.assign(this, state);
    const comp = this.view.m.comp(this.cid);
    if (!comp) this.cid = this.view.m.comps[0].compile_id;
    if (this.stage.startsWith(KERNEL_PREFIX) && !this.view.m.kernelOf(this.cid, this.stage.slice(KERNEL_PREFIX.length))) this.stage = "kernels";
    if (!this.stage.startsWith(KERNEL_PREFIX) && !this.view.m.byId.has(this.stage)) this.stage = this.view.m.stages[0].id;
    this.render();
    this.view.changed();
  }

  stageDef() {
    const m = this.view.m;
    return this.stage.startsWith(KERNEL_PREFIX) ? m.byId.get("kernels") : m.byId.get(this.stage);
  }

  render() {
    const view = this.view, m = view.m;
    if (this.io) this.io.disconnect();
    this.linked = []; this.blocks = [];
    this.head.replaceChildren(...this.controls());
    const st = this.stageDef();
    const kernelTitle = this.stage.startsWith(KERNEL_PREFIX) ? ` — ${this.stage.slice(KERNEL_PREFIX.length)}` : "";
    this.explain.replaceChildren(
      h("span", { class: `cx-part cx-part-${st.part}` }, partName(st.part)),
      h("b", null, st.title + kernelTitle), " ",
      h("span", { class: "cx-explain-text" }, st.explanation));
    this.explain.hidden = !view.showExplain;
    const body = [];
    try {
      if (this.diff) body.push(...this.renderDiff());
      else body.push(...this.renderStage());
    } catch (err) {
      body.push(h("div", { class: "cx-bad cx-error" }, `The view could not draw this stage: ${err && err.message}`));
    }
    this.body.replaceChildren(...body);
    if (this._scrolled) { this.body.scrollTop = 0; this._scrolled = false; } // reading or writing it forces a layout
    view.relight();
  }

  controls() {
    const m = this.view.m;
    const stageSel = h("select", { class: "cx-stage-pick", "aria-label": `${this.side} pane: stage`, title: "Stage (pipeline order), then each kernel" });
    for (const s of m.stages) {
      const present = s.scope === "report" ? this.view.timingFor(this.cid).length > 0 : m.present(this.cid, s.id);
      stageSel.append(h("option", { value: s.id, selected: s.id === this.stage }, present ? s.title : `${s.title} (not captured)`));
    }
    const refs = m.view(this.cid).kernels || [];
    if (refs.length) {
      const g = h("optgroup", { label: m.byId.has("kernels") ? m.byId.get("kernels").title : "kernels" });
      for (const r of refs) g.append(h("option", { value: KERNEL_PREFIX + r, selected: KERNEL_PREFIX + r === this.stage }, `Kernel ${r}`));
      stageSel.append(g);
    }
    stageSel.addEventListener("change", () => this.set({ stage: stageSel.value, diff: null }));
    const cidSel = h("select", { class: "cx-cid-pick", "aria-label": `${this.side} pane: compilation`, title: "Compilation (compile id)" });
    for (const c of m.comps) cidSel.append(h("option", { value: c.compile_id, selected: c.compile_id === this.cid }, c.compile_id));
    cidSel.addEventListener("change", () => this.set({ cid: cidSel.value }));
    const diffSel = h("select", { class: "cx-diff-pick", "aria-label": `${this.side} pane: compare with`, title: "Show the difference against another compilation or stage" });
    diffSel.append(h("option", { value: "" }, "Diff: off"));
    for (const [value, label] of this.diffTargets()) diffSel.append(h("option", { value, selected: value === this.diff }, label));
    diffSel.addEventListener("change", () => this.set({ diff: diffSel.value || null }));
    const out = [stageSel, cidSel, diffSel];
    const st = this.stageDef();
    if (st.kind === "graph" && !this.diff && m.present(this.cid, st.id)) {
      const tabs = h("span", { class: "cx-seg", role: "group", "aria-label": "graph view" });
      for (const mode of ["code", "picture"]) {
        tabs.append(h("button", { type: "button", class: mode === this.mode ? "cx-on" : "", "aria-pressed": String(mode === this.mode), onclick: () => this.set({ mode }) }, mode === "code" ? "Code" : "Picture"));
      }
      out.push(tabs);
    }
    return out;
  }

  diffTargets() {
    const m = this.view.m, out = [], key = this.stage;
    const other = this.view.panes.find((p) => p !== this);
    if (other) out.push([`${other.cid}|${other.stage}`, `vs the other pane (${other.cid} ${titleOf(m, other.stage)})`]);
    const prev = m.view(this.cid).previous;
    for (const c of m.comps) {
      if (c.compile_id === this.cid) continue;
      const has = key.startsWith(KERNEL_PREFIX) ? m.kernelOf(c.compile_id, key.slice(KERNEL_PREFIX.length)) : m.present(c.compile_id, key);
      if (has) out.push([`${c.compile_id}|${key}`, `vs ${c.compile_id} (same stage)${c.compile_id === prev ? " — before the recompile" : ""}`]);
    }
    for (const s of m.stages) {
      if (s.id === key || s.scope !== "compilation" || !m.present(this.cid, s.id) || ["guards", "graph_break"].includes(s.id)) continue;
      out.push([`${this.cid}|${s.id}`, `vs ${s.title} (this compilation)`]);
    }
    return out;
  }

  renderStage() {
    const view = this.view, m = view.m, st = this.stageDef(), comp = m.comp(this.cid);
    const out = [];
    for (const f of view.findings(this.cid, st.id)) out.push(f);
    if (st.scope === "report") return out.concat(view.timingPane(this.cid));
    if (m.pending(this.stage)) {
      out.push(h("p", { class: "cx-muted cx-pending" }, view.host.kernel
        ? "Loading this stage: the kernel is sending the rest of this big report…"
        : "This stage is not in the view's first part, and no kernel is connected to send it: run the cell again, or open report.save_html()."));
      return out;
    }
    if (!this.stage.startsWith(KERNEL_PREFIX) && !m.present(this.cid, st.id)) {
      const why = (m.view(this.cid).why || {})[st.id] || "it was not recorded";
      out.push(h("div", { class: "cx-missing" }, h("b", null, "Not captured here: "), why));
      return out;
    }
    switch (st.kind) {
      case "source": return out.concat(this.sourcePane(comp));
      case "guards": return out.concat(this.guardsPane(comp));
      case "break": return out.concat(this.breakPane(comp));
      case "graph": return out.concat(this.graphPane(comp, st));
      case "kernels": return out.concat(this.kernelsPane(comp));
      case "bytecode": {
        const bc = fieldOf(comp, st.field);
        const marks = new Set();
        return out.concat(h("p", { class: "cx-muted" }, `${bc.name} — ${shortPath(bc.filename)}:${bc.firstlineno}`), this.blockEls(marks));
      }
      default: return out.concat(this.blockEls());
    }
  }

  blockEls(marks) {
    const m = this.view.m, out = [];
    for (const spec of m.blocks(this.cid, this.stage)) {
      if (spec.title) out.push(h("div", { class: "cx-h4" }, spec.title, spec.sub ? h("span", { class: "cx-muted" }, `  ${spec.sub}`) : null));
      const b = new Block(this, spec, this.cid, { marks });
      this.blocks.push(b);
      out.push(b.el);
    }
    return out;
  }

  sourcePane(comp) {
    const v = this.view.m.view(this.cid), bc = comp.original_bytecode, out = [];
    out.push(h("p", { class: "cx-muted" }, `${shortPath(bc.filename)}:${bc.firstlineno} in ${bc.name}`));
    if (comp.frame.name.startsWith("torch_dynamo_resume_in_")) {
      out.push(h("p", { class: "cx-muted" }, "A resume function: Dynamo made it to run the rest of the function after an earlier graph break; its code starts at the line of that break."));
    }
    const gb = comp.graph_break;
    if (v.break_line) out.push(h("p", null, "Line ", h("b", null, String(v.break_line)), " (marked) is where the graph break happened: ", gb.reason));
    else if (gb) out.push(h("p", null, "The graph break happened outside this code, at ", h("code", null, `${shortPath(gb.filename)}:${gb.lineno}`), ": ", gb.reason));
    if (this.view.m.linkedOrigins) out.push(h("p", { class: "cx-hint" }, "Hover or click a line: every pane lights what came from it."));
    return out.concat(this.blockEls(new Set(v.break_line ? [v.break_line] : [])));
  }

  guardsPane(comp) {
    const view = this.view, m = view.m, out = [];
    if (comp.guards.length) {
      const fromUser = comp.guards.filter((g) => g.source).length;
      out.push(h("p", { class: "cx-muted" }, `${comp.guards.length} guards checked before each call reuses this compilation; ${fromUser} point at a line of user code.`));
      const table = h("table", { class: "cx-table cx-guards" }, h("tr", null, h("th", null, "kind"), h("th", null, "check"), h("th", null, "guarded value"), h("th", null, "user line")));
      comp.guards.forEach((g, i) => {
        const tr = h("tr", { "data-line": i + 1 }, h("td", null, g.kind), h("td", null, h("code", null, g.code)), h("td", null, h("code", null, g.subject || "")),
          h("td", null, g.source || "", g.filename ? h("span", { class: "cx-muted" }, ` ${shortPath(g.filename)}:${g.lineno}`) : null));
        let o = m.linkOf(this.cid, "guards:0", i + 1);
        if (!o && g.filename && g.lineno) o = [m.origin(`${g.filename}:${g.lineno}`)];
        view.decorate(tr, o, this);
        table.append(tr);
      });
      out.push(table);
    }
    if (comp.guard_tree) {
      const d = h("details", { class: "cx-sub", open: !comp.guards.length }, h("summary", null, "guard tree (as torch printed it)"));
      d.append(this.plainBlock("guard_tree:0", comp.guard_tree));
      out.push(d);
    }
    return out;
  }

  plainBlock(key, text, lang = null) {
    const b = new Block(this, { key, text: trimNl(text), lang }, this.cid);
    this.blocks.push(b);
    return b.el;
  }

  breakPane(comp) {
    const out = [], v = this.view.m.view(this.cid);
    if (comp.failure) out.push(h("div", { class: "cx-bad" }, h("b", null, "Compilation failed: "), comp.failure));
    if (comp.recompile_reason) {
      out.push(h("div", { class: "cx-h4" }, "Recompiled"), h("p", null, "An earlier compilation of this frame no longer matched its guards:"), this.plainBlock("recompile:0", comp.recompile_reason));
      if (v.previous) {
        out.push(h("p", null, h("button", { type: "button", class: "cx-btn", onclick: () => this.set({ stage: "graph", diff: `${v.previous}|graph` }) },
          `Show the FX graph's diff against ${v.previous}`)));
      }
    }
    const gb = comp.graph_break;
    if (gb) {
      const link = safeUrl(gb.doc_url);
      out.push(h("div", { class: "cx-h4 cx-gb-reason" }, "Graph break: ", gb.reason, " ",
        gb.gb_code ? (link ? h("a", { href: link, target: "_blank", rel: "noopener" }, gb.gb_code) : gb.gb_code) : null));
      const where = h("p", null, h("code", null, `${shortPath(gb.filename)}:${gb.lineno}`), gb.source_line ? "  " : null, gb.source_line ? h("code", null, gb.source_line) : null);
      if (gb.filename && gb.lineno) this.view.decorate(where, [this.view.m.origin(`${gb.filename}:${gb.lineno}`)], this);
      out.push(where);
      if (gb.explanation) out.push(h("p", null, gb.explanation));
      if (gb.hints && gb.hints.length) out.push(h("p", null, "Hints:"), h("ul", { class: "cx-list" }, gb.hints.map((x) => h("li", null, x))));
      if (gb.user_traceback && gb.user_traceback.length) {
        out.push(h("details", { class: "cx-sub" }, h("summary", null, "user traceback"),
          h("ol", { class: "cx-list" }, gb.user_traceback.map((f) => h("li", null, h("code", null, `${shortPath(f.filename)}:${f.lineno} in ${f.function || "?"}`), f.code ? h("div", null, h("code", null, f.code)) : null)))));
      }
      if (gb.detail) {
        const d = h("details", { class: "cx-sub" }, h("summary", null, "torch's full message"));
        d.append(this.plainBlock("gb_detail:0", gb.detail));
        out.push(d);
      }
    } else out.push(h("p", { class: "cx-muted" }, "No graph break in this compilation."));
    if (!comp.recompile_reason) out.push(h("p", { class: "cx-muted" }, "Not a recompile."));
    for (const r of comp.restarts || []) out.push(h("p", null, `Restart (attempt ${r.attempt}): Dynamo threw its trace away and traced this frame again: `, (r.reason || "").split("\n")[0]));
    return out;
  }

  graphPane(comp, st) {
    const fx = fieldOf(comp, st.field), out = [];
    out.push(h("p", { class: "cx-muted" }, `${num(fx.num_nodes)} nodes`));
    if (this.mode === "picture") return out.concat(this.view.picture(this, st.id));
    return out.concat(this.blockEls());
  }

  kernelsPane(comp) {
    const m = this.view.m, out = [];
    const single = this.stage.startsWith(KERNEL_PREFIX);
    const specs = m.blocks(this.cid, this.stage);
    if (!single) {
      const table = h("table", { class: "cx-table cx-kindex" }, h("tr", null, h("th", null, "kernel"), h("th", null, "language"), h("th", null, "graph"), h("th", null, "lines"), h("th", null, "user lines")));
      specs.forEach((s) => {
        table.append(h("tr", null, h("td", null, h("button", { type: "button", class: "cx-link", onclick: () => this.set({ stage: KERNEL_PREFIX + s.ref }) }, s.ref)),
          h("td", null, s.kernel.language), h("td", null, s.kernel.graph_kind || ""), h("td", null, num(s.text.split("\n").length)),
          h("td", null, (s.kernel.user_lines || []).map((l) => `${shortPath(l.filename)}:${l.lineno}`).join(", "))));
      });
      out.push(table);
    }
    for (const s of specs) {
      const k = s.kernel;
      const facts = [];
      if (k.source_nodes && k.source_nodes.length) facts.push(h("div", null, h("span", { class: "cx-muted" }, "FX nodes: "), h("code", null, k.source_nodes.join(", "))));
      if (k.aten_ops && k.aten_ops.length) facts.push(h("div", null, h("span", { class: "cx-muted" }, "ATen ops: "), h("code", null, k.aten_ops.join(", "))));
      if (k.user_lines && k.user_lines.length) {
        facts.push(h("div", null, h("span", { class: "cx-muted" }, "user lines: "), k.user_lines.map((l, i) => {
          const span = h("code", { class: "cx-uline" }, `${shortPath(l.filename)}:${l.lineno}`);
          this.view.decorate(span, [m.origin(`${l.filename}:${l.lineno}`)], this);
          return [i ? ", " : "", span];
        })));
      }
      out.push(h("div", { class: "cx-kernel", "data-kernel": k.name },
        h("div", { class: "cx-h4" }, h("code", null, s.ref), " ", h("span", { class: "cx-chip" }, k.language), k.graph_kind ? h("span", { class: "cx-chip" }, k.graph_kind) : null),
        facts.length ? h("div", { class: "cx-kfacts" }, facts) : h("p", { class: "cx-muted" }, "torch recorded no FX nodes or user lines for this kernel.")));
      const b = new Block(this, s, this.cid);
      this.blocks.push(b);
      out.push(b.el);
    }
    return out;
  }

  renderDiff() {
    const m = this.view.m, [ocid, okey] = splitTarget(this.diff);
    if (m.pending(okey) || m.pending(this.stage)) return [h("p", { class: "cx-muted cx-pending" }, "Loading: the kernel is sending the rest of this big report…")];
    const a = m.stageLines(ocid, okey), b = m.stageLines(this.cid, this.stage);
    const head = h("div", { class: "cx-diff-head" },
      h("span", { class: "cx-del-t" }, `− ${ocid} ${titleOf(m, okey)}`), "  →  ", h("span", { class: "cx-add-t" }, `+ ${this.cid} ${titleOf(m, this.stage)}`));
    if (!a.length || !b.length) return [head, h("div", { class: "cx-missing" }, "Nothing to compare: one of the two stages has no text here.")];
    const ops = diffLines(a.map((x) => x.text), b.map((x) => x.text));
    if (!ops) return [head, h("div", { class: "cx-missing" }, `The two texts differ in more than ${num(MAX_DIFF_D)} places; a line diff would not help here.`)];
    const adds = ops.filter((o) => o[0] === "+").length, dels = ops.filter((o) => o[0] === "-").length;
    head.append(h("span", { class: "cx-muted" }, `   ${adds} added, ${dels} removed, ${ops.length - adds - dels} unchanged lines`));
    if (!adds && !dels) head.append(h("b", null, "  — identical"));
    const box = h("div", { class: "cx-code cx-diff", tabindex: "0", role: "list" });
    const rowOf = (op) => {
      const [t, i, j] = op, item = t === "-" ? a[i] : b[j], cid = t === "-" ? ocid : this.cid;
      const el = h("div", { class: `cx-ln ${t === "+" ? "cx-add" : t === "-" ? "cx-del" : ""}` },
        h("span", { class: "cx-no2" }, i >= 0 ? String(i + 1) : ""), h("span", { class: "cx-no2" }, j >= 0 ? String(j + 1) : ""),
        h("span", { class: "cx-sign" }, t === "=" ? " " : t === "+" ? "+" : "−"));
      const tx = h("span", { class: "cx-tx" });
      tx.append(item.text || " ");
      el.append(tx);
      if (item.key) this.view.decorate(el, m.linkOf(cid, item.key, item.line), this);
      return el;
    };
    // pair removed/added lines of one hunk to mark what changed inside them
    const CONTEXT = 3;
    const keep = new Uint8Array(ops.length);
    ops.forEach((o, n) => { if (o[0] !== "=") for (let d = -CONTEXT; d <= CONTEXT; d++) if (ops[n + d]) keep[n + d] = 1; });
    let n = 0;
    while (n < ops.length) {
      if (!keep[n]) {
        let e = n;
        while (e < ops.length && !keep[e]) e++;
        const hidden = ops.slice(n, e);
        const fold = h("div", { class: "cx-fold", role: "button", tabindex: "0" }, `⋯ ${num(hidden.length)} unchanged lines (click to show)`);
        const open = () => fold.replaceWith(...hidden.map(rowOf));
        fold.addEventListener("click", open);
        fold.addEventListener("keydown", (ev) => { if (ev.key === "Enter") open(); });
        box.append(fold);
        n = e;
        continue;
      }
      if (ops[n][0] === "-") {
        let e = n;
        while (e < ops.length && ops[e][0] === "-") e++;
        let f = e;
        while (f < ops.length && ops[f][0] === "+") f++;
        const dl = ops.slice(n, e).map(rowOf), al = ops.slice(e, f).map(rowOf);
        if (dl.length === al.length) dl.forEach((el, q) => markChange(el, al[q]));
        box.append(...dl, ...al);
        n = f;
        continue;
      }
      box.append(rowOf(ops[n]));
      n++;
    }
    return [head, box];
  }

  scrollTo(el, center = true) {
    const body = this.body;
    let top = 0, x = el;
    while (x && x !== body) { top += x.offsetTop; x = x.offsetParent; if (x && !body.contains(x) && x !== body) break; }
    const want = center ? top - body.clientHeight / 2 + LH : null;
    if (center) body.scrollTop = Math.max(0, want);
    else if (top < body.scrollTop) body.scrollTop = top - LH;
    else if (top + LH > body.scrollTop + body.clientHeight) body.scrollTop = top - body.clientHeight + 2 * LH;
  }

  // scroll to the first line of the chain in this pane (data first: the line may not be rendered yet)
  revealChain(sel) {
    for (const b of this.blocks) {
      const line = b.firstLine((i) => { const o = b.originsAt(i); return Array.isArray(o) && o.some((x) => sel.has(x)); });
      if (line) {
        const el = b.lineEl(line);
        if (el) { this.view.relight(); this.scrollTo(el); }
        return true;
      }
    }
    const el = this.linked.find((e) => e._o && e._o.some((x) => sel.has(x)));
    if (el) this.scrollTo(el);
    return !!el;
  }
}

function markChange(del, add) {
  const a = del.lastChild.textContent, b = add.lastChild.textContent;
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  for (const [el, t] of [[del, a], [add, b]]) {
    const mid = t.slice(p, t.length - s);
    if (!mid) continue;
    el.lastChild.replaceChildren(t.slice(0, p), h("mark", { class: "cx-chg" }, mid), t.slice(t.length - s));
  }
}

function splitTarget(t) {
  const i = t.indexOf("|");
  return [t.slice(0, i), t.slice(i + 1)];
}

function titleOf(m, key) {
  if (key.startsWith(KERNEL_PREFIX)) return `kernel ${key.slice(KERNEL_PREFIX.length)}`;
  const s = m.byId.get(key);
  return s ? s.title : key;
}

function partName(part) {
  return { dynamo: "Dynamo", aot: "AOTAutograd", inductor: "Inductor", runtime: "Runtime" }[part] || part;
}

// ---------------------------------------------------------------- the view

class View {
  constructor(el, payload, host) {
    this.root = el; this.host = host || {};
    this.m = new Model(payload);
    this.sel = new Set(); this.hover = null; this.lit = [];
    this.showExplain = true;
    this.panes = [];
    this.active = null;
    this._raf = 0;
    this.build();
  }

  build() {
    const m = this.m, root = this.root;
    root.classList.add("cxv");
    root.setAttribute("tabindex", "0");
    root.setAttribute("data-lm-suppress-shortcuts", "true");
    this.themeWatch();
    root.replaceChildren();
    root.append(this.header());
    if (!m.comps.length) {
      root.append(h("div", { class: "cx-missing" }, h("b", null, "No compilations were captured. "), "Nothing ran through torch.compile here (or every frame was skipped)."));
      return;
    }
    const first = m.comps[0].compile_id;
    const leftStage = m.present(first, "source") ? "source" : "original_bytecode";
    const rightStage = m.present(first, "graph") ? "graph" : "rewritten_bytecode";
    this.toolbar = h("div", { class: "cx-toolbar", role: "toolbar", "aria-label": "explorer controls" });
    this.chainBar = h("div", { class: "cx-chainbar", "aria-live": "polite" });
    this.panesEl = h("div", { class: "cx-panes" });
    root.append(this.toolbar, this.chainBar, this.panesEl);
    this.panes = [new Pane(this, "left", { cid: first, stage: leftStage }), new Pane(this, "right", { cid: first, stage: rightStage })];
    this.active = this.panes[1];
    this.panesEl.append(this.panes[0].el, this.panes[1].el);
    this.panes.forEach((p) => p.render());
    this.renderToolbar();
    this.renderChain();
    this.setActive(this.panes[1]);
    this.wire();
    if (this.host.kernel && this.m.p.pictures_lazy) this.fetchPictures();
    if (this.host.kernel && this.m.deferred) this.fetchRest();
  }

  fetchRest() {
    Promise.resolve(this.host.kernel.call("rest", {}))
      .then((r) => readPayload(r.buffers && r.buffers[0], r.encoding))
      .then((rest) => {
        const waiting = this.panes.filter((p) => this.m.pending(p.stage) || (p.diff && this.m.pending(splitTarget(p.diff)[1])));
        this.m.merge(rest);
        for (const p of waiting) p.render();
        this.renderChain();
        this.root.setAttribute("data-complete", "1");
      }, () => {});
  }

  themeWatch() {
    const dark = () => {
      const b = document.body, jp = b && b.dataset ? b.dataset.jpThemeLight : undefined;
      if (jp === "false") return true;
      if (jp === "true") return false;
      if (b && b.classList && (b.classList.contains("vscode-dark") || b.classList.contains("vscode-high-contrast"))) return true;
      if (b && b.classList && b.classList.contains("vscode-light")) return false;
      return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
    };
    const apply = () => this.root.classList.toggle("cx-dark", dark());
    apply();
    if (typeof MutationObserver === "function" && document.body) {
      this._mo = new MutationObserver(apply);
      this._mo.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "class"] });
    }
    if (typeof matchMedia === "function") {
      this._mq = matchMedia("(prefers-color-scheme: dark)");
      this._mqf = apply;
      if (this._mq.addEventListener) this._mq.addEventListener("change", apply);
    }
  }

  destroy() {
    if (this._mo) this._mo.disconnect();
    if (this._mq && this._mq.removeEventListener) this._mq.removeEventListener("change", this._mqf);
    for (const p of this.panes) if (p.io) p.io.disconnect();
  }

  // ---- header: numbers first, then what to fix ----
  header() {
    const m = this.m, cap = m.capture, rep = m.report, d = m.p.derived || {};
    const comps = m.comps;
    const kernels = comps.reduce((n, c) => n + (c.kernels || []).length, 0);
    const compileS = comps.reduce((n, c) => n + (c.compile_time_s || 0), 0);
    const chips = [
      ["compilations", comps.length], ["graphs", comps.filter((c) => c.graph).length],
      ["graph breaks", comps.filter((c) => c.graph_break).length], ["recompiles", comps.filter((c) => c.recompile_reason).length],
      ["kernels", kernels], ["compile time", `${compileS.toFixed(2)} s`],
    ];
    if (cap.wall_time_s != null) chips.push(["wall time", `${cap.wall_time_s.toFixed(2)} s`]);
    chips.push(["device", cap.device], ["torch", cap.torch_version], ["python", cap.python_version]);
    const box = h("div", { class: "cx-header" },
      h("div", { class: "cx-title" }, h("span", { class: "cx-brand" }, "compile-explorer"),
        h("span", { class: "cx-stat" }, chips.map(([k, v]) => h("span", { class: "cx-chip", "data-chip": k }, `${k} `, h("b", null, String(v)))))));
    if (cap.error) box.append(h("div", { class: "cx-bad" }, h("b", null, "The code raised "), cap.error));
    const fix = (rep.clinic && rep.clinic.fix_list) || [];
    if (fix.length) {
      const list = h("ul", { class: "cx-list cx-breaks" });
      fix.forEach((s, i) => {
        const dd = (d.fix_list || [])[i] || {};
        const link = safeUrl(s.doc_url);
        const li = h("li", null, h("code", null, dd.location || `${shortPath(s.filename)}:${s.lineno}`), ": ", s.reason,
          s.gb_code ? [" [", link ? h("a", { href: link, target: "_blank", rel: "noopener" }, s.gb_code) : s.gb_code, "]"] : null,
          dd.count > 1 ? ` ×${dd.count}` : null, s.source_line ? ["  ", h("code", null, s.source_line)] : null,
          s.hints && s.hints.length ? h("div", { class: "cx-muted" }, `hint: ${s.hints[0]}`) : null,
          s.ran_as_python ? h("div", { class: "cx-muted" }, s.ran_as_python) : null);
        if (s.filename && s.lineno) this.decorate(li, [m.origin(`${s.filename}:${s.lineno}`)], null);
        list.append(li);
      });
      box.append(h("details", { class: "cx-sec", open: true }, h("summary", null, `Graph breaks: what to fix (${fix.length} site${fix.length > 1 ? "s" : ""})`), list));
    }
    const rec = (rep.clinic && rep.clinic.recompiles) || [];
    if (rec.length) {
      const list = h("ul", { class: "cx-list cx-recompiles" });
      rec.forEach((r, i) => {
        const dd = (d.recompiles || [])[i] || {};
        const li = h("li", null, dd.one_line || r.reason_text || r.compile_id);
        if (dd.origin) this.decorate(li, [m.origin(dd.origin)], null);
        list.append(li);
      });
      box.append(h("details", { class: "cx-sec", open: rec.length <= 4 }, h("summary", null, `Recompiles (${rec.length})`), list));
    }
    for (const f of rep.findings || []) {
      box.append(h("div", { class: "cx-missing cx-finding" }, h("b", null, `torch.compile differs from a plain run${f.compile_id ? ` [${f.compile_id}]` : ""}: `), f.message, f.hint ? h("span", { class: "cx-muted" }, ` ${f.hint}`) : null));
    }
    for (const note of cap.notes || []) box.append(h("div", { class: "cx-missing" }, h("b", null, "Note: "), note));
    for (const p of [...(cap.problems || []), ...(rep.problems || [])]) {
      box.append(h("div", { class: "cx-bad cx-problem" }, h("b", null, `The explorer could not ${p.where}: `), (p.message || "").split("\n")[0]));
    }
    const other = (cap.other_artifacts || []).filter((a) => !String(a.why || "").startsWith("dropped"));
    if (other.length) {
      box.append(h("details", { class: "cx-sec" }, h("summary", null, `Other artifacts torch emitted that the explorer does not show (${other.length})`),
        h("ul", { class: "cx-list" }, other.map((a) => h("li", null, h("code", null, a.name), a.compile_id ? ` [${a.compile_id}]` : "", `: ${a.count} record(s), ${num(a.size)} characters`)))));
    }
    const timing = this.timingSection();
    if (timing) box.append(timing);
    return box;
  }

  findings(cid, stageId) {
    return (this.m.report.findings || []).filter((f) => f.compile_id === cid && f.stage === stageId)
      .map((f) => h("div", { class: "cx-missing cx-finding" }, h("b", null, "torch.compile differs from a plain run: "), f.message, f.hint ? h("span", { class: "cx-muted" }, ` ${f.hint}`) : null));
  }

  // ---- toolbar: compilation, stepping, presets, kernel actions ----
  renderToolbar() {
    const m = this.m, tb = this.toolbar;
    const cidSel = h("select", { class: "cx-comp-pick", "aria-label": "compilation (both panes)" });
    for (const [i, c] of m.comps.entries()) cidSel.append(h("option", { value: c.compile_id }, (m.views[i] || {}).label || c.compile_id));
    cidSel.value = this.panes[1].cid;
    cidSel.addEventListener("change", () => { for (const p of this.panes) p.set({ cid: cidSel.value, diff: null }); });
    this.cidSel = cidSel;
    this.stepLabel = h("span", { class: "cx-step-label", "aria-live": "polite" });
    const prev = h("button", { type: "button", class: "cx-btn cx-prev", title: "Previous stage (←)", onclick: () => this.step(-1) }, "◀ Previous");
    const next = h("button", { type: "button", class: "cx-btn cx-next", title: "Next stage (→)", onclick: () => this.step(1) }, "Next ▶");
    const presets = h("span", { class: "cx-presets" });
    // pairs worth seeing side by side (their names come from the registry)
    for (const [l, r] of [["source", "graph"], ["original_bytecode", "rewritten_bytecode"], ["graph", "kernels"], ["ir_pre_fusion", "ir_post_fusion"]]) {
      if (!m.byId.has(l) || !m.byId.has(r)) continue;
      presets.append(h("button", { type: "button", class: "cx-btn cx-preset", onclick: () => { this.panes[0].set({ stage: l, diff: null }); this.panes[1].set({ stage: r, diff: null }); } },
        `${m.byId.get(l).title} | ${m.byId.get(r).title}`));
    }
    const explain = h("button", { type: "button", class: "cx-btn", "aria-pressed": String(this.showExplain), title: "Show or hide each stage's explanation" }, "Explanations");
    explain.addEventListener("click", () => { this.showExplain = !this.showExplain; explain.setAttribute("aria-pressed", String(this.showExplain)); for (const p of this.panes) p.explain.hidden = !this.showExplain; });
    const help = h("span", { class: "cx-muted cx-keys" }, "Keys: ← → step through the stages · ↑ ↓ move along a pane's lines · Enter follows a line · Esc clears");
    tb.replaceChildren(
      h("div", { class: "cx-row" }, h("label", { class: "cx-lbl" }, "Compilation ", cidSel),
        h("span", { class: "cx-stepper", role: "group", "aria-label": "step through the stages" }, prev, this.stepLabel, next), explain),
      h("div", { class: "cx-row" }, h("span", { class: "cx-muted" }, "Side by side: "), presets, help));
    if (this.host.kernel) tb.append(this.kernelActions());
    this.updateStep();
  }

  kernelActions() {
    // offered only where a kernel is connected (the widget); the page has none
    const box = h("div", { class: "cx-kernel-actions" });
    const input = h("input", { type: "text", class: "cx-why-input", placeholder: "f(torch.randn(16))", "aria-label": "a call to check against the guards", size: "22" });
    const out = h("pre", { class: "cx-action-out", hidden: true });
    const run = (action, args) => {
      out.hidden = false; out.textContent = "…";
      Promise.resolve(this.host.kernel.call(action, args)).then((r) => { out.textContent = (r && r.text) || ""; }, (e) => { out.textContent = String(e && e.message || e); });
    };
    box.append(h("span", { class: "cx-muted" }, "With the kernel: "),
      h("label", { class: "cx-lbl" }, "why would this call recompile? ", input),
      h("button", { type: "button", class: "cx-btn", onclick: () => run("why", { expr: input.value }) }, "Check guards"),
      h("button", { type: "button", class: "cx-btn", onclick: () => run("save_html", {}) }, "Save as HTML"), out);
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") run("why", { expr: input.value }); e.stopPropagation(); });
    return box;
  }

  stepList(pane) {
    return this.m.stages.filter((s) => (s.scope === "report" ? this.timingFor(pane.cid).length > 0 : this.m.present(pane.cid, s.id)));
  }

  step(delta) {
    const pane = this.active || this.panes[1];
    const list = this.stepList(pane);
    if (!list.length) return;
    const cur = pane.stage.startsWith(KERNEL_PREFIX) ? "kernels" : pane.stage;
    let i = list.findIndex((s) => s.id === cur);
    if (i < 0) {
      const order = this.m.stages.findIndex((s) => s.id === cur);
      i = delta > 0 ? list.findIndex((s) => this.m.stages.indexOf(s) > order) - 1 : list.findIndex((s) => this.m.stages.indexOf(s) >= order);
      if (i < -1) i = list.length;
    }
    const j = Math.max(0, Math.min(list.length - 1, i + delta));
    pane.set({ stage: list[j].id, diff: null, mode: "code" });
  }

  updateStep() {
    if (!this.stepLabel || !this.panes.length) return;
    const pane = this.active || this.panes[1];
    const list = this.stepList(pane);
    const cur = pane.stage.startsWith(KERNEL_PREFIX) ? "kernels" : pane.stage;
    const i = list.findIndex((s) => s.id === cur);
    const st = this.m.byId.get(cur);
    this.stepLabel.textContent = `${pane.side} pane · step ${i + 1 || "–"} of ${list.length}: ${st ? st.title : cur}`;
  }

  setActive(pane) {
    if (this.active === pane && pane.el.classList.contains("cx-active")) return;
    this.active = pane;
    for (const p of this.panes) p.el.classList.toggle("cx-active", p === pane);
    this.updateStep();
  }

  changed() {
    this.updateStep();
    if (this.cidSel && this.panes.length && this.panes[0].cid === this.panes[1].cid) this.cidSel.value = this.panes[0].cid;
    this.renderChain();
    if (this.host.onState) this.host.onState(this.state());
  }

  state() {
    return { left: this.panes[0].state(), right: this.panes[1].state(), selection: [...this.sel].map((o) => this.m.origins[o]) };
  }

  applyState(s) {
    if (!s || !this.panes.length) return;
    if (s.comp != null) for (const p of this.panes) p.cid = typeof s.comp === "number" ? (this.m.comps[s.comp] || {}).compile_id : s.comp;
    if (s.left) this.panes[0].set(typeof s.left === "string" ? { stage: s.left, diff: null } : s.left);
    if (s.right) this.panes[1].set(typeof s.right === "string" ? { stage: s.right, diff: null } : s.right);
    if (s.comp != null && !s.left && !s.right) for (const p of this.panes) p.set({});
  }

  // ---- the chain ----
  // mark an element as linked to user lines (or as glue) and register it for lighting
  decorate(el, origins, pane) {
    if (origins === "glue") {
      el.classList.add("cx-glue");
      el.setAttribute("data-glue", "");
      el.title = "came from no user line (glue: guards, wrapper bookkeeping, Dynamo's own code)";
      return;
    }
    if (!origins || !origins.length) return;
    el._o = origins;
    el.classList.add("cx-l");
    const o0 = origins[0];
    if (o0 < this.m.linkedOrigins) el.classList.add("cx-t", `cx-c${o0 % PALETTE}`);
    el.setAttribute("data-origin", this.m.origins[o0]);
    if (origins.length > 1) el.setAttribute("data-origins", JSON.stringify(origins.map((o) => this.m.origins[o])));
    (pane ? pane.linked : (this._headerLinked || (this._headerLinked = []))).push(el);
    if (this.sel.size || this.hover) this.lightOne(el);
  }

  lightOne(el) {
    let s = false, hv = false;
    for (const o of el._o) { if (this.sel.has(o)) s = true; if (this.hover && this.hover.has(o)) hv = true; }
    if (s) el.classList.add("cx-lit");
    if (hv) el.classList.add("cx-hov");
    if (s || hv) this.lit.push(el);
  }

  relight() {
    for (const el of this.lit) el.classList.remove("cx-lit", "cx-hov");
    this.lit = [];
    this.root.classList.toggle("cx-has-sel", this.sel.size > 0);
    if (!this.sel.size && !this.hover) return;
    for (const p of this.panes) for (const el of p.linked) this.lightOne(el);
    for (const el of this._headerLinked || []) this.lightOne(el);
  }

  // pin the chain of `origins` (clicking the element that pinned it again clears it)
  select(origins, from) {
    const again = from && from === this.selFrom && this.sel.size;
    this.sel = new Set(again ? [] : origins || []);
    this.selFrom = this.sel.size ? from : null;
    this.relight();
    this.renderChain();
    if (this.sel.size) for (const p of this.panes) if (!from || !p.el.contains(from)) p.revealChain(this.sel);
    if (this.host.onState) this.host.onState(this.state());
  }

  renderChain() {
    const bar = this.chainBar;
    if (!bar) return;
    const m = this.m;
    if (!this.sel.size) {
      bar.replaceChildren(h("span", { class: "cx-muted" }, m.linkedOrigins
        ? "The chain: click a line of the source (or of any pane) to light up everything that came from the same user line."
        : "The line-level chain is not in this report (no lineage was recorded), so lines are not linked across stages."));
      return;
    }
    const kids = [h("b", null, "Chain: ")];
    for (const o of this.sel) {
      const text = m.originText(o);
      kids.push(h("button", { type: "button", class: `cx-origin cx-l cx-t cx-c${o % PALETTE} cx-lit`, "data-origin": m.origins[o], title: "show this line in the source", onclick: () => this.showSource(o) },
        `${shortPath(splitOrigin(m.origins[o])[0])}:${splitOrigin(m.origins[o])[1]}`, text ? h("code", null, ` ${text}`) : null));
    }
    const cid = (this.active || this.panes[1]).cid;
    const chain = m.chain(cid);
    const counts = new Map();
    for (const o of this.sel) {
      for (const [key, line] of chain.get(o) || []) {
        const stage = key.split(":")[0];
        let c = counts.get(stage);
        if (!c) counts.set(stage, (c = { lines: new Set(), kernels: new Set() }));
        c.lines.add(`${key}|${line}`);
        if (stage === "kernels") c.kernels.add(key.slice(8));
      }
    }
    kids.push(h("span", { class: "cx-muted" }, `→ in ${cid}:`));
    if (!counts.size) kids.push(h("span", { class: "cx-muted" }, "nothing else (no later stage came from it)"));
    for (const s of m.stages) {
      const c = counts.get(s.id);
      if (!c) continue;
      const n = c.lines.size, label = s.id === "kernels" ? `${n} line${n > 1 ? "s" : ""} in ${c.kernels.size} kernel${c.kernels.size > 1 ? "s" : ""}` : `${n} line${n > 1 ? "s" : ""}`;
      kids.push(h("button", { type: "button", class: "cx-btn cx-hop", "data-stage": s.id, title: `show ${s.title} in the other pane`, onclick: () => this.showStage(s.id, cid) },
        s.title, h("span", { class: "cx-count" }, label)));
    }
    kids.push(h("button", { type: "button", class: "cx-btn cx-clear", title: "clear (Esc)", onclick: () => this.select([]) }, "✕"));
    bar.replaceChildren(...kids);
  }

  showStage(stageId, cid) {
    // the pane that is not showing the source shows the stage
    const pane = this.panes.find((p) => p.stage !== "source") || this.panes[1];
    pane.set({ stage: stageId, cid, diff: null, mode: "code" });
    pane.revealChain(this.sel);
  }

  showSource(o) {
    let pane = this.panes.find((p) => p.stage === "source");
    if (!pane) { pane = this.panes[0]; pane.set({ stage: "source", diff: null }); }
    pane.revealChain(new Set([o]));
  }

  wire() {
    const root = this.root;
    const linkedOf = (t) => (t && t.closest ? t.closest(".cx-l, .cx-glue") : null);
    root.addEventListener("mouseover", (e) => {
      const el = linkedOf(e.target);
      const o = el && el._o ? new Set(el._o) : null;
      if ((o && this.hover && o.size === this.hover.size && [...o].every((x) => this.hover.has(x))) || (!o && !this.hover)) return;
      this.hover = o;
      this.relight();
    });
    root.addEventListener("mouseleave", () => { if (this.hover) { this.hover = null; this.relight(); } });
    root.addEventListener("click", (e) => {
      if (e.target.closest("button, a, select, input, summary, .cx-fold")) return;
      const el = linkedOf(e.target);
      if (!el) return;
      if (el.classList.contains("cx-glue")) { this.select([]); this.chainBar.replaceChildren(h("span", { class: "cx-muted" }, "This line came from no user line: it is glue (guards, wrapper bookkeeping, Dynamo's own code).")); return; }
      this.select(el._o, el);
    });
    root.addEventListener("keydown", (e) => this.onKey(e));
  }

  onKey(e) {
    const t = e.target, tag = (t.tagName || "").toLowerCase();
    if (["input", "select", "textarea"].includes(tag)) { if (e.key !== "Escape") e.stopPropagation(); return; }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const block = t.closest && t.closest(".cx-code") ? t.closest(".cx-code")._block : null;
    let handled = true;
    switch (e.key) {
      case "ArrowRight": this.step(1); break;
      case "ArrowLeft": this.step(-1); break;
      case "ArrowDown": case "ArrowUp":
        if (!block) { handled = false; break; }
        {
          const el = block.moveCursor(e.key === "ArrowDown" ? 1 : -1);
          this.hover = el && el._o ? new Set(el._o) : null;
          this.relight();
        }
        break;
      case "Enter": {
        if (!block || !block.cursor) { handled = false; break; }
        const el = block.lineEl(block.cursor);
        if (el && el._o) this.select(el._o, el);
        break;
      }
      case "Escape": this.hover = null; this.select([]); break;
      default: handled = false;
    }
    if (handled) { e.preventDefault(); e.stopPropagation(); }
  }

  // ---- pictures ----
  picture(pane, stageId) {
    const m = this.m, v = m.view(pane.cid);
    const pid = (v.pictures || {})[stageId];
    if (!pid) return [h("p", { class: "cx-muted cx-nopic" }, (v.no_picture || {})[stageId] || "No picture for this graph.")];
    const svg = m.pictures[pid];
    if (svg === undefined) {
      return [h("p", { class: "cx-muted cx-nopic" }, this.host.kernel ? "Drawing the picture (Graphviz runs in the kernel)…" : "The picture was not drawn (no kernel is connected).")];
    }
    if (typeof svg !== "string" || !svg.startsWith("<svg")) return [h("p", { class: "cx-muted cx-nopic" }, String(svg))];
    const el = parseSvg(svg);
    if (!el) return [h("p", { class: "cx-muted cx-nopic" }, "The picture could not be read.")];
    // nodes carry their FX node's chain: <g class="node"><title>NAME</title>
    const byElement = new Map();
    const key = `${stageId}:0`, lin = m.lineage[pane.cid];
    const els = lin && lin.elements && lin.elements[key];
    if (els) for (const [line, name] of Object.entries(els)) byElement.set(name, Number(line));
    for (const g of el.querySelectorAll("g.node")) {
      const t = g.querySelector("title");
      const line = t ? byElement.get(t.textContent) : undefined;
      if (line) this.decorate(g, m.linkOf(pane.cid, key, line), pane);
    }
    const zoom = h("span", { class: "cx-seg" });
    let scale = 1;
    const w0 = el.getAttribute("width"), h0 = el.getAttribute("height");
    const setScale = (s) => {
      scale = s;
      if (s === 0) { el.setAttribute("width", "100%"); el.removeAttribute("height"); return; }
      for (const [a, v0] of [["width", w0], ["height", h0]]) if (v0) el.setAttribute(a, `${parseFloat(v0) * s}pt`);
    };
    for (const [label, f] of [["−", () => setScale(scale / 1.25 || 0.8)], ["+", () => setScale((scale || 1) * 1.25)], ["fit", () => setScale(0)]]) zoom.append(h("button", { type: "button", onclick: f }, label));
    return [zoom, h("div", { class: "cx-svg" }, el)];
  }

  fetchPictures() {
    const want = [];
    for (const v of this.m.views) for (const pid of Object.values(v.pictures || {})) if (!(pid in this.m.pictures)) want.push(pid);
    if (!want.length) return;
    Promise.resolve(this.host.kernel.call("pictures", { ids: [...new Set(want)] })).then((r) => {
      Object.assign(this.m.pictures, (r && r.pictures) || {});
      for (const p of this.panes) if (p.mode === "picture") p.render();
    }, () => {});
  }

  // ---- timing ----
  timingFor(cid) {
    const t = this.m.report.timing;
    return t && t.graphs ? t.graphs.filter((g) => g.compile_id === cid) : [];
  }

  timingTable(graphs) {
    const table = h("table", { class: "cx-table cx-timing" }, h("tr", null, ["graph", "eager", "compiled", "speedup", "compile time", "break-even calls"].map((x) => h("th", null, x))));
    for (const g of graphs) {
      const sp = g.speedup;
      table.append(h("tr", null, h("td", null, g.label || g.compile_id), h("td", null, fmtS(g.eager && g.eager.median_s), g.eager ? h("span", { class: "cx-muted" }, ` ±${(g.eager.iqr_pct || 0).toFixed(0)}%`) : null),
        h("td", null, fmtS(g.compiled && g.compiled.median_s), g.compiled ? h("span", { class: "cx-muted" }, ` ±${(g.compiled.iqr_pct || 0).toFixed(0)}%`) : null),
        h("td", { class: sp != null && sp < 1 ? "cx-slow" : "" }, sp != null ? `${sp.toFixed(2)}x` : "—"), h("td", null, fmtS(g.compile_time_s)),
        h("td", null, g.break_even_calls != null ? num(Math.ceil(g.break_even_calls)) : "never")));
    }
    return table;
  }

  timingPane(cid) {
    const graphs = this.timingFor(cid);
    if (!graphs.length) {
      const why = this.m.report.timing ? "no graph of this compilation was timed." : "timing was not asked for (explore(..., time=True), %%compile without --no-time, run --time).";
      return [h("div", { class: "cx-missing" }, h("b", null, "Not timed: "), why)];
    }
    const out = [this.timingTable(graphs)];
    for (const g of graphs) {
      for (const w of g.warnings || []) out.push(h("div", { class: "cx-missing" }, w));
      if (g.kernels && g.kernels.length) {
        const kt = h("table", { class: "cx-table cx-ktimes" }, h("tr", null, ["kernel", "time", "share", "bandwidth"].map((x) => h("th", null, x))));
        for (const k of g.kernels) {
          const bar = h("span", { class: "cx-bar" });
          bar.style.width = `${Math.max(1, Math.min(100, k.share_pct || 0))}%`;
          kt.append(h("tr", null, h("td", null, h("code", null, k.name)), h("td", null, fmtS(k.time_s)),
            h("td", { class: "cx-barcell" }, bar, h("span", null, k.share_pct != null ? ` ${k.share_pct.toFixed(1)}%` : "")),
            h("td", null, k.bandwidth_gbs != null ? `${k.bandwidth_gbs.toFixed(2)} GB/s${k.peak_pct != null ? ` (${k.peak_pct.toFixed(0)}% of peak)` : ""}` : "")));
        }
        out.push(kt);
      }
      if (g.kernels_note) out.push(h("p", { class: "cx-muted" }, g.kernels_note));
    }
    return out;
  }

  timingSection() {
    const t = this.m.report.timing, modes = this.m.report.comparisons || [];
    if (!t && !modes.length) return null;
    const d = h("details", { class: "cx-sec cx-timing-sec" });
    let title = "Eager vs compiled";
    if (t && t.graphs) {
      const sp = t.graphs.filter((g) => g.speedup != null).map((g) => `${g.compile_id || g.label}: ${g.speedup.toFixed(2)}x`);
      if (sp.length) title += ` (${sp.join(", ")})`;
      if (t.warnings && t.warnings.length) title += `, ${t.warnings.length} warnings`;
    }
    d.append(h("summary", null, title));
    if (t && t.graphs && t.graphs.length) d.append(this.timingTable(t.graphs));
    if (t) for (const w of t.warnings || []) d.append(h("div", { class: "cx-missing" }, w));
    if (modes.length) {
      const mt = h("table", { class: "cx-table" }, h("tr", null, ["mode", "compile time", "eager", "compiled", "speedup", "spread", "note"].map((x) => h("th", null, x))));
      for (const r of modes) {
        mt.append(h("tr", null, h("td", null, r.mode), h("td", null, fmtS(r.compile_time_s)), h("td", null, fmtS(r.eager_s)), h("td", null, fmtS(r.compiled_s)),
          h("td", null, r.speedup != null ? `${r.speedup.toFixed(2)}x` : "—"), h("td", null, r.spread_pct != null ? `${r.spread_pct.toFixed(0)}%` : ""),
          h("td", null, r.error || (r.notes || []).join("; "))));
      }
      d.append(mt);
    }
    return d;
  }
}

const SVG_DROP = new Set(["script", "foreignobject", "image", "iframe", "object", "embed", "style", "use", "a"]);

function parseSvg(text) {
  // XML parsing runs no script; dangerous elements and attributes are dropped again here
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  if (!svg || svg.nodeName.toLowerCase() !== "svg" || doc.getElementsByTagName("parsererror").length) return null;
  const walk = (node) => {
    for (const child of [...node.children]) {
      if (SVG_DROP.has(child.localName.toLowerCase())) {
        if (child.localName.toLowerCase() === "a") child.replaceWith(...child.childNodes); else child.remove();
        continue;
      }
      for (const attr of [...child.attributes]) {
        const n = attr.name.toLowerCase();
        if (n.startsWith("on") || n === "href" || n === "xlink:href" || /javascript:/i.test(attr.value)) child.removeAttribute(attr.name);
      }
      walk(child);
    }
  };
  for (const attr of [...svg.attributes]) if (attr.name.toLowerCase().startsWith("on")) svg.removeAttribute(attr.name);
  walk(svg);
  return document.importNode(svg, true);
}

// ---------------------------------------------------------------- entry points

// The standalone page and tests: mount a view of `payload` into `el`.
// host: {kernel: {call(action, args) -> Promise}} where a kernel is connected (else none),
//       onState(state) after each change, and subscribe(fn) to receive state from outside.
export function mount(el, payload, host = {}) {
  const t0 = typeof performance !== "undefined" ? performance.now() : 0;
  let view;
  try {
    view = new View(el, payload, host);
  } catch (err) {
    el.replaceChildren(h("div", { class: "cx-bad cx-error" }, `compile-explorer could not draw this report: ${err && err.message}`));
    el.setAttribute("data-ready", "error");
    return { destroy() {} };
  }
  if (host.subscribe) host.subscribe((s) => view.applyState(s));
  const ms = typeof performance !== "undefined" ? performance.now() - t0 : 0;
  el.setAttribute("data-ready", "1");
  if (!view.m.deferred) el.setAttribute("data-complete", "1");
  el.setAttribute("data-render-ms", ms.toFixed(1)); // mount() alone
  if (typeof performance !== "undefined") el.setAttribute("data-ready-ms", performance.now().toFixed(1)); // since navigation
  el.setAttribute("data-rendered-at", String(Date.now()));
  el._cxView = view;
  return { view, destroy() { view.destroy(); } };
}

// The standalone page: the payload is in the script element #cx-payload, as JSON or, for a big
// report, as gzip + base64 (data-encoding="gzip+base64"), unpacked by the browser itself.
export async function mountPage(root, script) {
  try {
    return mount(root, await readPayload(script.textContent, script.dataset.encoding));
  } catch (err) {
    root.replaceChildren(h("div", { class: "cx-bad cx-error" }, `compile-explorer could not read this report: ${err && err.message}`));
    root.setAttribute("data-ready", "error");
    return null;
  }
}

// The payload as text (JSON), base64 text of gzip ("gzip+base64"), or bytes (a widget's
// binary buffer: a DataView) of UTF-8 JSON or of gzip ("gzip").
async function readPayload(data, encoding) {
  let bytes;
  if (typeof data === "string") {
    if (encoding !== "gzip+base64") return JSON.parse(data);
    bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  } else if (data instanceof DataView || ArrayBuffer.isView(data)) {
    bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  } else if (data instanceof ArrayBuffer) {
    bytes = new Uint8Array(data);
  } else throw new Error("no report arrived");
  if (encoding === "gzip" || encoding === "gzip+base64") {
    if (typeof DecompressionStream !== "function") throw new Error("this browser cannot unpack it (no DecompressionStream); open the report in a current browser");
    return JSON.parse(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text());
  }
  return JSON.parse(new TextDecoder().decode(bytes));
}

// The anywidget entry: one widget per view; the payload is one JSON string trait.
export default {
  render({ model, el }) {
    const pending = new Map();
    let seq = 0;
    const onMsg = (msg, buffers) => {
      if (!msg || msg.type !== "result" || !pending.has(msg.id)) return;
      const [ok, fail] = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.ok) ok({ ...msg, buffers: buffers || [] }); else fail(new Error(msg.text || "the kernel could not do it"));
    };
    model.on("msg:custom", onMsg);
    const subs = [];
    const onSel = () => { const s = model.get("selection"); if (s && s.from !== "view") subs.forEach((f) => f(s)); };
    model.on("change:selection", onSel);
    let timer = 0;
    const host = {
      kernel: {
        call(action, args) {
          const id = ++seq;
          return new Promise((ok, fail) => { pending.set(id, [ok, fail]); model.send({ type: "action", id, action, args: args || {} }); });
        },
      },
      onState(state) {
        clearTimeout(timer);
        timer = setTimeout(() => { model.set("selection", { ...state, from: "view" }); model.save_changes(); }, 150);
      },
      subscribe(fn) { subs.push(fn); },
    };
    let handle = null, gone = false;
    el.append(h("div", { class: "cx-muted" }, "compile-explorer: drawing the report…"));
    const t0 = Date.now();
    readPayload(model.get("payload"), model.get("payload_encoding")).then((payload) => {
      if (gone) return;
      el.setAttribute("data-arrived-ms", String(t0 - (model.get("made_at") || 0) * 1000)); // the view made -> here
      el.setAttribute("data-decode-ms", String(Date.now() - t0));
      el.replaceChildren();
      handle = mount(el, payload, host);
      const made = model.get("made_at");
      if (made) el.setAttribute("data-latency-ms", String(Date.now() - made * 1000));
      const s0 = model.get("selection");
      if (s0 && s0.from !== "view" && handle.view) handle.view.applyState(s0);
    }, (err) => {
      el.replaceChildren(h("div", { class: "cx-bad cx-error" }, `compile-explorer could not read this report: ${err && err.message}`));
      el.setAttribute("data-ready", "error");
    });
    return () => {
      gone = true;
      model.off("msg:custom", onMsg);
      model.off("change:selection", onSel);
      clearTimeout(timer);
      if (handle) handle.destroy();
    };
  },
};
