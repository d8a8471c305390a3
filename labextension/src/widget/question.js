// @ts-check
// A question on a tool card (ask_user, an MCP server's elicitation): free text, one of a few
// choices, or a small form. The question is untrusted JSON: its texts stay text nodes and
// only the field types a form may have (string, string enum, number, integer, boolean)
// become inputs; anything else is skipped. The kernel checks the answer again.
import { h, setText } from "./dom.js";

/** @typedef {import("./state.js").QuestionState} QuestionState */
/** @typedef {{answer?: unknown, error?: string}} Read */

let forms = 0; // radio groups need a name unique in the page

/** A string's value, or "" for anything else. @param {unknown} v */
const str = (v) => (typeof v === "string" ? v : "");

/** The fields of `form` as [name, spec] pairs of the types a form may have.
 * @param {any} form @returns {[string, any][]} */
export function formFields(form) {
  const props = form && typeof form === "object" ? form.properties : null;
  if (!props || typeof props !== "object") return [];
  return Object.entries(props).filter(
    ([, s]) => s && ["string", "number", "integer", "boolean"].includes(s.type),
  );
}

/** Read one field's input: its value, undefined when empty, or an Error.
 * @param {any} spec @param {HTMLInputElement | HTMLSelectElement} input */
export function fieldValue(spec, input) {
  if (spec.type === "boolean") return /** @type {HTMLInputElement} */ (input).checked;
  const raw = input.value.trim();
  if (raw === "") return undefined;
  if (spec.type === "string") return input.value;
  const n = Number(raw);
  if (!Number.isFinite(n)) return new Error("must be a number");
  if (spec.type === "integer" && !Number.isInteger(n)) return new Error("must be a whole number");
  return n;
}

/** The question's view: its text and the inputs for an answer, rebuilt only when the
 * question changes (so what the person typed survives updates).
 * @param {() => void} submit called on Enter in a one-line field */
export function questionView(submit) {
  const el = h("div", "ja-question");
  const origin = el.appendChild(h("div", "ja-q-origin"));
  const text = el.appendChild(h("div", "ja-q-text"));
  const fields = el.appendChild(h("div", "ja-q-fields"));
  let key = "";
  /** @type {(HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement)[]} */
  let inputs = [];
  /** @type {() => Read} */
  let read = () => ({ error: "Nothing to answer." });

  /** @param {HTMLInputElement} input */
  const enterSubmits = (input) => {
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") submit();
    });
  };

  /** @param {string[]} choices */
  function choose(choices) {
    const name = `ja-q-${++forms}`;
    const radios = choices.map((choice) => {
      const label = fields.appendChild(h("label", "ja-q-choice"));
      const radio = label.appendChild(h("input"));
      radio.type = "radio";
      radio.name = name;
      radio.value = choice;
      label.append(choice);
      return /** @type {HTMLInputElement} */ (radio);
    });
    inputs = radios;
    read = () => {
      const picked = radios.find((r) => r.checked);
      return picked ? { answer: picked.value } : { error: "Pick one of the choices, or Skip." };
    };
  }

  /** @param {any} form */
  function fill(form) {
    const required = new Set(Array.isArray(form.required) ? form.required : []);
    const built = formFields(form).map(([name, spec]) => {
      const row = fields.appendChild(h("label", "ja-q-field"));
      const title = str(spec.title) || name;
      row.appendChild(h("span", "ja-q-label", title + (required.has(name) ? " *" : "")));
      /** @type {any} */
      let input;
      if (spec.type === "string" && Array.isArray(spec.enum)) {
        input = h("select", "ja-q-input");
        input.appendChild(h("option", "", "—")).value = ""; // nothing chosen until the person picks
        for (const v of spec.enum.filter((/** @type {unknown} */ v) => typeof v === "string")) {
          input.appendChild(h("option", "", v)).value = v;
        }
        if (typeof spec.default === "string") input.value = spec.default;
      } else {
        input = h("input", "ja-q-input");
        input.type = spec.type === "boolean" ? "checkbox" : spec.type === "string" ? "text" : "number";
        if (spec.type === "integer") input.step = "1";
        if (spec.type === "boolean") input.checked = spec.default === true;
        else if (spec.default != null) input.value = String(spec.default);
        if (spec.type !== "boolean") enterSubmits(input);
      }
      row.appendChild(input);
      if (str(spec.description)) row.appendChild(h("span", "ja-q-desc", spec.description));
      return { name, spec, title, input };
    });
    inputs = built.map((f) => f.input);
    read = () => {
      /** @type {Record<string, unknown>} */
      const answer = {};
      for (const f of built) {
        const value = fieldValue(f.spec, f.input);
        if (value instanceof Error) return { error: `${f.title}: ${value.message}.` };
        if (value === undefined && required.has(f.name)) return { error: `${f.title} is required.` };
        if (value !== undefined) answer[f.name] = value;
      }
      return { answer };
    };
  }

  function freeText() {
    const area = fields.appendChild(h("textarea", "ja-q-input ja-q-textarea"));
    area.placeholder = "Your answer";
    inputs = [area];
    read = () =>
      area.value.trim() ? { answer: area.value } : { error: "Type an answer, or Skip." };
  }

  return {
    el,
    /** Show `q`; its inputs work when `enabled`. @param {QuestionState} q @param {boolean} enabled */
    sync(q, enabled) {
      const k = JSON.stringify(q);
      if (k !== key) {
        key = k;
        origin.textContent = str(q.origin) ? `${q.origin} asks:` : "";
        setText(text, str(q.text));
        fields.replaceChildren();
        const choices = Array.isArray(q.choices) ? q.choices.filter((c) => typeof c === "string") : [];
        if (choices.length) choose(choices);
        else if (q.form && typeof q.form === "object") fill(q.form);
        else freeText();
      }
      for (const input of inputs) input.disabled = !enabled;
    },
    /** The answer the inputs hold, or why there is none yet. @returns {Read} */
    read: () => read(),
  };
}
