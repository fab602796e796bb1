// Graph pictures: Graphviz SVG drawn in Python (inline on the page, on request in the widget), parsed
// as XML, sanitised again, its nodes linked to the chain.

import { h } from "./dom.js";

export const Pictures = {
  // ---- pictures ----
  // a graph's picture; `note` is the view model's word on a folded one (its boxes open)
  picture(pane, stageId, note) {
    const v = this.m.view(pane.cid),
      pid = (v.pictures || {})[stageId];
    // a big report's pictures are named by its rest, which the kernel sends once the view is drawn
    if (!pid && this.m.deferred) return nopic(this.m.w(this.pictureWait()));
    if (!pid) return nopic((v.no_picture || {})[stageId] || this.m.w("no_picture"));
    const boxes = (v.boxes || {})[stageId];
    const out = boxes && note ? [h("p", { class: "cx-muted cx-folded-note" }, note)] : [];
    return out.concat(this.svgPicture(pane, stageId, pid, boxes || {}));
  },

  // one picture (a graph's, or an opened box's): the SVG with its zoom, its nodes linked to the chain, and its
  // boxes opening their own pictures below it
  svgPicture(pane, stageId, pid, boxes) {
    const m = this.m,
      svg = m.pictures[pid];
    if (svg === undefined && this.host.pagePictures && this.pagePictures !== "read") {
      // the page: its pictures are unpacked from their own element on first sight, then every picture pane redraws
      // (one the page lacks then says it was not drawn: nothing waits forever)
      if (!this.pagePictures) {
        this.pagePictures = "reading";
        this.host
          .pagePictures()
          .catch(() => ({}))
          .then((p) => {
            this.pagePictures = "read";
            Object.assign(this.m.pictures, p || {});
            for (const q of this.panes) if (q.mode === "picture") q.render();
          });
      }
      return nopic(m.w("picture_unpacking"));
    }
    if (svg === undefined) {
      if (this.kernelUp() && m.p.pictures_lazy) this.askPictures([pid]);
      return nopic(m.w(this.pictureWait()));
    }
    if (typeof svg !== "string" || !svg.startsWith("<svg")) return nopic(String(svg));
    // the boxes this picture shows open their own: drawn now, so that one opens at once
    if (this.kernelUp() && m.p.pictures_lazy) this.askPictures(Object.values(boxes).map((b) => b.pid));
    const el = parseSvg(svg);
    if (!el) return nopic(m.w("picture_unreadable"));
    // nodes carry their FX node's chain: <g class="node"><title>NAME</title>
    const byElement = new Map();
    const key = `${stageId}:0`,
      lin = m.lineage[pane.cid];
    const els = lin && lin.elements && lin.elements[key];
    if (els) for (const [line, name] of Object.entries(els)) byElement.set(name, Number(line));
    const opened = h("div", { class: "cx-boxes" });
    pane.openBoxes = pane.openBoxes || new Set();
    for (const g of el.querySelectorAll("g.node")) {
      const t = g.querySelector("title"),
        name = t ? t.textContent : "";
      const box = boxes[name];
      if (box) {
        g.classList.add("cx-box");
        g.setAttribute("data-box", name);
        this.decorate(
          g,
          (box.origins || []).map((o) => m.origin(o)),
          pane,
        );
        const toggle = (e) => {
          e.stopPropagation();
          this.toggleBox(pane, stageId, name, box, boxes, opened, g);
        };
        g.addEventListener("click", toggle);
        if (pane.openBoxes.has(`${stageId}|${name}`)) this.toggleBox(pane, stageId, name, box, boxes, opened, g, true);
        continue;
      }
      const line = byElement.get(name);
      if (line) this.decorate(g, m.linkOf(pane.cid, key, line), pane);
    }
    const zoom = h("span", { class: "cx-seg" });
    let scale = 1;
    const w0 = el.getAttribute("width"),
      h0 = el.getAttribute("height");
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
        if (v0) el.setAttribute(a, `${parseFloat(v0) * s}pt`);
    };
    const steps = [
      ["−", () => setScale(scale / 1.25 || 0.8)],
      ["+", () => setScale((scale || 1) * 1.25)],
      [m.w("zoom_fit"), () => setScale(0)],
    ];
    for (const [label, f] of steps) zoom.append(h("button", { type: "button", onclick: f }, label));
    return [zoom, h("div", { class: "cx-svg" }, el), opened];
  },

  // a box of a folded picture opens in place, under the picture it is in; open again, it closes
  toggleBox(pane, stageId, name, box, boxes, opened, g, restore = false) {
    const m = this.m,
      id = `${stageId}|${name}`;
    const had = opened.querySelector(`:scope > [data-box="${CSS.escape(name)}"]`);
    if (had && !restore) {
      had.remove();
      g.classList.remove("cx-box-on");
      pane.openBoxes.delete(id);
      return;
    }
    if (had) return;
    pane.openBoxes.add(id);
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
    this.relight();
  },

  // what a picture the kernel has not drawn (yet) says: drawing, waiting for an answer, or no kernel to draw it
  pictureWait() {
    const state = this.kernelState();
    if (state === "up") return "drawing_picture";
    if (state === "asking") return "picture_asking";
    return this.host.kernel ? "picture_none" : "picture_not_drawn";
  },

  // the pictures a pane shows, drawn by the kernel when first shown (not all at once: a big model's folded
  // graphs are hundreds of pictures, whose drawing would compete with the view for the machine), each asked once,
  // those asked together in one call; drawn into the widget's "pictures" state, which the view watches (entry.js)
  askPictures(pids) {
    const asked = (this.m._picturesAsked ||= new Set());
    const want = pids.filter((pid) => !(pid in this.m.pictures) && !asked.has(pid));
    if (!want.length) return;
    for (const pid of want) asked.add(pid);
    const batch = (this._pictureBatch ||= []);
    batch.push(...want);
    if (batch.length > want.length) return; // a call is already due
    queueMicrotask(() => {
      const ids = batch.splice(0);
      Promise.resolve(this.host.kernel.call("pictures", { ids })).then(
        (r) => this.gotPictures(r && r.pictures),
        () => {},
      );
    });
  },
};

function nopic(text) {
  return [h("p", { class: "cx-muted cx-nopic" }, text)];
}

const SVG_DROP = new Set(["script", "foreignobject", "image", "iframe", "object", "embed", "style", "use", "a"]);

function parseSvg(text) {
  // XML parsing runs no script; dangerous elements and attributes are dropped again here
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  if (!svg || svg.nodeName.toLowerCase() !== "svg" || doc.getElementsByTagName("parsererror").length) return null;
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
  return document.importNode(svg, true);
}
