// A line diff (Myers, with the common head and tail cut off first).

export const MAX_DIFF_D = 2000; // edit distance beyond which a line diff gives up (memory ~ D^2)

// [["=", i, j] | ["-", i, -1] | ["+", -1, j], ...] or null when too different
export function diffLines(a, b) {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const ids = new Map();
  const idOf = (s) => {
    let v = ids.get(s);
    if (v === undefined) {
      v = ids.size;
      ids.set(s, v);
    }
    return v;
  };
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
  const n = a.length,
    m = b.length,
    max = n + m;
  if (max === 0) return [];
  const off = max + 1,
    v = new Int32Array(2 * max + 3),
    trace = [];
  for (let d = 0; d <= max; d++) {
    if (d > MAX_DIFF_D) return null;
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]);
      let x = down ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, d, n, m);
    }
  }
  return null;
}

function backtrack(trace, D, n, m) {
  const ops = [];
  let x = n,
    y = m;
  for (let d = D; d > 0; d--) {
    const vv = trace[d],
      base = -d - 1,
      get = (k) => vv[k - base];
    const k = x - y;
    const down = k === -d || (k !== d && get(k - 1) < get(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = get(prevK),
      prevY = prevX - prevK;
    const midX = down ? prevX : prevX + 1,
      midY = midX - k;
    while (x > midX && y > midY) {
      ops.push(["=", x - 1, y - 1]);
      x--;
      y--;
    }
    if (down) ops.push(["+", -1, prevY]);
    else ops.push(["-", prevX, -1]);
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push(["=", x - 1, y - 1]);
    x--;
    y--;
  }
  return ops.reverse();
}

// Which ops a diff shows: every change with `context` unchanged lines around it; the
// rest folds. Returns [[start, end, shown], ...] covering ops in order.
export function hunks(ops, context = 3) {
  const keep = new Uint8Array(ops.length);
  ops.forEach((o, n) => {
    if (o[0] !== "=") for (let d = -context; d <= context; d++) if (ops[n + d]) keep[n + d] = 1;
  });
  const out = [];
  let n = 0;
  while (n < ops.length) {
    let e = n;
    while (e < ops.length && keep[e] === keep[n]) e++;
    out.push([n, e, !!keep[n]]);
    n = e;
  }
  return out;
}

// The changed middle of two lines: [common prefix length, common suffix length].
export function changedSpan(a, b) {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  return [p, s];
}
