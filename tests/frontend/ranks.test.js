// A distributed job's ranks: the same compilation across ranks, rank-to-rank diff sources, what a diff of
// two ranks writes away, and one chain shared by every rank's Model.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Model } from "../../explorer/present/frontend/src/model.js";
import {
  normRank,
  parseTarget,
  rankDiffLines,
  rankTarget,
  rankTargets,
  sameCompilation,
} from "../../explorer/present/frontend/src/ranks.js";
import { payload } from "./payload.js";

// rank 1 broke in step, so its compile ids after it shift (present/ranks.py's "compilations")
const info = {
  rank: 0,
  ranks: [
    { rank: 0, status: "ok", label: "rank 0" },
    { rank: 1, status: "ok", label: "rank 1" },
    { rank: 2, status: "missing", label: "rank 2 (no report)" },
  ],
  compilations: [
    { key: "step@t.py:10#0", ids: { 0: "0/0", 1: "0/0" } },
    { key: "resume@t.py:15#0", ids: { 1: "1/0" } },
    { key: "loss@t.py:30#0", ids: { 0: "1/0", 1: "2/0" } },
  ],
};

test("the same compilation on another rank is matched by frame, not by compile id", () => {
  assert.equal(sameCompilation(info, 0, "1/0", 1), "2/0"); // loss: 1/0 on rank 0 is 2/0 on rank 1
  assert.equal(sameCompilation(info, 1, "2/0", 0), "1/0");
  assert.equal(sameCompilation(info, 1, "1/0", 0), undefined); // rank 0 never compiled the resume function
  assert.equal(sameCompilation(info, 0, "0/0", 0), "0/0");
});

test("a pane's diff picker offers the same compilation on each other rank that compiled it", () => {
  assert.deepEqual(rankTargets(info, 0, "1/0", "graph"), [["@1:2/0|graph", "vs rank 1's 2/0 (same compilation)"]]);
  assert.deepEqual(rankTargets(info, 1, "1/0", "graph"), []); // only rank 1 has it
  assert.deepEqual(rankTargets(null, 0, "0/0", "graph"), []); // a single-rank report
  assert.deepEqual(parseTarget(rankTarget(1, "2/0", "kernel:cpp_fused_0")), {
    rank: 1,
    cid: "2/0",
    key: "kernel:cpp_fused_0",
  });
  assert.deepEqual(parseTarget("0/1|graph"), { rank: null, cid: "0/1", key: "graph" });
});

test("each rank's device index and object ids are written away, as the text's diff_ranks does", () => {
  // the same strings through distributed/compare.py's _norm give these
  assert.equal(normRank('x: "f32[4][1]cuda:1" = y.to(device=1)'), 'x: "f32[4][1]cuda" = y.to(device=N)');
  assert.equal(normRank("device(type='cuda', index=3)"), "device(type='cuda', index=N)");
  assert.equal(normRank('___check_obj_id(L["x"], 139812345678912)'), '___check_obj_id(L["x"], <id>)');
  assert.equal(normRank("cuda:0 mps:2 xcuda:1 123456"), "cuda mps xcuda:1 123456");
});

test("two ranks' panes diff normalised; two compilations of one rank as they are", () => {
  const p0 = payload(),
    p1 = payload();
  p0.report.capture.compilations[0].graph.code = "def forward(x):\n    y = x.to('cuda:0')\n    return y";
  p1.report.capture.compilations[0].graph.code = "def forward(x):\n    y = x.to('cuda:1')\n    return y.sin()";
  const m0 = new Model(p0, null, 0);
  const m1 = new Model(p1, m0.shared, 1);
  const [a, b] = rankDiffLines(m1, parseTarget("@1:0/0|graph"), m0, "0/0", "graph");
  assert.deepEqual(
    a.map((x) => x.text),
    ["def forward(x):", "    y = x.to('cuda')", "    return y.sin()"],
  );
  assert.deepEqual(
    b.map((x) => x.text),
    ["def forward(x):", "    y = x.to('cuda')", "    return y"],
  );
  assert.equal(a[1].key, "graph:0"); // each line still names its block and line: the chain lights it
  const [c] = rankDiffLines(m0, parseTarget("0/0|graph"), m0, "0/0", "graph");
  assert.equal(c[1].text, "    y = x.to('cuda:0')");
});

test("every rank's Model indexes one list of user lines, so a pinned line stays lit across ranks", () => {
  const m0 = new Model(payload(), null, 0);
  const m1 = new Model(payload(), m0.shared, 1);
  const o = m1.origin("/u/other.py:7"); // a line only rank 1's source shows
  assert.equal(m0.origin("/u/other.py:7"), o);
  assert.deepEqual(m1.linkOf("0/0", "graph:0", 2), [0]);
  assert.equal(m0.origins[0], "/u/p.py:4");
  assert.equal(m1.rank, 1);
  assert.equal(new Model(payload()).rank, null); // a single-rank report
});
