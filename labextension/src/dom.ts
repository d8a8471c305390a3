/**
 * Small DOM helpers the panels share (the chat panel, the assists' box): elements whose text is
 * set as text, never as HTML, and labelled buttons.
 */

/** A `tag` element with class `cls` and `text` as its text. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) {
    e.className = cls;
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  return e;
}

/** A JupyterLab-styled button showing `label`, named `aria` for screen readers (and its tooltip). */
export function button(label: string, cls: string, aria: string): HTMLButtonElement {
  const b = el('button', `jp-Button jp-mod-styled ${cls}`, label);
  b.type = 'button';
  b.setAttribute('aria-label', aria);
  b.title = aria;
  return b;
}
