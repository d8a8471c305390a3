// @ts-check
// Terminal text with ANSI colours (SGR codes), drawn as text nodes in classed spans: the text
// stays text, whatever escape sequences it holds. Other escape sequences are dropped.
import { breakable, h } from "./dom.js";

// A CSI sequence (colours are the ones ending in "m"), an OSC string, or a two-byte escape.
const ESCAPE = /\x1b(?:\[([0-9;?]*)([@-~])|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])/g;

/** @typedef {{fg: number, bg: number, bold: boolean, dim: boolean, italic: boolean,
 *  underline: boolean}} Style */

/** @returns {Style} */
const plain = () => ({ fg: -1, bg: -1, bold: false, dim: false, italic: false, underline: false });

/** Apply one SGR parameter list to `s`. @param {Style} s @param {string} params */
function apply(s, params) {
  const codes = (params || "0").split(";").map((p) => (p === "" ? 0 : Number(p)));
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    if (c === 0) Object.assign(s, plain());
    else if (c === 1) s.bold = true;
    else if (c === 2) s.dim = true;
    else if (c === 3) s.italic = true;
    else if (c === 4) s.underline = true;
    else if (c === 22) s.bold = s.dim = false;
    else if (c === 23) s.italic = false;
    else if (c === 24) s.underline = false;
    else if (c >= 30 && c <= 37) s.fg = c - 30;
    else if (c >= 90 && c <= 97) s.fg = c - 90 + 8;
    else if (c === 39) s.fg = -1;
    else if (c >= 40 && c <= 47) s.bg = c - 40;
    else if (c >= 100 && c <= 107) s.bg = c - 100 + 8;
    else if (c === 49) s.bg = -1;
    else if (c === 38 || c === 48) {
      // 256 colours (5;n): the first 16 are the palette; 24-bit (2;r;g;b) is not shown.
      const n = codes[i + 1] === 5 ? codes[i + 2] : -1;
      if (n >= 0 && n < 16) c === 38 ? (s.fg = n) : (s.bg = n);
      i += codes[i + 1] === 5 ? 2 : codes[i + 1] === 2 ? 4 : 0;
    }
  }
}

/** @param {Style} s */
function classes(s) {
  const out = [];
  if (s.fg >= 0) out.push(`ja-fg${s.fg}`);
  if (s.bg >= 0) out.push(`ja-bg${s.bg}`);
  if (s.bold) out.push("ja-bold");
  if (s.dim) out.push("ja-dim");
  if (s.italic) out.push("ja-italic");
  if (s.underline) out.push("ja-underline");
  return out.join(" ");
}

/** `text` split into runs of one style. @param {string} text
 * @returns {{text: string, cls: string}[]} */
export function ansiRuns(text) {
  /** @type {{text: string, cls: string}[]} */
  const runs = [];
  const style = plain();
  let at = 0;
  /** @param {string} t */
  const push = (t) => {
    if (!t) return;
    const cls = classes(style);
    const last = runs[runs.length - 1];
    if (last && last.cls === cls) last.text += t;
    else runs.push({ text: t, cls });
  };
  for (const m of text.matchAll(ESCAPE)) {
    push(text.slice(at, m.index));
    at = (m.index || 0) + m[0].length;
    if (m[2] === "m") apply(style, m[1]);
  }
  push(text.slice(at).replace(/\x1b/g, ""));
  return runs;
}

/** Draw `text` into `box` (unchanged text is not redrawn). @param {HTMLElement} box
 * @param {string} text */
export function drawAnsi(box, text) {
  if (box.dataset.text === text) return;
  box.dataset.text = text;
  box.replaceChildren(...ansiRuns(text).flatMap((r) => (r.cls ? [h("span", r.cls, r.text)] : breakable(r.text))));
}
