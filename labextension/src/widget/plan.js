// @ts-check
// The run's plan (header.plan, from the model's update_plan calls): a checklist above the
// blocks, pending ○, in progress ◐ (highlighted), completed ✓ (struck through), redrawn in
// place when a new plan comes. A saved run is untrusted: its steps reach the DOM as text only,
// and a status picks one of three known classes.
import { children, h, setText } from "./dom.js";
import { known } from "./format.js";

/** @typedef {import("./state.js").StepStatus} StepStatus */

/** @type {Record<StepStatus, string>} */
const MARKS = { pending: "○", in_progress: "◐", completed: "✓" };
/** @type {Record<StepStatus, string>} */
const WORDS = { pending: "pending", in_progress: "in progress", completed: "completed" };

/** The steps of a header's plan as [text, status] pairs; [] when there is none.
 * @param {unknown} plan @returns {[string, StepStatus][]} */
function stepsOf(plan) {
  const steps = /** @type {{steps?: unknown}} */ (plan ?? {}).steps;
  if (!Array.isArray(steps)) return [];
  return steps
    .filter((s) => s && typeof s === "object")
    .map((s) => [
      typeof s.step === "string" ? s.step : "",
      /** @type {StepStatus} */ (known("step", s.status, "pending")),
    ]);
}

/** The plan's element (hidden while there is no plan) and `draw`, which shows a header's plan. */
export function planView() {
  const el = h("div", "ja-plan");
  el.hidden = true;
  const head = el.appendChild(h("div", "ja-plan-head"));
  const [label, count] = children(head, "span", "ja-plan-label ja-plan-count");
  label.textContent = "Plan";
  const why = el.appendChild(h("div", "ja-plan-why"));
  const list = el.appendChild(h("ol", "ja-plan-steps"));

  /** @param {unknown} plan */
  function draw(plan) {
    const steps = stepsOf(plan);
    el.hidden = steps.length === 0;
    const done = steps.filter(([, status]) => status === "completed").length;
    count.textContent = `${done}/${steps.length}`;
    const explanation = /** @type {{explanation?: unknown}} */ (plan ?? {}).explanation;
    setText(why, typeof explanation === "string" ? explanation : "");
    while (list.children.length > steps.length) list.lastChild?.remove();
    while (list.children.length < steps.length) {
      const li = list.appendChild(h("li"));
      children(li, "span", "ja-step-mark ja-step-text");
    }
    steps.forEach(([text, status], i) => {
      const li = /** @type {HTMLElement} */ (list.children[i]);
      li.className = `ja-step ja-step-${status}`;
      li.title = WORDS[status];
      const [mark, words] = /** @type {HTMLElement[]} */ ([...li.children]);
      mark.textContent = MARKS[status];
      setText(words, text);
    });
  }
  return { el, draw };
}
