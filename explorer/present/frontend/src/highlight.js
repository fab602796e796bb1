// @ts-check
// The one highlighter: a regex per language, run per line as a pane draws it (so a
// 4 MB report costs nothing until a line is on screen). The static copy shows plain text.

const PY_KW = new Set(
  (
    "False None True and as assert async await break class continue def del elif else " +
    "except finally for from global if import in is lambda nonlocal not or pass raise return try while with " +
    "yield"
  ).split(" "),
);
const CPP_KW = new Set(
  (
    "auto bool break case char const constexpr continue default do double else enum " +
    "extern false float for if inline int long namespace nullptr return short signed sizeof static " +
    "static_cast reinterpret_cast struct switch template true typedef typename unsigned using void volatile " +
    "while int64_t int32_t int8_t uint8_t uint32_t uint64_t half bfloat16"
  ).split(" "),
);
const RX_PY = new RegExp(
  [
    String.raw`(#.*$)`,
    String.raw`([rRbBfFuU]{0,2}(?:"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?))`,
    String.raw`(\b\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?j?\b)`,
    String.raw`(@?[A-Za-z_]\w*)`,
  ].join("|"),
  "g",
);
const RX_CPP = new RegExp(
  [
    String.raw`(\/\/.*$|\/\*.*?(?:\*\/|$))`,
    String.raw`("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?)`,
    String.raw`(\b\d[\d.]*(?:[eE][+-]?\d+)?[fFlLuU]*\b)`,
    String.raw`(^\s*#\s*\w+)`,
    String.raw`([A-Za-z_]\w*)`,
  ].join("|"),
  "g",
);
// jump targets: >> (to 3.12), L1: (3.13)
const RX_DIS = /^(\s*\d+)?(\s+>>|\s+L\d+:)?(\s*\d+\s+)([A-Z][A-Z0-9_]*)(.*)$/;

/** @typedef {[string | null, string][]} Tokens */

/** @param {string} line @returns {Tokens} */
function disTokens(line) {
  const m = RX_DIS.exec(line);
  if (!m) return [[null, line]];
  /** @type {Tokens} */
  const out = [];
  if (m[1]) out.push(["t-n", m[1]]);
  if (m[2]) out.push(["t-p", m[2]]);
  out.push(["t-c", m[3]], ["t-k", m[4]]);
  const rest = m[5],
    p = rest.indexOf("(");
  if (p >= 0) out.push([null, rest.slice(0, p)], ["t-s", rest.slice(p)]);
  else out.push([null, rest]);
  return out;
}

/** @param {RegExpExecArray} m @param {string} prevWord */
function pyClass(m, prevWord) {
  if (m[1]) return "t-c";
  if (m[2]) return "t-s";
  if (m[3]) return "t-n";
  const w = m[4];
  if (w[0] === "@") return "t-p";
  if (PY_KW.has(w)) return "t-k";
  return prevWord === "def" || prevWord === "class" ? "t-f" : null;
}

/** @param {RegExpExecArray} m */
function cppClass(m) {
  if (m[1]) return "t-c";
  if (m[2]) return "t-s";
  if (m[3]) return "t-n";
  if (m[4]) return "t-p";
  return m[5] && CPP_KW.has(m[5]) ? "t-k" : null;
}

// [[class or null, text], ...] covering the whole line
/** @param {string} line @param {string | null} lang @returns {Tokens} */
export function tokens(line, lang) {
  if (lang === "dis") return disTokens(line);
  const rx = lang === "cpp" ? RX_CPP : lang === "python" ? RX_PY : null;
  if (!rx) return [[null, line]];
  /** @type {Tokens} */
  const out = [];
  rx.lastIndex = 0;
  let last = 0,
    m,
    prevWord = "";
  while ((m = rx.exec(line)) !== null) {
    if (m[0] === "") {
      rx.lastIndex++;
      continue;
    }
    if (m.index > last) out.push([null, line.slice(last, m.index)]);
    const cls = lang === "python" ? pyClass(m, prevWord) : cppClass(m);
    if (lang === "python" && m[4]) prevWord = m[4];
    out.push([cls, m[0]]);
    last = rx.lastIndex;
  }
  if (last < line.length) out.push([null, line.slice(last)]);
  return out;
}

/** @param {string | null | undefined} language @returns {string | null} */
export function langOf(language) {
  const l = String(language || "").toLowerCase();
  if (["python", "py", "triton", "halide", "ir"].includes(l)) return "python";
  if (["cpp", "c++", "c", "cuda"].includes(l)) return "cpp";
  if (l === "dis" || l === "wrapper") return l;
  return null;
}

// Per-line languages of a wrapper module: Python outside triple-quoted strings, the
// embedded kernel's language inside them (C++ for cpp_pybinding, Python for triton).
/** @param {string[]} lines @returns {string[]} */
export function wrapperLangs(lines) {
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
