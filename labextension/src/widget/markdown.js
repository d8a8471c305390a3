// @ts-check
// Model Markdown as DOM: markdown-it with raw HTML off, then DOMPurify with a strict
// allowlist. No image ever loads (an image shows as its alt text and address), links go only
// to http(s) and mailto and open in a new tab without referrer.
import MarkdownIt from "markdown-it";
import DOMPurify from "dompurify";
import { breakLongRuns } from "./dom.js";

/** Longest text rendered as Markdown; the rest is cut with a note. */
export const MAX_CHARS = 100000;

const md = new MarkdownIt("commonmark", { html: false, linkify: false, typographer: false });
md.enable(["table", "strikethrough"]);
/** @param {import("markdown-it").Token[]} tokens @param {number} idx */
md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx];
  const alt = (token.children || []).map((c) => c.content).join("");
  const src = String(token.attrGet("src") || "");
  const shown = alt ? `🖼 ${alt}` : "🖼 image";
  return md.utils.escapeHtml(src ? `${shown} (${src})` : shown);
};

const purifier = DOMPurify(window);
purifier.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

const CONFIG = {
  ALLOWED_TAGS: [
    "a", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6",
    "hr", "i", "li", "ol", "p", "pre", "s", "strong", "table", "tbody", "td", "th", "thead",
    "tr", "ul",
  ],
  ALLOWED_ATTR: ["href", "title", "align", "start"],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  ALLOW_DATA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
};

/** The event the JupyterLab extension turns into a new cell below the run's cell. */
export const INSERT_EVENT = "jupyter-agents:insert-cell";

/** Under each code block, an "Insert as new cell" button, when the JupyterLab extension is
 * there to take it (it marks the page). The code goes as event data, never as markup.
 * @param {HTMLElement} parent */
function addInsertButtons(parent) {
  if (document.body?.dataset?.jupyterAgentsLab !== "1") return;
  for (const pre of parent.querySelectorAll("pre")) {
    const button = document.createElement("button");
    button.className = "ja-btn ja-insert";
    button.textContent = "Insert as new cell";
    button.title = "Put this code in a new cell below (it does not run)";
    button.onclick = () => {
      const code = (pre.textContent || "").replace(/\n$/, "");
      button.dispatchEvent(new CustomEvent(INSERT_EVENT, { bubbles: true, detail: { code } }));
    };
    pre.after(button);
  }
}

/** Render untrusted Markdown into `parent` (its children are replaced); code blocks get an
 * insert button when `insertable`.
 * @param {string} text @param {HTMLElement} parent @param {boolean} [insertable] */
export function renderMarkdown(text, parent, insertable = false) {
  const cut = text.length > MAX_CHARS ? text.length - MAX_CHARS : 0;
  const html = md.render(cut ? text.slice(0, MAX_CHARS) : text);
  const fragment = /** @type {DocumentFragment} */ (
    /** @type {unknown} */ (purifier.sanitize(html, CONFIG))
  );
  breakLongRuns(fragment);
  parent.replaceChildren(fragment);
  if (insertable) addInsertButtons(parent);
  if (cut) {
    const note = document.createElement("p");
    note.className = "ja-cut";
    note.textContent = `… ${cut.toLocaleString()} more characters (the full text is in the result).`;
    parent.appendChild(note);
  }
}
