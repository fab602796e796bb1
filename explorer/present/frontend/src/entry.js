// @ts-check
// compile-explorer's one front end: the same ES module renders a report in the notebook (as an
// anywidget widget: `export default { render }`) and on the standalone page (`mount(el, payload, host)`,
// called by the page's inline script). `npm run build` bundles the files of frontend/src into that
// one module (frontend/dist/explorer.js; only this file's exports stay); node's tests load each file on its own.
//
// Input: the payload built by explorer/present/payload.py: the view model (present/viewmodel.py:
// what each pane, the header and the timing section show, as blocks), the stage registry, the
// report's JSON (the texts code blocks name), the line-level chain (lineage) and graph pictures.
// Nothing here knows a stage or a label by heart: they all come from the payload.
//
// Safety: every string from the report is set as text (textContent, text nodes, attribute values);
// nothing from the report goes through innerHTML. Graph pictures (SVG made by Graphviz, sanitised
// in Python) are parsed as XML and sanitised again.
//
// Contract for tests and other tools: every element linked to a user line carries
// data-origin="FILE:LINE" (its first origin; data-origins holds all of them as JSON when there are
// several); lines that came from no user line (glue) carry data-glue. Lit elements (the current
// chain) have the class cx-lit; the root has data-ready once the first render is done.

import { h } from "./dom.js";
import { kernelLink } from "./kernel.js";
import { applyPatch, readPayload } from "./model.js";
import { View } from "./view.js";

/** @typedef {import("./view.js").Host} Host */
/** @typedef {import("./viewmodel.js").Payload} Payload */
/** @typedef {{view?: View, destroy: () => void}} Handle */
/** An element the view is mounted in (tests and tools find the view on it). @typedef {HTMLElement & {_cxView?: View}}
 *   Root */
/** anywidget's model, as far as the widget uses it.
 * @typedef {{get: (name: string) => any, set: (name: string, value: any) => void, save_changes: () => void,
 *   send: (content: any) => void, on: (event: string, fn: (...args: any[]) => void) => void,
 *   off: (event: string, fn: (...args: any[]) => void) => void}} WidgetModel */

// ---------------------------------------------------------------- entry points

// What a view says when it has no view model to read its words from (present/words.py has every other word):
// the payload could not be read, or could not be drawn.
/** @param {HTMLElement} el @param {string} what @param {unknown} err */
function failed(el, what, err) {
  el.replaceChildren(h("div", { class: "cx-bad cx-error" }, `compile-explorer could not ${what} this report: ${err}`));
  el.setAttribute("data-ready", "error");
}

// The standalone page and tests: mount a view of `payload` into `el`.
// host: {kernel: kernelLink(...)} in the widget (kernel.js: whether a kernel answers, and its actions; the page
//       has none), onState(state) after each change, and subscribe(fn) to receive state from outside.
/** @param {Root} el @param {Payload} payload @param {Host} [host] @returns {Handle} */
export function mount(el, payload, host = {}) {
  const t0 = typeof performance !== "undefined" ? performance.now() : 0;
  let view;
  try {
    view = new View(el, payload, host);
  } catch (err) {
    failed(el, "draw", err && /** @type {Error} */ (err).message);
    return { destroy() {} };
  }
  const made = view;
  if (host.subscribe) host.subscribe((s) => made.applyState(s));
  const ms = typeof performance !== "undefined" ? performance.now() - t0 : 0;
  el.setAttribute("data-ready", "1");
  if (!view.m.deferred) el.setAttribute("data-complete", "1");
  el.setAttribute("data-render-ms", ms.toFixed(1)); // mount() alone
  // since navigation
  if (typeof performance !== "undefined") el.setAttribute("data-ready-ms", performance.now().toFixed(1));
  el.setAttribute("data-rendered-at", String(Date.now()));
  el._cxView = view;
  return {
    view,
    destroy() {
      view.destroy();
    },
  };
}

