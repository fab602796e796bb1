// A distributed job's ranks: the same compilation across ranks, rank-to-rank diff sources, the rank-to-rank
// diffs a job carries, and one chain shared by every rank's Model.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fill, Model } from "../../explorer/present/frontend/src/model.js";
import { rankDiffOf, rankTargets, sameCompilation } from "../../explorer/present/frontend/src/ranks.js";
import { payload, UI } from "./payload.js";

const w = (k, v) => fill(UI[k], v);

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
  assert.deepEqual(rankTargets(info, 0, { cid: "1/0", stage: "graph" }, w), [
    [{ rank: 1, cid: "2/0", stage: "graph" }, "vs rank 1's 2/0 (same compilation)"],
  ]);
  assert.deepEqual(rankTargets(info, 1, { cid: "1/0", stage: "graph" }, w), []); // only rank 1 has it
  assert.deepEqual(rankTargets(null, 0, { cid: "0/0", stage: "graph" }, w), []); // a single-rank report
  assert.deepEqual(rankTargets(info, 0, { cid: "0/0", stage: "kernels", kernel: "k" }, w)[0][0], {
    cid: "0/0",
    stage: "kernels",
    kernel: "k",
    rank: 1,
  }); // one kernel: the same kernel of the other rank's compilation
});

test("a pane's diff against another rank is the one the job carries for that pair, whichever rank shows it", () => {
  const d = { t: "diff", a: { rank: 1, cid: "2/0", stage: "graph" }, b: { rank: 0, cid: "1/0", stage: "graph" } };
  const job = { ...info, diffs: [d] };
  const pane = (cid, stage) => ({ cid, stage });
  assert.equal(rankDiffOf(job, 0, pane("1/0", "graph"), { rank: 1, cid: "2/0", stage: "graph" }), d);
  assert.equal(rankDiffOf(job, 0, pane("1/0", "guards"), { rank: 1, cid: "2/0", stage: "guards" }), undefined);
  assert.equal(rankDiffOf(job, 1, pane("2/0", "graph"), { rank: 0, cid: "1/0", stage: "graph" }), undefined); // reversed
  assert.equal(rankDiffOf(job, 0, pane("1/0", "graph"), { cid: "2/0", stage: "graph" }), undefined); // this rank's
  assert.equal(rankDiffOf(null, 0, pane("1/0", "graph"), { rank: 1, cid: "2/0", stage: "graph" }), undefined);
});

test("every rank's Model indexes one list of user lines, so a pinned line stays lit across ranks", () => {
  const m0 = new Model(payload(), null, 0);
  const m1 = new Model(payload(), m0.shared, 1);
  const o = m1.origin({ file: "/u/other.py", line: 7 }); // a line only rank 1's source shows
  assert.equal(m0.origin({ file: "/u/other.py", line: 7 }), o);
  assert.deepEqual(m0.places[o], { file: "/u/other.py", line: 7 });
  assert.deepEqual(m1.linkOf("0/0", "graph:0", 2), [0]);
  assert.equal(m0.origins[0], "/u/p.py:4");
  assert.equal(m1.rank, 1);
  assert.equal(new Model(payload()).rank, null); // a single-rank report
});
