// Whether a kernel answers this view, and the view's actions that need one (explorer/widget.py's ACTIONS).
//
// A widget is drawn wherever its state is: a live notebook, but also a notebook saved with its widgets' state, an
// nbconvert page of it, `marimo export html`, a notebook reopened after its kernel restarted. A message sent there
// reaches no one. So the view asks once when it is drawn ("ping"); kernel actions are offered, pictures drawn and a
// big report's rest fetched only once the kernel has answered; past PING_MS without an answer the view says in one
// line what needs a kernel. A late answer (a kernel busy running other cells answers when they are done) still
// turns them on.

export const PING_MS = 4000;

// The widget's host.kernel. send(content): the widget's model.send; answer(msg, buffers) is called with each
// message from the kernel. state: "asking" until the ping is answered ("up", with the actions this host can do:
// actions) or PING_MS passes ("none"); watch(fn) calls fn() at each change of state.
export function kernelLink(send, { timeoutMs = PING_MS, setTimer = setTimeout, ask = true } = {}) {
  const pending = new Map(),
    watchers = [];
  let seq = 0;
  const link = {
    state: "asking",
    actions: [],
    call(action, args) {
      const id = ++seq;
      return new Promise((ok, fail) => {
        pending.set(id, [ok, fail]);
        try {
          send({ type: "action", id, action, args: args || {} });
        } catch (err) {
          pending.delete(id);
          fail(err);
        }
      });
    },
    answer(msg, buffers) {
      if (!msg || msg.type !== "result" || !pending.has(msg.id)) return;
      const [ok, fail] = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.ok) ok({ ...msg, buffers: buffers || [] });
      else fail(new Error(msg.text || "the kernel could not do it"));
    },
    watch(fn) {
      watchers.push(fn);
      return () => watchers.splice(watchers.indexOf(fn) >>> 0, 1);
    },
    can(action) {
      return link.state === "up" && link.actions.includes(action);
    },
  };
  const become = (state) => {
    if (link.state === state) return;
    link.state = state;
    for (const fn of [...watchers]) fn(state);
  };
  let asked = false;
  // asks whether a kernel answers (once): at once, or when the caller says (`ask: false`, then `link.ask()`)
  link.ask = () => {
    if (asked) return;
    asked = true;
    link.call("ping", {}).then(
      (r) => {
        link.actions = (r && r.actions) || [];
        become("up");
      },
      () => become("none"), // a kernel that answers with an error is not this view's
    );
    setTimer(() => {
      if (link.state === "asking") become("none");
    }, timeoutMs);
  };
  if (ask) link.ask();
  return link;
}

// The View's side (a mixin): what it does when the kernel's state changes.
export const Kernel = {
  // "up": a kernel answered; "asking": not yet; "none": none answered, or there is no kernel at all (the page).
  // A host whose kernel has no state of its own (a stand-in) says by handing it over that it is connected.
  kernelState() {
    const k = this.host.kernel;
    return k ? k.state || "up" : "none";
  },

  kernelUp() {
    return this.kernelState() === "up";
  },

  // none answered (or there is no kernel): what needs one says so
  kernelGone() {
    return this.kernelState() === "none";
  },

  watchKernel() {
    if (!this.host.kernel) return;
    if (this.host.kernel.watch) this._unwatchKernel = this.host.kernel.watch(() => this.kernelChanged());
    // up already (a kernel without states of its own, or one that answered before the view was made): the panes
    // were just drawn knowing it, and drawing them again would double a big view's first draw
    if (this.kernelUp()) this.kernelChanged(false);
  },

  kernelChanged(redraw = true) {
    if (this.kernelUp()) {
      if (this.m.deferred) this.fetchRest();
    }
    if (this.toolbar) this.renderKernelActions();
    // the panes say again what they said about the kernel (a picture, a stage or a diff it sends, the diffs offered)
    if (redraw) for (const p of this.panes) p.render();
  },

  // pictures the kernel drew (the widget's "pictures" state): the panes showing them redraw
  gotPictures(pictures) {
    if (!pictures || !Object.keys(pictures).length) return;
    Object.assign(this.m.pictures, pictures); // one dictionary, shared by every rank's model
    for (const p of this.panes) if (p.mode === "picture") p.render();
  },
};
