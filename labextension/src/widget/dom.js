// @ts-check
// Small DOM helpers. Untrusted text only ever goes into textContent.

/** @param {string} tag @param {string} [cls] @param {string} [text] @returns {any} */
export function h(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

/** One child `tag` of `parent` per class name. @param {Node} parent @param {string} tag
 * @param {string} classes space-separated @returns {any[]} */
export const children = (parent, tag, classes) =>
  classes.split(" ").map((c) => parent.appendChild(h(tag, c)));
