// @ts-check
// A tool card's parts (a kind's DisplayParts, see notebook/view/widget_state.py): one renderer per
// part type, the only place the widget draws each. Every text stays text (text nodes, or
// classed spans of text nodes); an image shows only from inline raster data.
import { drawAnsi } from "./ansi.js";
import { breakable, h } from "./dom.js";
import { pretty } from "./format.js";
import { codeRuns } from "./highlight.js";

/** @typedef {import("./state.js").Part} Part */
/** @typedef {import("./state.js").PartType} PartType */

export const IMAGE_URL = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$/;

/** Headings by part type; text, JSON and terminal output read "Output" ("Arguments" for a
 * part that shows the call itself). @type {Partial<Record<PartType, string>>} */
const HEADINGS = { code: "Code", diff: "Changes", error: "Error" };

/** A `<pre>` with a heading (drawn by CSS from `data-label`) and `text` as its text.
 * @param {string} cls @param {string} label @param {string} [text] @returns {HTMLElement} */
function pre(cls, label, text) {
  const box = h("pre", cls, text);
  box.dataset.label = label;
  return box;
}

/** A character that does not show, as the kernel marks it on a card that shows a cell's
 * source (a carriage return, a bidi override, a zero-width space): drawn so it stands out. */
const CHAR_MARK = /(⟨U\+[0-9A-F]{4,6}⟩)/;

/** `text` as nodes (classed `cls`), each mark of a character that does not show in a span of
 * its own. @param {string} text @param {string} cls @returns {(Node | string)[]} */
function withMarks(text, cls) {
  return text
    .split(CHAR_MARK)
    .filter((piece) => piece !== "")
    .flatMap((piece) =>
      CHAR_MARK.test(piece) ? [h("span", "ja-char", piece)] : cls ? [h("span", cls, piece)] : breakable(piece),
    );
}

/** The class of a diff line: what the line does. @param {string} line */
function diffClass(line) {
  if (/^(create|update|delete|move)_(file|cell) /.test(line)) return "ja-diff-file";
  if (line.startsWith("@@")) return "ja-diff-hunk";
  if (line.startsWith("+")) return "ja-diff-add";
  return line.startsWith("-") ? "ja-diff-del" : "";
}

/** One renderer per part type (the type makes it miss none): the element that shows `part`
 * under `label`, or null for nothing.
 * @type {Record<PartType, (part: Part, label: string) => HTMLElement | null>} */
const RENDER = {
  text: (p, label) => pre("ja-out ja-part-text", label, p.text),
  json: (p, label) => pre("ja-out ja-part-json", label, pretty(p.text)),
  error: (p, label) => pre("ja-out ja-part-error", label, p.text),
  terminal: (p, label) => {
    const box = pre("ja-out ja-part-terminal", label);
    drawAnsi(box, p.text);
    return box;
  },
  code: (p, label) => {
    const runs = codeRuns(p.text, p.language || "");
    const box = pre("ja-code", label);
    box.append(...runs.flatMap((r) => withMarks(r.text, r.cls)));
    return box;
  },
  diff: (p, label) => {
    const lines = p.text.replace(/\n$/, "").split("\n");
    const box = pre("ja-diff", label);
    box.append(
      ...lines.map((line) => {
        const span = h("span", diffClass(line));
        span.append(...withMarks(line + "\n", ""));
        return span;
      }),
    );
    return box;
  },
  image: (p) => {
    if (!IMAGE_URL.test(p.text)) return null; // an address is never fetched
    const img = h("img", "ja-image");
    img.alt = "the tool output image";
    img.src = p.text;
    return img;
  },
};

/** The elements of one part (and a note when its text was cut). @param {Part} part */
function drawPart(part) {
  // A saved run is untrusted: a type with no renderer of its own is drawn as text.
  const type = Object.prototype.hasOwnProperty.call(RENDER, part.type) ? part.type : "text";
  const text = typeof part.text === "string" ? part.text : "";
  const call = part.role === "call";
  const label = HEADINGS[type] || (type === "image" ? "" : call ? "Arguments" : "Output");
  const shown = RENDER[type]({ ...part, type, text }, label);
  if (!shown) return [];
  if (!part.cut) return [shown];
  const total = Number(part.cut).toLocaleString();
  return [shown, h("div", "ja-cut", `${label || "Output"} truncated: ${total} characters in all.`)];
}

/** What each box shows now, so unchanged parts are not redrawn. @type {WeakMap<HTMLElement, string>} */
const drawn = new WeakMap();

/** Draw `parts` into `box` (unchanged parts are not redrawn).
 * @param {HTMLElement} box @param {Part[]} parts */
export function drawParts(box, parts) {
  const key = JSON.stringify(parts);
  if (drawn.get(box) === key) return;
  drawn.set(box, key);
  box.replaceChildren(...parts.flatMap(drawPart));
  box.hidden = parts.length === 0;
}
