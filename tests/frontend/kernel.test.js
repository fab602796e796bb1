// Whether a kernel answers the view (kernel.js): the widget offers kernel actions, draws pictures and fetches a big
// report's rest only after an answer, and says what needs a kernel where none answers (a saved notebook, an
// exported page), instead of waiting for ever.
import assert from "node:assert/strict";
import { test } from "node:test";

import { kernelLink } from "../../explorer/present/frontend/src/kernel.js";

// a widget's model.send that records what was sent, and a timer the test fires itself
function fake() {
  const sent = [],
    timers = [];
  const link = kernelLink((c) => sent.push(c), { setTimer: (fn) => timers.push(fn) });
  const states = [];
  link.watch((s) => states.push(s));
  return { link, sent, states, fire: () => timers.forEach((f) => f()) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

test("a kernel that answers the ping turns its actions on", async () => {
  const { link, sent, states } = fake();
  assert.equal(link.state, "asking");
  assert.deepEqual(sent, [{ type: "action", id: 1, action: "ping", args: {} }]);
  link.answer({ type: "result", id: 1, ok: true, actions: ["save_html"] });
  await tick();
  assert.equal(link.state, "up");
  assert.deepEqual(states, ["up"]);
  assert.ok(link.can("save_html") && !link.can("why")); // only what this host said it can do
});

test("where no kernel answers the view says so, and a late answer still turns the actions on", async () => {
  const { link, states, fire } = fake();
  fire();
  assert.equal(link.state, "none");
  assert.ok(!link.can("save_html"));
  link.answer({ type: "result", id: 1, ok: true, actions: ["why", "save_html"] }); // a busy kernel, done now
  await tick();
  assert.equal(link.state, "up");
  assert.deepEqual(states, ["none", "up"]);
});

test("a model that cannot send (no comm) means no kernel at once", async () => {
  const link = kernelLink(
    () => {
      throw new Error("no comm");
    },
    { setTimer: () => {} },
  );
  await tick();
  assert.equal(link.state, "none");
});

test("answers go to their own calls; another view's are not ours", async () => {
  const { link } = fake();
  link.answer({ type: "result", id: 1, ok: true, actions: [] });
  const a = link.call("rest", {}),
    b = link.call("why", { expr: "f(x)" });
  link.answer({ type: "result", id: 99, ok: true });
  link.answer({ type: "result", id: 3, ok: false, text: "NameError: f" });
  link.answer({ type: "result", id: 2, ok: true, encoding: "utf-8" }, ["buf"]);
  assert.deepEqual(await a, { type: "result", id: 2, ok: true, encoding: "utf-8", buffers: ["buf"] });
  await assert.rejects(b, /NameError: f/);
});

test("a view that asks once it is drawn sends nothing before, then one ping however often it asks", async () => {
  const sent = [],
    timers = [];
  const link = kernelLink((c) => sent.push(c), { setTimer: (fn) => timers.push(fn), ask: false });
  assert.equal(link.state, "asking");
  assert.deepEqual(sent, []); // nothing competes with reading the payload
  assert.equal(timers.length, 0); // and no timeout runs yet
  link.ask();
  link.ask();
  assert.deepEqual(sent, [{ type: "action", id: 1, action: "ping", args: {} }]);
  link.answer({ type: "result", id: 1, ok: true, actions: ["rest"] });
  await tick();
  assert.equal(link.state, "up");
  assert.equal(timers.length, 1);
});
