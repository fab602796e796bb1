// The view model's reader: texts, panes, stepping, what a diff compares.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  diffTargets,
  fill,
  Model,
  sameTarget,
  sideLines,
  stepFrom,
  stepList,
} from "../../explorer/present/frontend/src/model.js";
import { shortPath } from "../../explorer/present/frontend/src/dom.js";
import { graphDiff, payload } from "./payload.js";

test("a wrapper's kernel sources are spliced back into its text", () => {
  const m = new Model(payload());
  assert.equal(m.text("0/0", "output_code.0.code"), "# wrapper\nvoid k() {\n  sin();\n}\ncall()");
  assert.equal(m.text("0/0", "original_bytecode.source"), "def f(x):\n    y = x.sin()\n    return y * 2");
});

test("the chain bar reads a user line's text from the frame's source or a function inlined into it", () => {
  const m = new Model(payload());
  assert.equal(m.originText(m.origin({ file: "/u/p.py", line: 4 })), "y = x.sin()");
  assert.equal(m.originText(m.origin({ file: "/u/m.py", line: 11 })), "return x.cos()");
  assert.equal(m.originText(m.origin({ file: "/u/m.py", line: 12 })), null); // past its last line (the source ends in a newline)
});

test("a kernel's key shows its own part of the kernels pane", () => {
  const m = new Model(payload());
  const [div] = m.blocks("0/0", "kernels", "cpp_fused_sin_0");
  assert.equal(div.data.kernel, "cpp_fused_sin_0");
  assert.equal(m.blocks("0/0", "kernels", "nope"), null);
  assert.equal(m.blocks("0/0", "kernels").length, 2); // no kernel named: the whole stage
  assert.equal(m.blocks("0/0", "graph_break"), null); // absent: the pane says why
  assert.equal(m.why("0/0", "graph_break"), "not a recompile");
  assert.equal(m.why("0/0", "timing"), "timing was not asked for");
  assert.equal(m.missingLabel("graph_break"), "No graph break");
});

test("a deferred report's panes wait for the texts they name, then fill in", () => {
  const m = new Model(payload({ deferred: true }));
  assert.equal(m.pending("0/0", "kernels"), true);
  assert.equal(m.pending("0/0", "output_code"), true); // the wrapper embeds the kernel's source
  assert.equal(m.pending("0/0", "graph"), false);
  m.merge({ compilations: { "0/0": { kernel_sources: ["void k() {}"] } } });
  assert.equal(m.pending("0/0", "kernels"), false);
  assert.equal(m.text("0/0", "kernels.0.source"), "void k() {}");
});

test("stepping goes through the present stages in pipeline order", () => {
  const m = new Model(payload());
  assert.deepEqual(
    stepList(m, "0/0").map((s) => s.id),
    ["source", "graph", "guards", "output_code", "kernels"],
  );
  assert.equal(stepFrom(m, "0/0", "source", 1), "graph");
  assert.equal(stepFrom(m, "0/0", "source", -1), "source"); // stays at the first
  assert.equal(stepFrom(m, "0/0", "kernels", -1), "output_code"); // a kernel's pane is on the kernels stage
  assert.equal(stepFrom(m, "0/0", "graph_break", 1), "output_code"); // an absent stage: its neighbours
  assert.equal(stepFrom(m, "0/0", "graph_break", -1), "guards");
  assert.equal(stepFrom(m, "0/1", "guards", 1), "graph_break"); // present in the recompile
});

test("a diff's sides read back as lines from the texts they name, each with its block and line", () => {
  const m = new Model(payload());
  assert.deepEqual(
    sideLines(m, "0/0", graphDiff.lines[0]).map((l) => [l.text, l.key, l.line]),
    [
      ["def forward(x):", "graph:0", 1],
      ["    sin = x.sin()", "graph:0", 2],
      ["    return sin", "graph:0", 3],
    ],
  );
  const rows = [{ key: "guards:0", rows: ["TENSOR_MATCH  check(x)"] }, { rows: ["Recompiled"] }];
  assert.deepEqual(sideLines(m, "0/0", rows), [
    { text: "TENSOR_MATCH  check(x)", key: "guards:0", line: 1 },
    { text: "Recompiled", key: null, line: 0 }, // words: no block to light
  ]);
  assert.deepEqual(
    sideLines(m, "0/0", [{ key: "output_code:0", src: "output_code.0.code", head: "### inference" }])[0],
    {
      text: "### inference",
      key: null,
      line: 0,
    },
  );
  const deferred = new Model(payload({ deferred: true }));
  assert.equal(sideLines(deferred, "0/0", [{ key: "kernels:k", src: "kernels.0.source" }]), null); // not here yet
});

test("a recompile's diff against what it replaced is the one the payload carries, found by its two sides", () => {
  const m = new Model(payload());
  const pane = { cid: "0/1", stage: "graph" };
  assert.equal(m.diffOf(pane, { cid: "0/0", stage: "graph" }), graphDiff);
  assert.equal(m.diffOf({ cid: "0/1", stage: "guards" }, { cid: "0/0", stage: "guards" }), undefined); // the kernel's
  assert.equal(m.diffOf(pane, { rank: 1, cid: "0/0", stage: "graph" }), undefined); // another rank's
});

test("the view model's words are filled in, a pair picking its singular or plural", () => {
  const m = new Model(payload());
  assert.equal(m.w("vs_rank", { rank: 1, cid: "0/2" }), "vs rank 1's 0/2 (same compilation)");
  assert.equal(fill(["{n} line", "{n} lines"], { n: 1 }), "1 line");
  assert.equal(fill(["{n} line", "{n} lines"], { n: 0 }), "0 lines");
  assert.equal(fill("kept {missing}", {}), "kept {missing}"); // a blank nobody filled stays visible
});

