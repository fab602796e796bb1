// The chain: selection, lighting, what the chain bar counts.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  chainCounts,
  countLabel,
  lightOf,
  linkAttrs,
  nextSelection,
} from "../../explorer/present/frontend/src/chain.js";
import { fill, Model } from "../../explorer/present/frontend/src/model.js";
import { payload, UI } from "./payload.js";

test("a line's origins come from the chain: glue, none, or user lines", () => {
  const m = new Model(payload());
  assert.equal(m.linkOf("0/0", "graph:0", 1), "glue");
  assert.deepEqual(m.linkOf("0/0", "graph:0", 3), [1]);
  assert.equal(m.linkOf("0/0", "kernels:cpp_fused_sin_0", 1), null);
  assert.equal(m.linkOf("0/1", "graph:0", 1), null); // no chain recorded for it
});

test("clicking pins a chain; clicking the same element again clears it", () => {
  const el = {},
    other = {};
  let s = nextSelection(new Set(), [0, 1], el, null);
  assert.deepEqual([...s.sel], [0, 1]);
  assert.equal(s.from, el);
  s = nextSelection(s.sel, [0, 1], el, s.from);
  assert.equal(s.sel.size, 0);
  assert.equal(s.from, null);
  s = nextSelection(new Set([0]), [1], other, el);
  assert.deepEqual([...s.sel], [1]);
});

test("an element lights when any of its origins is pinned or hovered", () => {
  assert.deepEqual(lightOf([0, 1], new Set([1]), null), { lit: true, hov: false });
  assert.deepEqual(lightOf([0], new Set(), new Set([0])), { lit: false, hov: true });
  assert.deepEqual(lightOf([2], new Set([1]), new Set([0])), { lit: false, hov: false });
});

test("linked elements carry data-origin and their origin's colour", () => {
  const m = new Model(payload());
  const one = linkAttrs(m, [1]);
  assert.deepEqual(one.attrs, { "data-origin": "/u/p.py:5" });
  assert.deepEqual(one.cls, ["cx-l", "cx-t", "cx-c1"]);
  const two = linkAttrs(m, [0, 1]);
  assert.equal(two.attrs["data-origins"], JSON.stringify(["/u/p.py:4", "/u/p.py:5"]));
  const unseen = m.origin({ file: "/u/p.py", line: 99 }); // a source line nothing came from: linked, not coloured
  assert.equal(linkAttrs(m, [unseen]).attrs["data-origin"], "/u/p.py:99"); // FILE:LINE, made from the object
  assert.deepEqual(linkAttrs(m, [unseen]).cls, ["cx-l"]);
});

test("the chain bar counts lines per stage and kernels", () => {
  const m = new Model(payload());
  const counts = chainCounts(m, "0/0", new Set([0]));
  assert.deepEqual([...counts.keys()].sort(), ["graph", "guards", "kernels"]);
  const w = (k, v) => fill(UI[k], v);
  assert.equal(countLabel("graph", counts.get("graph"), w), "1 line");
  assert.equal(countLabel("kernels", counts.get("kernels"), w), "1 line in 1 kernel");
  assert.equal(chainCounts(m, "0/0", new Set([1])).get("graph").lines.size, 1);
});
