// Pointer and keys: hover lights a chain, a click pins it, arrows step and move along lines.

import { h } from "./dom.js";

export const Input = {
  wire() {
    const root = this.root;
    const linkedOf = (t) => (t && t.closest ? t.closest(".cx-l, .cx-glue") : null);
    root.addEventListener("mouseover", (e) => {
      const el = linkedOf(e.target);
      const o = el && el._o ? new Set(el._o) : null;
      const same = o && this.hover && o.size === this.hover.size && [...o].every((x) => this.hover.has(x));
      if (same || (!o && !this.hover)) return;
      this.hover = o;
      this.relight();
    });
    root.addEventListener("mouseleave", () => {
      if (this.hover) {
        this.hover = null;
        this.relight();
      }
    });
    root.addEventListener("click", (e) => {
      if (e.target.closest("button, a, select, input, summary, .cx-fold, .cx-go")) return;
      const el = linkedOf(e.target);
      if (!el) return;
      if (el.classList.contains("cx-glue")) {
        this.select([]);
        this.chainBar.replaceChildren(h("span", { class: "cx-muted" }, this.m.w("glue_clicked")));
        return;
      }
      this.select(el._o, el);
    });
    root.addEventListener("keydown", (e) => this.onKey(e));
  },

  onKey(e) {
    const t = e.target,
      tag = (t.tagName || "").toLowerCase();
    if (["input", "select", "textarea"].includes(tag)) {
      if (e.key !== "Escape") e.stopPropagation();
      return;
    }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const block = t.closest && t.closest(".cx-code") ? t.closest(".cx-code")._block : null;
    let handled = true;
    switch (e.key) {
      case "ArrowRight":
        this.step(1);
        break;
      case "ArrowLeft":
        this.step(-1);
        break;
      case "ArrowDown":
      case "ArrowUp": {
        if (!block) {
          handled = false;
          break;
        }
        const el = block.moveCursor(e.key === "ArrowDown" ? 1 : -1);
        this.hover = el && el._o ? new Set(el._o) : null;
        this.relight();
        break;
      }
      case "Enter": {
        if (!block || !block.cursor) {
          handled = false;
          break;
        }
        const el = block.lineEl(block.cursor);
        if (el && el._o) this.select(el._o, el);
        break;
      }
      case "Escape":
        this.hover = null;
        this.select([]);
        break;
      default:
        handled = false;
    }
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  },
};
