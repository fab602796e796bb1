// A small payload in the shape present/payload.py builds (two compilations of one frame, the
// second a recompile; a kernel; a wrapper that embeds it; a chain), for the front end's tests.

const code = (key, src, lang, more = {}) => ({ t: "code", key, src, lang, ...more });

// a few of the view model's words (present/words.py FRONT): the views fill them in
export const UI = {
  vs_other_pane: "vs the other pane ({cid} {title})",
  vs_compilation: "vs {cid} (same stage)",
  vs_replaced: "vs {cid} (same stage) — before the recompile",
  vs_stage: "vs {title} (this compilation)",
  vs_rank: "vs rank {rank}'s {cid} (same compilation)",
  kernel_title: "kernel {ref}",
  n_lines: ["{n} line", "{n} lines"],
  in_kernels: ["{lines} in {n} kernel", "{lines} in {n} kernels"],
};

// 0/1's graph against 0/0's (present/diff_view.py): `mul = sin * 2` replaces `return sin`, then `return mul`
export const graphDiff = {
  t: "diff",
  a: { cid: "0/0", stage: "graph" },
  b: { cid: "0/1", stage: "graph" },
  lines: [[{ key: "graph:0", src: "graph.code" }], [{ key: "graph:0", src: "graph.code" }]],
  del: "− 0/0 Graph",
  add: "+ 0/1 Graph",
  counts: "2 added, 1 removed, 2 unchanged lines",
  rows: [
    ["=", 0, 0, 2],
    ["~", 2, 2, 1, [[4, 3]]],
    ["+", 3, 1],
  ],
};

export function payload({ deferred = false } = {}) {
  const stages = ["source", "graph", "guards", "graph_break", "output_code", "kernels", "timing"].map((id) => ({
    id,
    title: id[0].toUpperCase() + id.slice(1),
    kind: id === "graph_break" ? "break" : id === "output_code" ? "code" : id,
    field: id,
    part: "dynamo",
    scope: id === "timing" ? "report" : "compilation",
    explanation: `what ${id} is`,
  }));
  const kernel = {
    name: "cpp_fused_sin_0",
    language: "cpp",
    graph_kind: "inference",
    source: "void k() {\n  sin();\n}",
  };
  const comp = (cid, graphCode) => ({
    compile_id: cid,
    frame: { name: "f", filename: "/u/p.py", lineno: 3 },
    original_bytecode: {
      source: "def f(x):\n    y = x.sin()\n    return y * 2\n",
      filename: "/u/p.py",
      firstlineno: 3,
    },
    inlined: [{ name: "helper", filename: "/u/m.py", firstlineno: 10, source: "def helper(x):\n    return x.cos()\n" }],
    graph: { code: graphCode, num_nodes: 3 },
    guards: [{ kind: "TENSOR_MATCH", code: "check(x)", filename: "/u/p.py", lineno: 4 }],
    output_code: [
      { graph_kind: "inference", code: null, code_parts: ["# wrapper\n", "\ncall()\n"], kernel_refs: [kernel.name] },
    ],
    kernels: [deferred ? { ...kernel, source: undefined } : { ...kernel }],
  });
  const panes = {
    source: [
      { t: "p", r: "f" },
      code("source:0", "original_bytecode.source", "python", { first: 3, linenos: true, file: "/u/p.py" }),
    ],
    graph: [
      { t: "p", r: "3 nodes" },
      { t: "graph", stage: "graph", code: code("graph:0", "graph.code", "python") },
    ],
    guards: [
      { t: "table", key: "guards:0", head: ["kind", "check"], rows: [{ c: ["TENSOR_MATCH", { code: "check(x)" }] }] },
    ],
    output_code: [code("output_code:0", "output_code.0.code", "wrapper", { title: "inference" })],
    kernels: [
      { t: "table", rows: [] },
      {
        t: "div",
        cls: "cx-kernel",
        data: { kernel: kernel.name, ref: kernel.name },
        body: [code(`kernels:${kernel.name}`, "kernels.0.source", "cpp")],
      },
    ],
  };
  const view = (cid, previous, extra = {}) => ({
    cid,
    label: `${cid} f (p.py:3)`,
    present: Object.keys(panes),
    why: { graph_break: "not a recompile" },
    why_report: { timing: "timing was not asked for" },
    kernels: [kernel.name],
    previous,
    panes: { ...panes, ...extra },
  });
  return {
    stages,
    labels: { parts: { dynamo: "Dynamo" }, missing: { graph_break: "No graph break" }, ui: UI },
    header: { chips: [["compilations", 2]], body: [] },
    timing: null,
    deferred,
    report: {
      capture: {
        compilations: [
          comp("0/0", "def forward(x):\n    sin = x.sin()\n    return sin"),
          comp("0/1", "def forward(x):\n    sin = x.sin()\n    mul = sin * 2\n    return mul"),
        ],
      },
    },
    views: [
      view("0/0", null),
      { ...view("0/1", "0/0", { graph_break: [{ t: "p", r: "Recompiled" }] }), diffs: [graphDiff] },
    ],
    lineage: {
      origins: [
        { file: "/u/p.py", line: 4 },
        { file: "/u/p.py", line: 5 },
      ],
      compilations: {
        "0/0": {
          blocks: { "graph:0": [-1, 1, 2], "kernels:cpp_fused_sin_0": [0, 1, 0], "guards:0": [1] },
          elements: {},
          stages: { "graph:0": "graph", "kernels:cpp_fused_sin_0": "kernels", "guards:0": "guards" },
        },
      },
    },
  };
}
