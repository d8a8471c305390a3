// @ts-check
// The evaluation report widget: averages per scorer, then one row per case (failing or worse
// ones first, as Python ordered them); a click on a row opens the case: its input, expected
// and actual output, every score with its reason, and the run's tool calls as cards. In
// compare mode each scorer shows A, B and the change. State: ./state.d.ts. Every text is
// untrusted and reaches the DOM as text nodes only.
import { h } from "../widget/dom.js";

/** @typedef {import("./state").ReportState} ReportState */
/** @typedef {import("./state").CaseRow} CaseRow */
/** @typedef {import("./state").ScoreCell} ScoreCell */
/** @typedef {import("./state").ScorerRow} ScorerRow */
/** @typedef {{get(k: string): unknown, on(e: string, f: Function): void,
 *  off(e: string, f: Function): void}} Model */

/** @param {number | null} v @param {string} kind */
const avg = (v, kind) =>
  v == null ? "–" : kind === "assertion" ? `${(v * 100).toFixed(1)} %` : v.toFixed(3);

/** @param {number | null} d @param {string} kind */
const signed = (d, kind) => {
  if (d == null) return "";
  const text = kind === "assertion" ? `${(d * 100).toFixed(1)} pt` : d.toFixed(3);
  return d > 0 ? `+${text}` : text;
};

/** @param {boolean | null} ok */
const okClass = (ok) => (ok === true ? "ja-ev-ok" : ok === false ? "ja-ev-bad" : "");

/** A report saved in a notebook someone sent is untrusted: the values that become classes
 * pick one of these, never a class of their own choosing. */
const STATUSES = ["pass", "fail", "error"];
const CHANGES = ["worse", "better", "changed", "same"];

/** The classes of a case's row. @param {CaseRow} c */
function rowClass(c) {
  const known = (/** @type {string[]} */ list, /** @type {unknown} */ v) =>
    typeof v === "string" && list.includes(v);
  let cls = "ja-ev-row";
  if (known(STATUSES, c.status)) cls += ` ja-ev-${c.status}`;
  if (known(CHANGES, c.change)) cls += ` ja-ev-ch-${c.change}`;
  return cls;
}

/** @param {ScorerRow[]} scorers @param {boolean} compare */
function scorerChips(scorers, compare) {
  const box = h("div", "ja-ev-scorers");
  for (const s of scorers) {
    const chip = box.appendChild(h("span", "ja-ev-chip"));
    chip.appendChild(h("span", "ja-ev-chip-name", s.name));
    if (compare) {
      chip.appendChild(h("span", "ja-ev-chip-val", `${avg(s.a, s.kind)} → ${avg(s.b, s.kind)}`));
      const d = s.delta ?? 0;
      const cls = d > 1e-12 ? "ja-ev-ok" : d < -1e-12 ? "ja-ev-bad" : "ja-ev-same";
      chip.appendChild(h("span", `ja-ev-delta ${cls}`, signed(s.delta, s.kind) || "±0"));
    } else {
      chip.appendChild(h("span", "ja-ev-chip-val", avg(s.a, s.kind)));
    }
  }
  return box;
}

/** @param {ScoreCell | undefined} cell */
function scoreSpan(cell) {
  if (!cell) return h("span", "ja-ev-none", "–");
  const span = h("span", `ja-ev-score ${okClass(cell.ok)}`, cell.shown);
  if (cell.reason) span.title = cell.reason;
  return span;
}

/** A labelled block of text in the opened case. @param {string} label @param {string} text */
function section(label, text) {
  const box = h("div", "ja-ev-sec");
  box.appendChild(h("div", "ja-ev-label", label));
  box.appendChild(h("pre", "ja-ev-pre", text || "(nothing)"));
  return box;
}

/** The opened case. @param {CaseRow} c @param {ScorerRow[]} scorers @param {boolean} compare */
function caseDetail(c, scorers, compare) {
  const box = h("div", "ja-ev-detail");
  box.appendChild(section("Input", c.input));
  box.appendChild(section("Expected", c.expected));
  box.appendChild(section(compare ? "Output (A)" : "Output", c.output));
  if (compare) box.appendChild(section("Output (B)", c.output_b));
  if (c.error) box.appendChild(h("div", "ja-ev-error", c.error));
  const list = box.appendChild(h("div", "ja-ev-sec"));
  list.appendChild(h("div", "ja-ev-label", "Scores"));
  for (const s of scorers) {
    const line = list.appendChild(h("div", "ja-ev-reason"));
    line.appendChild(h("span", "ja-ev-chip-name", s.name));
    line.appendChild(scoreSpan(c.scores[s.name]));
    if (compare) {
      line.appendChild(h("span", "ja-ev-arrow", "→"));
      line.appendChild(scoreSpan(c.scores_b[s.name]));
    }
    const cell = (compare ? c.scores_b[s.name] : undefined) ?? c.scores[s.name];
    if (cell?.reason) line.appendChild(h("span", "ja-ev-why", cell.reason));
  }
  if (c.tools.length) {
    const tools = box.appendChild(h("div", "ja-ev-sec"));
    const whose = compare ? " of B" : "";
    tools.appendChild(h("div", "ja-ev-label", `Tool calls${whose} (${c.tools.length})`));
    for (const t of c.tools) {
      const card = tools.appendChild(h("div", "ja-ev-tool"));
      card.appendChild(h("span", "ja-ev-tool-name", t.name));
      card.appendChild(h("span", "ja-ev-tool-status", t.status));
      card.appendChild(h("pre", "ja-ev-pre", t.arguments));
    }
  }
  return box;
}

