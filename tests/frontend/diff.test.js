// Line diffs and the highlighter.
import assert from "node:assert/strict";
import { test } from "node:test";

import { changedSpan, diffLines, hunks } from "../../explorer/present/frontend/src/diff.js";
import { langOf, tokens, wrapperLangs } from "../../explorer/present/frontend/src/highlight.js";

test("a line diff keeps, removes and adds lines in order", () => {
  const ops = diffLines(["a", "b", "c"], ["a", "x", "c", "d"]);
  const text = ops.map(([t, i, j]) => `${t}${t === "+" ? ["a", "x", "c", "d"][j] : ["a", "b", "c"][i]}`);
  assert.deepEqual(text, ["=a", "-b", "+x", "=c", "+d"]);
  assert.ok(diffLines(["same"], ["same"]).every((o) => o[0] === "="));
  assert.deepEqual(diffLines([], []), []);
});

test("unchanged runs fold, changes keep three lines around them", () => {
  const a = Array.from({ length: 20 }, (_, i) => `l${i}`);
  const b = a.slice();
  b[10] = "changed";
  assert.deepEqual(hunks(diffLines(a, b)), [
    [0, 7, false],
    [7, 15, true],
    [15, 21, false],
  ]);
});

test("what changed inside a paired line is its middle", () => {
  assert.deepEqual(changedSpan("x = f(8)", "x = f(16)"), [6, 1]);
  assert.deepEqual(changedSpan("same", "same"), [4, 0]);
});

test("the highlighter covers every character and colours keywords, names, numbers", () => {
  const line = "def forward(self, x):  # 1.5e3 'str'";
  const toks = tokens(line, "python");
  assert.equal(toks.map((t) => t[1]).join(""), line);
  assert.deepEqual(
    toks.filter((t) => t[0]).map((t) => t.join(" ")),
    ["t-k def", "t-f forward", "t-c # 1.5e3 'str'"],
  );
  assert.deepEqual(
    tokens("  4           0 LOAD_FAST     0 (x)", "dis").map((t) => t[0]),
    ["t-n", "t-c", "t-k", null, "t-s"],
  );
  assert.equal(tokens("int a = 1;", "cpp")[0][0], "t-k");
  assert.equal(langOf("triton"), "python");
  assert.deepEqual(wrapperLangs(["x = 1", "src = '''#include <cpp>", "int a;", "'''"]), [
    "python",
    "python",
    "cpp",
    "python",
  ]);
});
