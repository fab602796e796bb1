// @ts-check
// Graph pictures (a component of the view): Graphviz SVG drawn in Python (inline on the page, on request in the
// widget), parsed as XML, sanitised again, its nodes linked to the chain. It owns what it asked for and which boxes
// of a folded picture each pane has open; `redraw()` (the view's) draws the picture panes again when pictures come.

import { h } from "./dom.js";

/** @typedef {import("./viewmodel.js").Box} Box */
/** @typedef {{cid: string}} PicturePane a pane, as far as its pictures go (the chain's owner of its elements) */
/** @typedef {{model: () => import("./model.js").Model, kernel: import("./kernel.js").KernelStatus,
 *   chain: import("./lighting.js").Chain, pagePictures?: () => Promise<Record<string, string>>,
 *   redraw: () => void}} PicturesHost */

export class Pictures {
  /** @param {PicturesHost} on */
  constructor(on) {
    this.on = on;
    /** @type {null | "reading" | "read"} the page's own pictures' element: unpacked on first sight */
    this.pageState = null;
    /** @type {Set<string>} the pictures asked of the kernel */
    this.asked = new Set();
    /** @type {string[]} those to ask in the next call */
    this.batch = [];
    /** @type {WeakMap<PicturePane, Set<string>>} the boxes each pane has open ("stage|name") */
    this.open = new WeakMap();
  }

  /** @param {PicturePane} pane */
  openBoxes(pane) {
    let set = this.open.get(pane);
    if (!set) this.open.set(pane, (set = new Set()));
    return set;
  }

  // a graph's picture; `note` is the view model's word on a folded one (its boxes open)
  /** @param {PicturePane} pane @param {string} stageId @param {string | undefined} note @returns {Node[]} */
  picture(pane, stageId, note) {
    const m = this.on.model();
    const v = m.view(pane.cid),
      pid = (v.pictures || {})[stageId];
    // a big report's pictures are named by its rest, which the kernel sends once the view is drawn
    if (!pid && m.deferred) return nopic(m.w(this.pictureWait()));
    if (!pid) return nopic((v.no_picture || {})[stageId] || m.w("no_picture"));
    const boxes = (v.boxes || {})[stageId];
    /** @type {Node[]} */
    const out = boxes && note ? [h("p", { class: "cx-muted cx-folded-note" }, note)] : [];
    return out.concat(this.svgPicture(pane, stageId, pid, boxes || {}));
  }

  // one picture (a graph's, or an opened box's): the SVG with its zoom, its nodes linked to the chain, and its
  // boxes opening their own pictures below it
  /** @param {PicturePane} pane @param {string} stageId @param {string} pid @param {Record<string, Box>} boxes
   * @returns {Node[]} */
  svgPicture(pane, stageId, pid, boxes) {
    const m = this.on.model(),
      svg = m.pictures[pid];
    const pagePictures = this.on.pagePictures;
    if (svg === undefined && pagePictures && this.pageState !== "read") {
      // the page: its pictures are unpacked from their own element on first sight, then every picture pane redraws
      // (one the page lacks then says it was not drawn: nothing waits forever)
      if (!this.pageState) {
        this.pageState = "reading";
        pagePictures()
          .catch(() => ({}))
          .then((p) => {
            this.pageState = "read";
            Object.assign(this.on.model().pictures, p || {});
            this.on.redraw();
          });
      }
      return nopic(m.w("picture_unpacking"));
    }
    const kernelDraws = this.on.kernel.up() && m.p.pictures_lazy;
    if (svg === undefined) {
      if (kernelDraws) this.askPictures([pid]);
      return nopic(m.w(this.pictureWait()));
    }
    if (typeof svg !== "string" || !svg.startsWith("<svg")) return nopic(String(svg));
    // the boxes this picture shows open their own: drawn now, so that one opens at once
    if (kernelDraws) this.askPictures(Object.values(boxes).map((b) => b.pid));
    const el = parseSvg(svg);
    if (!el) return nopic(m.w("picture_unreadable"));
    // nodes carry their FX node's chain: <g class="node"><title>NAME</title>
    const byElement = new Map();
    const key = `${stageId}:0`,
      lin = m.lineage[pane.cid];
    const els = lin && lin.elements && lin.elements[key];
    if (els) for (const [line, name] of Object.entries(els)) byElement.set(name, Number(line));
    const opened = h("div", { class: "cx-boxes" });
    const chain = this.on.chain,
      open = this.openBoxes(pane);
    for (const node of el.querySelectorAll("g.node")) {
      const g = /** @type {SVGGElement & HTMLElement} */ (node);
      const t = g.querySelector("title"),
        name = t ? t.textContent || "" : "";
      const box = boxes[name];
      if (box) {
        g.classList.add("cx-box");
        g.setAttribute("data-box", name);
        chain.decorate(
          g,
          (box.origins || []).map((o) => m.origin(o)),
          pane,
        );
        /** @param {Event} e */
        const toggle = (e) => {
          e.stopPropagation();
          this.toggleBox(pane, stageId, name, box, boxes, opened, g);
        };
        g.addEventListener("click", toggle);
        if (open.has(`${stageId}|${name}`)) this.toggleBox(pane, stageId, name, box, boxes, opened, g, true);
        continue;
      }
      const line = byElement.get(name);
      if (line) chain.decorate(g, m.linkOf(pane.cid, key, line), pane);
    }
    const zoom = h("span", { class: "cx-seg" });
    let scale = 1;
    const w0 = el.getAttribute("width"),
      h0 = el.getAttribute("height");
    /** @param {number} s */
    const setScale = (s) => {
      scale = s;
      if (s === 0) {
        el.setAttribute("width", "100%");
        el.removeAttribute("height");
        return;
      }
      for (const [a, v0] of [
        ["width", w0],
        ["height", h0],
      ])
        if (a && v0) el.setAttribute(a, `${parseFloat(v0) * s}pt`);
    };
    /** @type {[string, () => void][]} */
    const steps = [
      ["−", () => setScale(scale / 1.25 || 0.8)],
      ["+", () => setScale((scale || 1) * 1.25)],
      [m.w("zoom_fit"), () => setScale(0)],
    ];
    for (const [label, f] of steps) zoom.append(h("button", { type: "button", onclick: f }, label));
    return [zoom, h("div", { class: "cx-svg" }, el), opened];
  }

