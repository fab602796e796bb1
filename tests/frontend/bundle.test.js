// The committed bundle (explorer/present/frontend/dist/explorer.js, what users' widgets and pages run) is what
// `npm run build` makes of the sources now: a change to src without a rebuild fails here (and so CI).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { bundle, OUT, ROOT } from "../../build-frontend.js";

test("the committed front-end bundle is a fresh build of its sources (else: npm run build, and commit it)", async () => {
  const fresh = await bundle();
  let committed;
  try {
    committed = readFileSync(join(ROOT, OUT), "utf8");
  } catch (err) {
    assert.fail(`${OUT} is missing (${err.code}): npm run build writes it; commit it`);
  }
  if (committed === fresh) return;
  const a = committed.split("\n"),
    b = fresh.split("\n");
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  assert.fail(
    `${OUT} is not what npm run build makes of the sources: run it and commit the bundle.\n` +
      `First difference, line ${i + 1}:\n  committed: ${a[i]}\n  fresh:     ${b[i]}`,
  );
});
