// Graph pictures: Graphviz SVG drawn in Python (inline on the page, on request in the widget), parsed
// as XML, sanitised again, its nodes linked to the chain.

import { h } from "./dom.js";

export const Pictures = {
  // ---- pictures ----
  picture(pane, stageId) {
    const m = this.m,
      v = m.view(pane.cid),
      nopic = (text) => [h("p", { class: "cx-muted cx-nopic" }, text)];
    const pid = (v.pictures || {})[stageId];
    if (!pid) return nopic((v.no_picture || {})[stageId] || "No picture for this graph.");
    const svg = m.pictures[pid];
    if (svg === undefined) {
      return nopic(this.kernelWords(`picture_${this.kernelState()}`));
    }
    if (typeof svg !== "string" || !svg.startsWith("<svg")) return nopic(String(svg));
    const el = parseSvg(svg);
    if (!el) return nopic("The picture could not be read.");
    // nodes carry their FX node's chain: <g class="node"><title>NAME</title>
    const byElement = new Map();
    const key = `${stageId}:0`,
      lin = m.lineage[pane.cid];
    const els = lin && lin.elements && lin.elements[key];
    if (els) for (const [line, name] of Object.entries(els)) byElement.set(name, Number(line));
    for (const g of el.querySelectorAll("g.node")) {
      const t = g.querySelector("title");
      const line = t ? byElement.get(t.textContent) : undefined;
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
      ["fit", () => setScale(0)],
    ];
    for (const [label, f] of steps) zoom.append(h("button", { type: "button", onclick: f }, label));
    return [zoom, h("div", { class: "cx-svg" }, el)];
  },

  fetchPictures() {
    const want = [];
    for (const v of this.m.views)
      for (const pid of Object.values(v.pictures || {})) if (!(pid in this.m.pictures)) want.push(pid);
    if (!want.length) return;
    // drawn into the widget's "pictures" state, which the view watches (entry.js): gotPictures
    Promise.resolve(this.host.kernel.call("pictures", { ids: [...new Set(want)] })).then(
      (r) => this.gotPictures(r && r.pictures),
      () => {},
    );
  },
};

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