/** @param {{model: Model, el: HTMLElement}} ctx */
function render({ model, el }) {
  const root = el.appendChild(h("div", "ja-ev"));
  /** @type {string} */
  let filter = "all";
  /** @type {Set<string>} */
  const open = new Set();

  const draw = () => {
    const state = /** @type {ReportState} */ (model.get("report") || {});
    const cases = Array.isArray(state.cases) ? state.cases : [];
    const scorers = Array.isArray(state.scorers) ? state.scorers : [];
    const compare = state.mode === "compare";
    root.replaceChildren();
    const head = root.appendChild(h("div", "ja-ev-head"));
    head.appendChild(h("span", "ja-ev-title", state.title || "Evaluation"));
    head.appendChild(h("span", "ja-ev-summary", state.summary || ""));
    root.appendChild(scorerChips(scorers, compare));

    const filters = compare ? ["all", "worse", "better"] : ["all", "failing"];
    const bar = root.appendChild(h("div", "ja-ev-filters"));
    for (const f of filters) {
      const b = bar.appendChild(h("button", "ja-ev-filter", f));
      b.setAttribute("aria-pressed", String(f === filter));
      b.addEventListener("click", () => {
        filter = f;
        draw();
      });
    }
    const shown = cases.filter((c) =>
      filter === "all"
        ? true
        : filter === "failing"
          ? c.status !== "pass"
          : c.change === filter,
    );

    const table = root.appendChild(h("div", "ja-ev-scroll")).appendChild(h("table", "ja-ev-table"));
    const hr = table.appendChild(h("thead")).appendChild(h("tr"));
    const columns = ["Case", "Input", "Expected", "Output"];
    for (const name of columns) hr.appendChild(h("th", "", name));
    for (const s of scorers) hr.appendChild(h("th", "ja-ev-num ja-ev-scorer", s.name));
    hr.appendChild(h("th", "ja-ev-num", "Time"));
    hr.appendChild(h("th", "ja-ev-num", "Cost"));
    const body = table.appendChild(h("tbody"));
    for (const c of shown) {
      const tr = body.appendChild(h("tr", rowClass(c)));
      tr.tabIndex = 0;
      tr.setAttribute("aria-expanded", String(open.has(c.key)));
      tr.appendChild(h("td", "ja-ev-name", c.name));
      tr.appendChild(h("td", "ja-ev-cut", c.input));
      tr.appendChild(h("td", "ja-ev-cut", c.expected));
      tr.appendChild(h("td", "ja-ev-cut", c.error ? `⚠ ${c.error}` : compare ? c.output_b : c.output));
      for (const s of scorers) {
        const td = tr.appendChild(h("td", "ja-ev-num"));
        if (compare) {
          td.appendChild(scoreSpan(c.scores[s.name]));
          td.appendChild(h("span", "ja-ev-arrow", "→"));
          td.appendChild(scoreSpan(c.scores_b[s.name]));
        } else td.appendChild(scoreSpan(c.scores[s.name]));
      }
      tr.appendChild(h("td", "ja-ev-num", `${(c.seconds || 0).toFixed(2)} s`));
      tr.appendChild(h("td", "ja-ev-num", c.cost == null ? "–" : `$${c.cost.toFixed(4)}`));
      const toggle = () => {
        if (open.has(c.key)) open.delete(c.key);
        else open.add(c.key);
        draw();
      };
      tr.addEventListener("click", toggle);
      tr.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          toggle();
        }
      });
      if (open.has(c.key)) {
        const td = body.appendChild(h("tr", "ja-ev-open")).appendChild(h("td"));
        td.colSpan = columns.length + scorers.length + 2;
        td.appendChild(caseDetail(c, scorers, compare));
      }
    }
    if (cases.length < (state.total || 0)) {
      root.appendChild(
        h("div", "ja-ev-more", `Showing ${cases.length} of ${state.total} cases: report.to_pandas() has all.`),
      );
    }
  };
  draw();
  model.on("change:report", draw);
  return () => model.off("change:report", draw);
}

export default { render };