  // a box of a folded picture opens in place, under the picture it is in; open again, it closes
  /** @param {PicturePane} pane @param {string} stageId @param {string} name @param {Box} box
   * @param {Record<string, Box>} boxes @param {HTMLElement} opened @param {Element} g @param {boolean} [restore] */
  toggleBox(pane, stageId, name, box, boxes, opened, g, restore = false) {
    const m = this.on.model(),
      id = `${stageId}|${name}`,
      open = this.openBoxes(pane);
    const had = opened.querySelector(`:scope > [data-box="${CSS.escape(name)}"]`);
    if (had && !restore) {
      had.remove();
      g.classList.remove("cx-box-on");
      open.delete(id);
      return;
    }
    if (had) return;
    open.add(id);
    g.classList.add("cx-box-on");
    const close = h(
      "button",
      { type: "button", class: "cx-link", onclick: () => this.toggleBox(pane, stageId, name, box, boxes, opened, g) },
      m.w("close_box"),
    );
    const panel = h(
      "div",
      { class: "cx-box-open", "data-box": name },
      h("div", { class: "cx-h4" }, box.title, " ", close),
      ...this.svgPicture(pane, stageId, box.pid, boxes),
    );
    opened.append(panel);
    this.on.chain.relight();
  }

  // what a picture the kernel has not drawn (yet) says: drawing, waiting for an answer, or no kernel to draw it
  pictureWait() {
    const kernel = this.on.kernel,
      state = kernel.state();
    if (state === "up") return "drawing_picture";
    if (state === "asking") return "picture_asking";
    return kernel.present() ? "picture_none" : "picture_not_drawn";
  }

  // the pictures a pane shows, drawn by the kernel when first shown (not all at once: a big model's folded
  // graphs are hundreds of pictures, whose drawing would compete with the view for the machine), each asked once,
  // those asked together in one call; drawn into the widget's "pictures" state, which the view watches (entry.js)
  /** @param {string[]} pids */
  askPictures(pids) {
    const pictures = this.on.model().pictures;
    const want = pids.filter((pid) => !(pid in pictures) && !this.asked.has(pid));
    if (!want.length) return;
    for (const pid of want) this.asked.add(pid);
    const batch = this.batch;
    batch.push(...want);
    if (batch.length > want.length) return; // a call is already due
    queueMicrotask(() => {
      const ids = batch.splice(0);
      this.on.kernel.call("pictures", { ids }).then(
        (r) => this.got(r && r.pictures),
        () => {},
      );
    });
  }

  // pictures the kernel drew (the widget's "pictures" state): the panes showing them redraw
  /** @param {Record<string, string> | null | undefined} pictures */
  got(pictures) {
    if (!pictures || !Object.keys(pictures).length) return;
    Object.assign(this.on.model().pictures, pictures); // one dictionary, shared by every rank's model
    this.on.redraw();
  }
}

/** @param {string} text */
function nopic(text) {
  return [h("p", { class: "cx-muted cx-nopic" }, text)];
}

const SVG_DROP = new Set(["script", "foreignobject", "image", "iframe", "object", "embed", "style", "use", "a"]);

/** @param {string} text @returns {SVGSVGElement | null} */
export function parseSvg(text) {
  // XML parsing runs no script; dangerous elements and attributes are dropped again here
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  if (!svg || svg.nodeName.toLowerCase() !== "svg" || doc.getElementsByTagName("parsererror").length) return null;
  /** @param {Element} node */
  const walk = (node) => {
    for (const child of [...node.children]) {
      const name = child.localName.toLowerCase();
      if (SVG_DROP.has(name)) {
        if (name === "a") child.replaceWith(...child.childNodes);
        else child.remove();
        continue;
      }
      for (const attr of [...child.attributes]) {
        const n = attr.name.toLowerCase();
        if (n.startsWith("on") || n === "href" || n === "xlink:href" || /javascript:/i.test(attr.value))
          child.removeAttribute(attr.name);
      }
      walk(child);
    }
  };
  for (const attr of [...svg.attributes]) if (attr.name.toLowerCase().startsWith("on")) svg.removeAttribute(attr.name);
  walk(svg);
  return /** @type {SVGSVGElement} */ (/** @type {unknown} */ (document.importNode(svg, true)));
}
