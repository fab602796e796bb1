// The highlighter (diffs are computed in Python, present/diff_view.py: tests/test_diff_view.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { langOf, tokens, wrapperLangs } from "../../explorer/present/frontend/src/highlight.js";

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
