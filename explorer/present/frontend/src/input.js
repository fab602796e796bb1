// @ts-check
// Pointer and keys: hover lights a chain, a click pins it, arrows step and move along lines. Holds no state of its
// own: the chain (lighting.js) holds what is lit, a code block its cursor; `step` is the view's.

/** @typedef {import("./lighting.js").Chain} Chain */
/** @typedef {import("./lighting.js").LinkedEl} LinkedEl */
/** @typedef {import("./blocks.js").CodeEl} CodeEl */

/** @param {EventTarget | null} t @returns {LinkedEl | null} */
function linkedOf(t) {
  return t instanceof Element ? /** @type {LinkedEl | null} */ (t.closest(".cx-l, .cx-glue")) : null;
}

/** The view's root listens: hover and clicks light the chain, keys step (`step(delta)`) and move along lines.
 * @param {HTMLElement} root @param {{chain: Chain, step: (delta: number) => void, words: (key: string) => string}} on
 */
export function wire(root, { chain, step, words }) {
  root.addEventListener("mouseover", (e) => {
    const el = linkedOf(e.target);
    chain.hoverOn(el && el._o ? el._o : null);
  });
  root.addEventListener("mouseleave", () => chain.hoverOn(null));
  root.addEventListener("click", (e) => {
    const t = /** @type {Element} */ (e.target);
    if (t.closest("button, a, select, input, summary, .cx-fold, .cx-go")) return;
    const el = linkedOf(t);
    if (!el) return;
    if (el.classList.contains("cx-glue")) {
      chain.select([]);
      chain.say(words("glue_clicked"));
      return;
    }
    chain.select(el._o, el);
  });
  root.addEventListener("keydown", (e) => onKey(e, chain, step));
}

/** @param {KeyboardEvent} e @param {Chain} chain @param {(delta: number) => void} step */
function onKey(e, chain, step) {
  const t = /** @type {HTMLElement} */ (e.target),
    tag = (t.tagName || "").toLowerCase();
  if (["input", "select", "textarea"].includes(tag)) {
    if (e.key !== "Escape") e.stopPropagation();
    return;
  }
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const code = t.closest ? /** @type {CodeEl | null} */ (t.closest(".cx-code")) : null;
  const block = code ? code._block : null;
  let handled = true;
  switch (e.key) {
    case "ArrowRight":
      step(1);
      break;
    case "ArrowLeft":
      step(-1);
      break;
    case "ArrowDown":
    case "ArrowUp": {
      if (!block) {
        handled = false;
        break;
      }
      const el = /** @type {LinkedEl | null} */ (block.moveCursor(e.key === "ArrowDown" ? 1 : -1));
      chain.hoverOn(el && el._o ? el._o : null);
      break;
    }
    case "Enter": {
      if (!block || !block.cursor) {
        handled = false;
        break;
      }
      const el = /** @type {LinkedEl | null} */ (block.lineEl(block.cursor));
      if (el && el._o) chain.select(el._o, el);
      break;
    }
    case "Escape":
      chain.hoverOn(null);
      chain.select([]);
      break;
    default:
      handled = false;
  }
  if (handled) {
    e.preventDefault();
    e.stopPropagation();
  }
}