test("the diff picker names the compilation a recompile replaced", () => {
  const m = new Model(payload());
  const targets = diffTargets(m, { cid: "0/1", stage: "graph" }, { cid: "0/0", stage: "source" });
  const label = (t) => (targets.find(([x]) => sameTarget(x, t)) || [])[1];
  assert.equal(label({ cid: "0/0", stage: "source" }), "vs the other pane (0/0 Source)");
  assert.equal(label({ cid: "0/0", stage: "graph" }), "vs 0/0 (same stage) — before the recompile");
  assert.ok(label({ cid: "0/1", stage: "source" }) && !label({ cid: "0/1", stage: "guards" })); // guards: no text
  assert.deepEqual(targets[0][0], { cid: "0/0", stage: "source" }); // an object: nothing to split
});

test("a compiled region's graph, in a list item of the Dynamo graph's pane, is read by its path", () => {
  const p = payload({ deferred: true });
  const region = {
    t: "list",
    cls: "cx-regions",
    items: [
      {
        r: "subgraph_0",
        body: [{ t: "details", s: "graph", body: [{ t: "code", key: "region:0", src: "regions.0.graph.code" }] }],
      },
    ],
  };
  p.views[0].panes.graph.push(region);
  const m = new Model(p);
  assert.equal(m.pending("0/0", "graph"), true); // the regions were not sent first: the pane waits for them
  m.comp("0/0").regions = [{ graph: { code: "def forward(self, x):\n    return (x,)\n" } }];
  assert.equal(m.pending("0/0", "graph"), false);
  assert.equal(m.text("0/0", "regions.0.graph.code"), "def forward(self, x):\n    return (x,)");
});

test("a deferred payload's pane that comes with the rest is offered, waits, and fills in", () => {
  const p = payload({ deferred: true });
  for (const v of p.views) delete v.panes.kernels; // the kernels pane comes with the rest
  const m = new Model(p);
  assert.equal(m.has("0/0", "kernels"), true); // present: the picker offers it, stepping reaches it
  assert.ok(stepList(m, "0/0").some((s) => s.id === "kernels"));
  assert.equal(m.kernelExists("0/0", "cpp_fused_sin_0"), true); // a kernel's pane stays picked
  assert.equal(m.kernelExists("0/0", "nope"), false);
  assert.equal(m.blocks("0/0", "kernels"), null);
  assert.equal(m.pending("0/0", "kernels"), true);
  assert.equal(m.pending("0/0", "kernels", "cpp_fused_sin_0"), true);
  assert.equal(m.pending("0/0", "graph_break"), false); // absent, not waiting: the pane says why
  assert.ok(
    diffTargets(m, { cid: "0/1", stage: "kernels" }, null).some(([t]) =>
      sameTarget(t, { cid: "0/0", stage: "kernels" }),
    ),
  );
  const kernel = { cid: "0/1", stage: "kernels", kernel: "cpp_fused_sin_0" }; // one kernel against the same one
  assert.ok(diffTargets(m, kernel, null).some(([t]) => sameTarget(t, { ...kernel, cid: "0/0" })));
  assert.ok(!sameTarget({ cid: "0/0", stage: "kernels" }, { ...kernel, cid: "0/0" })); // the stage is not one kernel
  const kernels = payload().views[0].panes.kernels;
  m.merge({ compilations: { "0/0": { kernel_sources: ["void k() {}"], panes: { kernels } } } });
  assert.equal(m.pending("0/0", "kernels"), false);
  assert.equal(m.blocks("0/0", "kernels", "cpp_fused_sin_0")[0].data.ref, "cpp_fused_sin_0");
  assert.equal(m.comp("0/0").panes, undefined); // the panes go to the view, not into the report's data
});

test("the rest names the later stages' pictures: they join the view's, beside the first ones", () => {
  const p = payload({ deferred: true });
  p.views[0].pictures = { graph: "p1" };
  const m = new Model(p);
  const view_pictures = {
    pictures: { post_grad_graph: "p2" },
    boxes: { post_grad_graph: { b0: { pid: "p3", title: "layers.0", origins: [] } } },
    no_picture: { aot_forward: "No Graphviz text was captured for this graph." },
  };
  m.merge({ compilations: { "0/0": { kernel_sources: [], view_pictures } } });
  const v = m.view("0/0");
  assert.deepEqual(v.pictures, { graph: "p1", post_grad_graph: "p2" });
  assert.equal(v.boxes.post_grad_graph.b0.pid, "p3");
  assert.equal(v.no_picture.aot_forward, "No Graphviz text was captured for this graph.");
  assert.equal(m.comp("0/0").view_pictures, undefined); // the view's, not the report's data
});

test("the chain bar names a user line of a notebook cell by its cell, as the other views do", () => {
  const p = payload();
  p.report.clinic = { cells: { "/tmp/ipykernel_7/3829100556.py": "cell [5]" } };
  p.labels.ui = { ...p.labels.ui, cell_line: "{cell}, line {line}" };
  const m = new Model(p);
  assert.equal(m.placeText("/tmp/ipykernel_7/3829100556.py", 3, shortPath), "cell [5], line 3");
  assert.equal(m.placeText("/a/b/c/p.py", 4, shortPath), "c/p.py:4"); // any other file as before
});
