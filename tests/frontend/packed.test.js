// A packed text (present/packed_text.py) reads back exactly: tests/test_packed_text.py packs the same text to
// the same form.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Model } from "../../explorer/present/frontend/src/model.js";
import { unpacked } from "../../explorer/present/frontend/src/packed.js";
import { payload } from "./payload.js";

export const TEXT =
  "buf1 = op1(x)\nbuf2 = op2(buf1)\n\nbuf3 = op3(buf2)  # 007 1e-06\nbuf10 = op3(buf9)  # 007 1e-06\nreturn buf10";
export const PACKED = {
  $lines: {
    t: [
      "buf\u0000 = op\u0000(x)",
      "buf\u0000 = op\u0000(buf\u0000)",
      "",
      "buf\u0000 = op\u0000(buf\u0000)  # \u0000\u0000\u0000 \u0000e-\u0000\u0000",
      "return buf\u0000",
    ],
    l: "0 1 1\n1 2 2 1\n2\n3 3 3 2 0 0 7 1 0 6\n3 7 0 7 0 0 0 0 0 0\n4 10",
  },
};

test("a packed text unpacks to itself, numbers with leading zeros and all", () => {
  assert.equal(unpacked(PACKED), TEXT);
  assert.equal(unpacked("plain text"), "plain text");
  assert.equal(unpacked(undefined), undefined);
});

test("a code block's packed text is read unpacked, once", () => {
  const p = payload();
  p.report.capture.compilations[0].graph.code = PACKED;
  const m = new Model(p);
  assert.equal(m.text("0/0", "graph.code"), TEXT);
  assert.equal(m.text("0/0", "graph.code"), TEXT);
});
