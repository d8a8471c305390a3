// @ts-check
// Small DOM helpers. Untrusted text only ever goes into textContent (or text nodes).

/** The longest run of characters without a space that is laid out as one piece; a longer one
 * gets a break opportunity every {@link BREAK_EVERY} characters (short pieces, so that its lines
 * fill the width). */
export const LONGEST_RUN = 64;
export const BREAK_EVERY = 16;
const LONG_RUN = /\S{65,}/;
const LONG_RUNS = /\S{65,}/g;

/** `text` as nodes: runs without a space longer than {@link LONGEST_RUN} characters get a break
 * opportunity (`<wbr>`) every {@link BREAK_EVERY}. Chromium lays out an unbroken run under `overflow-wrap:
 * anywhere` in time that grows with the square of its length (40,000 characters of base64
 * took 6.5 s, 200,000 froze the page); with `<wbr>` it is linear (27 ms). The text, as read
 * or copied, is unchanged: `<wbr>` holds none.
 * @param {string} text @returns {(Node | string)[]} */
export function breakable(text) {
  if (!LONG_RUN.test(text)) return [text];
  /** @type {(Node | string)[]} */
  const nodes = [];
  let last = 0;
  for (const m of text.matchAll(LONG_RUNS)) {
    const at = m.index ?? 0;
    if (at > last) nodes.push(text.slice(last, at));
    for (let i = 0; i < m[0].length; i += BREAK_EVERY) {
      if (i) nodes.push(document.createElement("wbr"));
      nodes.push(m[0].slice(i, i + BREAK_EVERY));
    }
    last = at + m[0].length;
  }
  if (last < text.length) nodes.push(text.slice(last));
  return nodes;
}

/** Set the text of `el` (as {@link breakable} nodes). @param {Element} el @param {string} text */
export function setText(el, text) {
  el.replaceChildren(...breakable(text));
}

/** Give every long run in the text under `root` its break opportunities (see
 * {@link breakable}). @param {Node} root */
export function breakLongRuns(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  /** @type {Text[]} */
  const long = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = /** @type {Text} */ (n);
    if (LONG_RUN.test(t.data)) long.push(t);
  }
  for (const t of long) t.replaceWith(...breakable(t.data));
}

/** @param {string} tag @param {string} [cls] @param {string} [text] @returns {any} */
export function h(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) setText(e, text);
  return e;
}

/** One child `tag` of `parent` per class name. @param {Node} parent @param {string} tag
 * @param {string} classes space-separated @returns {any[]} */
export const children = (parent, tag, classes) =>
  classes.split(" ").map((c) => parent.appendChild(h(tag, c)));
