// @ts-check
// DOM and text helpers: every string from the report is set as text (textContent, text
// nodes, attribute values); nothing from the report goes through innerHTML.

/** An element: `props` its attributes (class, text, on* listeners; null and false left out), `kids` its children.
 * @template {string} K
 * @param {K} tag @param {Record<string, any> | null} [props] @param {...any} kids
 * @returns {K extends keyof HTMLElementTagNameMap ? HTMLElementTagNameMap[K] : HTMLElement} */
export function h(tag, props, ...kids) {
  const el = /** @type {any} */ (document.createElement(tag));
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v == null || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = String(v);
      else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  append(el, kids);
  return el;
}

// children: elements, text, or (nested) arrays of them; null and false are skipped
/** @param {HTMLElement} el @param {any[]} kids */
function append(el, kids) {
  for (const kid of kids) {
    if (kid == null || kid === false) continue;
    if (Array.isArray(kid)) append(el, kid);
    else el.append(kid instanceof Node ? kid : String(kid));
  }
}

/** @param {unknown} url @returns {string | null} */
export function safeUrl(url) {
  return typeof url === "string" && /^https?:\/\//.test(url) ? url : null;
}

/** @param {unknown} n */
export function num(n) {
  // 12,345 (not toLocaleString: its first call loads locale data, ~30 ms)
  if (typeof n !== "number" || !Number.isFinite(n)) return String(n ?? "");
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** @param {string | null | undefined} p */
export function shortPath(p) {
  if (!p) return "?";
  const parts = String(p).split("/");
  return parts.length > 3 ? parts.slice(-2).join("/") : p;
}

/** @param {unknown} s */
export function trimNl(s) {
  return String(s ?? "").replace(/\n$/, "");
}
