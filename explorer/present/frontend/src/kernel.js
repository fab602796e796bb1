// @ts-check
// Whether a kernel answers this view, and the view's actions that need one (explorer/widget.py's ACTIONS).
//
// A widget is drawn wherever its state is: a live notebook, but also a notebook saved with its widgets' state, an
// nbconvert page of it, `marimo export html`, a notebook reopened after its kernel restarted. A message sent there
// reaches no one. So the view asks once when it is drawn ("ping"); kernel actions are offered, pictures drawn and a
// big report's rest fetched only once the kernel has answered; past PING_MS without an answer the view says in one
// line what needs a kernel. A late answer (a kernel busy running other cells answers when they are done) still
// turns them on.

export const PING_MS = 4000;

/** What a kernel's action answers (explorer/widget.py): its fields, and the binary buffers it sent.
 * @typedef {{ok?: boolean, text?: string, buffers?: DataView[], encoding?: string, diff?: any,
 *   pictures?: Record<string, string>, actions?: string[], [key: string]: any}} KernelAnswer */
/** A host's kernel: kernelLink's, or a stand-in with `call` alone (tests, other hosts).
 * @typedef {{call: (action: string, args: Record<string, any>) => Promise<KernelAnswer> | KernelAnswer,
 *   state?: "up" | "asking" | "none", can?: (action: string) => boolean, watch?: (fn: () => void) => () => void}}
 *   HostKernel */

// The widget's host.kernel. send(content): the widget's model.send; answer(msg, buffers) is called with each
// message from the kernel. state: "asking" until the ping is answered ("up", with the actions this host can do:
// actions) or PING_MS passes ("none"); watch(fn) calls fn() at each change of state.
/** kernelLink's answer: a HostKernel with its state, the actions it can do, and its two ends.
 * @typedef {{state: "up" | "asking" | "none", actions: string[],
 *   call: (action: string, args: Record<string, any>) => Promise<KernelAnswer>,
 *   answer: (msg: any, buffers?: DataView[]) => void, watch: (fn: (state?: string) => void) => () => void,
 *   can: (action: string) => boolean, ask: () => void}} KernelLink */

/** @param {(content: Record<string, any>) => void} send
 * @param {{timeoutMs?: number, setTimer?: (f: () => void, ms: number) => any, ask?: boolean}} [opts]
 * @returns {KernelLink} */
export function kernelLink(send, { timeoutMs = PING_MS, setTimer = setTimeout, ask = true } = {}) {
  /** @type {Map<number, [(v: KernelAnswer) => void, (e: any) => void]>} */
  const pending = new Map();
  /** @type {((state?: string) => void)[]} */
  const watchers = [];
  let seq = 0,
    asked = false;
  /** @param {"up" | "asking" | "none"} state */
  const become = (state) => {
    if (link.state === state) return;
    link.state = state;
    for (const fn of [...watchers]) fn(state);
  };
  /** @type {KernelLink} */
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
      const waiting = msg && msg.type === "result" ? pending.get(msg.id) : undefined;
      if (!waiting) return;
      const [ok, fail] = waiting;
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
    // asks whether a kernel answers (once): at once, or when the caller says (`ask: false`, then `link.ask()`)
    ask() {
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
    },
  };
  if (ask) link.ask();
  return link;
}

// What the view knows of its host's kernel: one answers ("up"), not yet ("asking"), or none did or there is none at
// all (the page: "none"). A host whose kernel has no state of its own (a stand-in) says by handing it over that it
// is connected. The view's parts ask it; the view watches it to redraw what said something about the kernel.
export class KernelStatus {
  /** @param {HostKernel | undefined} kernel the host's (the widget's kernelLink; the page has none) */
  constructor(kernel) {
    /** @type {HostKernel | null} */
    this.kernel = kernel || null;
  }

  /** @returns {"up" | "asking" | "none"} */
  state() {
    const k = this.kernel;
    return k ? k.state || "up" : "none";
  }

  up() {
    return this.state() === "up";
  }

  // none answered (or there is no kernel): what needs one says so
  gone() {
    return this.state() === "none";
  }

  // whether this host has a kernel at all (answering or not)
  present() {
    return !!this.kernel;
  }

  // an action of the kernel: asked only where one answered (up) or where there is one (present)
  /** @param {string} action @param {Record<string, any>} args @returns {Promise<KernelAnswer>} */
  call(action, args) {
    return Promise.resolve(/** @type {HostKernel} */ (this.kernel).call(action, args));
  }

  /** @param {string} action */
  can(action) {
    const k = this.kernel;
    return !!k && (!k.can || k.can(action));
  }

  /** fn() at each change of the kernel's state; returns the way to stop @param {() => void} fn */
  watch(fn) {
    const k = this.kernel;
    return k && k.watch ? k.watch(fn) : () => {};
  }
}