// The standalone page: the payload is in the script element #cx-payload, as JSON or, for a big
// report, as gzip + base64 (data-encoding="gzip+base64"), unpacked by the browser itself.
/** @param {Root} root @param {HTMLScriptElement} script @returns {Promise<Handle | null>} */
export async function mountPage(root, script) {
  // every other rank of a job is in its own element (#cx-rank-N), after this script: read only when that rank
  // is picked (once the browser has read it, if the page is still loading)
  const doc = script.ownerDocument;
  /** @param {number} r @returns {Promise<Payload> | null} */
  const find = (r) => {
    const el = doc.getElementById(`cx-rank-${r}`);
    if (!el) return null;
    if (el.dataset.base === undefined) return readPayload(el.textContent, el.dataset.encoding);
    const base = find(Number(el.dataset.base));
    return base && base.then((b) => applyPatch(b, JSON.parse(el.textContent || "[]")));
  };
  // f() once the browser has read the whole page (the elements after this script)
  const loading = () => doc.readyState === "loading";
  /** @template T @param {() => T | Promise<T>} f @returns {Promise<T>} */
  const afterRead = (f) =>
    new Promise((done) => doc.addEventListener("DOMContentLoaded", done, { once: true })).then(f);
  /** @param {number} r @returns {Promise<Payload> | null} */
  const rankPayload = (r) =>
    loading() ? afterRead(() => find(r) || Promise.reject(new Error(`#cx-rank-${r}`))) : find(r);
  // a big report's pictures are in #cx-pictures, after the view's script: unpacked when a picture is first shown
  /** @type {Promise<Record<string, string>> | null} */
  let pictures = null;
  const readPictures = () => {
    const el = doc.getElementById("cx-pictures");
    return el ? readPayload(el.textContent, el.dataset.encoding) : Promise.resolve({});
  };
  const pagePictures = () => (pictures = pictures || (loading() ? afterRead(readPictures) : readPictures()));
  try {
    return mount(root, await readPayload(script.textContent, script.dataset.encoding), { rankPayload, pagePictures });
  } catch (err) {
    failed(root, "read", err && /** @type {Error} */ (err).message);
    return null;
  }
}

// The widget's stylesheet (its "styles" trait), added once per document (or shadow root) and left alone
// after: anywidget's own `_css` rewrites its <style> for every widget made, which restyles the whole notebook
// (every earlier view included) before the new view can draw. Replaced only when its text differs (an upgrade).
/** @param {HTMLElement} el @param {string | undefined} css */
function ensureStyles(el, css) {
  if (!css || typeof document === "undefined") return;
  const root = el.getRootNode ? el.getRootNode() : document;
  const scope = typeof ShadowRoot !== "undefined" && root instanceof ShadowRoot ? root : document;
  const have = scope.querySelector("style[data-cx-styles]");
  if (have) {
    if (have.textContent !== css) have.textContent = css;
    return;
  }
  const style = document.createElement("style");
  style.setAttribute("data-cx-styles", "");
  style.textContent = css;
  (scope === document ? document.head : scope).append(style);
}

// The anywidget entry: one widget per view; the payload is one JSON string trait.
export default {
  /** @param {{model: WidgetModel, el: Root}} widget */
  render({ model, el }) {
    ensureStyles(el, model.get("styles"));
    // a host that draws views in a shadow root may attach `el` after render: its styles go there too
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => ensureStyles(el, model.get("styles")));
    // whether a kernel answers (a saved notebook or an exported page has none: kernel.js), asked once the view is
    // drawn: its answer, handled while the payload was read, made a big view's first draw slower
    const kernel = kernelLink((content) => model.send(content), { ask: false });
    /** @param {any} msg @param {DataView[]} [buffers] */
    const onMsg = (msg, buffers) => kernel.answer(msg, buffers);
    model.on("msg:custom", onMsg);
    // the pictures the kernel drew, kept in the widget's state (also what a saved notebook holds)
    const onPictures = () => handle && handle.view && handle.view.gotPictures(model.get("pictures"));
    model.on("change:pictures", onPictures);
    /** @type {((s: any) => void)[]} */
    const subs = [];
    const onSel = () => {
      const s = model.get("selection");
      if (s && s.from !== "view") subs.forEach((f) => f(s));
    };
    model.on("change:selection", onSel);
    /** @type {any} */
    let timer = 0;
    /** @type {Host} */
    const host = {
      kernel,
      onState(state) {
        clearTimeout(timer);
        timer = setTimeout(() => {
          model.set("selection", { ...state, from: "view" });
          model.save_changes();
        }, 150);
      },
      subscribe(fn) {
        subs.push(fn);
      },
    };
    /** @type {Handle | null} */
    let handle = null,
      gone = false;
    el.append(h("div", { class: "cx-muted" }, "compile-explorer: drawing the report…"));
    const t0 = Date.now();
    readPayload(model.get("payload"), model.get("payload_encoding")).then(
      (payload) => {
        if (gone) return;
        el.setAttribute("data-arrived-ms", String(t0 - (model.get("made_at") || 0) * 1000)); // the view made -> here
        el.setAttribute("data-decode-ms", String(Date.now() - t0));
        el.replaceChildren();
        payload.pictures = { ...(model.get("pictures") || {}), ...(payload.pictures || {}) };
        handle = mount(el, payload, host);
        const made = model.get("made_at");
        if (made) el.setAttribute("data-latency-ms", String(Date.now() - made * 1000));
        kernel.ask();
        const s0 = model.get("selection");
        if (s0 && s0.from !== "view" && handle.view) handle.view.applyState(s0);
      },
      (err) => failed(el, "read", err && err.message),
    );
    return () => {
      gone = true;
      model.off("msg:custom", onMsg);
      model.off("change:pictures", onPictures);
      model.off("change:selection", onSel);
      clearTimeout(timer);
      if (handle) handle.destroy();
    };
  },
};
