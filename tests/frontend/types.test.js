// The front end's types: every source file is checked (// @ts-check; `npm run lint` runs tsc over them), and every
// block kind the view model documents (explorer/present/blocks.py, else viewmodel.py's table) has its typedef, named as the Python
// TypedDicts name it (Block<Kind>), in the union `Block` the renderers take.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { ROOT, SRC } from "../../build-frontend.js";

const TYPES = readFileSync(join(ROOT, SRC, "viewmodel.js"), "utf8");

// the kinds the view model names: explorer/present/blocks.py's TypedDicts (`t: Literal["kind"]`, or `"t": ...` in
// the functional form a kind with a keyword for a key takes) where it exists,
// else viewmodel.py's "Blocks" table (a line of two spaces, a lower-case name, spaces, then `{` or a word)
function documentedKinds() {
  const typed = join(ROOT, "explorer/present/blocks.py");
  if (existsSync(typed)) {
    const kinds = [...readFileSync(typed, "utf8").matchAll(/(?:\bt|"t"): (?:Required\[)?Literal\["([a-z]+)"\]/g)];
    if (kinds.length) return [...new Set(kinds.map((m) => m[1]))];
  }
  const doc = readFileSync(join(ROOT, "explorer/present/viewmodel.py"), "utf8");
  const table = doc.slice(doc.indexOf("Blocks ("), doc.indexOf("Inline runs:"));
  return [...table.matchAll(/^ {2}([a-z]+) {2,}\S/gm)].map((m) => m[1]);
}

const typeName = (kind) => `Block${kind[0].toUpperCase()}${kind.slice(1)}`;

test("every source file of the front end is type-checked (// @ts-check on its first line)", () => {
  const unchecked = readdirSync(join(ROOT, SRC))
    .filter((n) => n.endsWith(".js"))
    .filter((n) => !readFileSync(join(ROOT, SRC, n), "utf8").startsWith("// @ts-check\n"));
  assert.deepEqual(unchecked, []);
});

test("every block kind the view model documents has its typedef, in the union the renderers take", () => {
  const kinds = documentedKinds();
  assert.ok(kinds.length >= 13, `read ${kinds.length} kinds from the view model: ${kinds}`);
  const union = /@typedef \{(BlockP \|[^}]*)\} Block \*\//.exec(TYPES);
  assert.ok(union, "viewmodel.js has no union `Block`");
  const members = union[1].split(/[\s|*]+/).filter(Boolean);
  for (const kind of kinds) {
    const name = typeName(kind);
    const def = new RegExp(`@typedef \\{[^@]*\\bt: "${kind}"[^@]*\\}[\\s*]*${name}\\b`).exec(TYPES);
    assert.ok(def, `no typedef ${name} with t: "${kind}" in ${SRC}/viewmodel.js`);
    assert.ok(members.includes(name), `${name} is not in the union Block`);
  }
  assert.deepEqual(members.sort(), kinds.map(typeName).sort(), "the union Block names a kind viewmodel.py does not");
});
