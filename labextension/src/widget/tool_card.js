// @ts-check
// A tool card: summary line, the parts that show the call, arguments, printed output, the
// output's parts, error, approval controls. The parts are drawn by parts.js, one renderer per
// part type. The controls are built once, so typing in them survives updates.
import { drawAnsi } from "./ansi.js";
import { children, h, setText } from "./dom.js";
import { ICONS, STATUS_WORDS, decided, known, duration, pretty, progressOf, schemaHint } from "./format.js";
import { drawParts } from "./parts.js";
import { questionView } from "./question.js";

/** @typedef {import("./state.js").Block} Block */
/** @typedef {import("./state.js").ToolBlock} ToolBlock */
/** @typedef {import("./state.js").DecisionMessage} DecisionMessage */
/** @typedef {import("./state.js").ViewMessage} ViewMessage */
/** @typedef {{el: HTMLElement, kind: string, rev?: number, block?: Block, sync?: () => void}} View */
/** @typedef {{live: () => boolean, headerLive: () => boolean, send: (m: ViewMessage) => void,
 *  sent: Map<string, number>, errors: Map<string, string>}} Ctx */

/** Make `box` keep showing its newest line unless the reader scrolled up in it.
 * @param {HTMLElement} box */
function followable(box) {
  box.addEventListener("scroll", () => {
    box.dataset.up = box.scrollHeight - box.scrollTop - box.clientHeight > 8 ? "1" : "";
  });
}

/** @param {HTMLElement} box @param {string} text */
function follow(box, text, terminal = false) {
  if (terminal) drawAnsi(box, text);
  else setText(box, text);
  if (box.dataset.up !== "1") box.scrollTop = box.scrollHeight;
}

/** @param {Ctx} ctx @returns {View} */
export function toolView(ctx) {
  const card = h("div", "ja-tool");
  const det = card.appendChild(h("details"));
  const sum = det.appendChild(h("summary"));
  const [icon, name, origin, badge, args1, status, ms] = children(
    sum,
    "span",
    "ja-icon ja-name ja-origin ja-badge ja-args1 ja-tstatus ja-ms",
  );
  const call = det.appendChild(h("div", "ja-parts ja-call"));
  const [args, printed] = children(det, "pre", "ja-args ja-printed");
  const output = det.appendChild(h("div", "ja-parts ja-output"));
  followable(printed);
  const progress = card.insertBefore(h("div", "ja-progress"), null); // how far a running call is
  const bar = progress.appendChild(h("div", "ja-bar"));
  bar.setAttribute("role", "progressbar");
  const fill = bar.appendChild(h("div", "ja-fill"));
  const progressText = progress.appendChild(h("span", "ja-progress-text"));
  det.addEventListener("toggle", () => {
    if (det.open && printed.dataset.up !== "1") printed.scrollTop = printed.scrollHeight;
  });
  const failure = det.appendChild(h("div", "ja-failure"));
  const trace = det.appendChild(h("details", "ja-trace"));
  trace.appendChild(h("summary", "", "Traceback"));
  const traceText = trace.appendChild(h("pre"));
  const note = card.appendChild(h("div", "ja-note")); // e.g. what a call did in the background
  const box = card.appendChild(h("div", "ja-approval"));
  const done = box.appendChild(h("div"));
  const form = box.appendChild(h("div", "ja-form"));
  const escalation = form.appendChild(h("div", "ja-escalation"));
  const question = questionView(() => decide(true));
  form.appendChild(question.el);
  const err = form.appendChild(h("div", "ja-err"));
  const editor = form.appendChild(h("textarea", "ja-editor"));
  editor.spellcheck = false;
  const hint = form.appendChild(h("div", "ja-hint"));
  const row = form.appendChild(h("div", "ja-row"));
  const approve = row.appendChild(h("button", "ja-btn ja-primary", "Approve"));
  const reject = row.appendChild(h("button", "ja-btn ja-danger", "Reject"));
  const reason = row.appendChild(h("input", "ja-reason"));
  reason.placeholder = "Reason (optional, for the model)";
  const label = row.appendChild(h("label", "ja-always"));
  const always = label.appendChild(h("input"));
  always.type = "checkbox";
  label.append(" always for this tool");
  const nbLabel = row.appendChild(h("label", "ja-always-notebook"));
  const inNotebook = nbLabel.appendChild(h("input"));
  inNotebook.type = "checkbox";
  nbLabel.append(" in this notebook");
  inNotebook.onchange = () => {
    if (inNotebook.checked) always.checked = true; // "in this notebook" is an "always"
  };
  always.onchange = () => {
    if (!always.checked) inNotebook.checked = false;
  };
  const edit = row.appendChild(h("button", "ja-btn ja-link"));
  let editing = false;
  /** @type {View} */
  const v = { el: card, kind: "tool", rev: -1 };
  const blk = () => /** @type {ToolBlock} */ (v.block);
  const clickable = () => {
    const a = blk().approval;
    const waiting = a?.state === "pending" && !!a.interactive && !!a.request;
    return waiting && ctx.live() && ctx.sent.get(a?.request || "") !== a?.attempt;
  };

  /** @param {boolean} approved */
  function decide(approved) {
    const b = blk();
    const approval = b.approval;
    if (!clickable() || !approval?.request) return;
    /** @type {DecisionMessage} */
    const msg = {
      type: "decision",
      id: b.id,
      request: approval.request,
      approved,
      always: always.checked,
    };
    if (always.checked && inNotebook.checked && approval.notebook) msg.scope = "notebook";
    if (!approved && reason.value.trim()) msg.message = reason.value.trim();
    if (approved && approval.question) {
      const read = question.read();
      if (read.error !== undefined) {
        ctx.errors.set(b.id, read.error);
        return v.sync?.();
      }
      msg.answer = read.answer;
    } else if (approved && editing && approval.plan) {
      const steps = editor.value.split("\n").map((/** @type {string} */ s) => s.trim()).filter(Boolean);
      if (!steps.length) {
        ctx.errors.set(b.id, "Write at least one step, one per line.");
        return v.sync?.();
      }
      msg.arguments = planArguments(steps, approval.arguments);
    } else if (approved && editing) {
      let value = null;
      try {
        value = JSON.parse(editor.value);
      } catch (e) {
        ctx.errors.set(b.id, `Not valid JSON: ${e}`);
      }
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        if (!ctx.errors.has(b.id)) ctx.errors.set(b.id, "The arguments must be a JSON object.");
        return v.sync?.();
      }
      msg.arguments = value;
    }
    ctx.errors.delete(b.id);
    ctx.sent.set(approval.request, approval.attempt || 0);
    ctx.send(msg);
    v.sync?.();
  }
  approve.onclick = () => decide(true);
  reject.onclick = () => decide(false);
  edit.onclick = () => {
    editing = !editing;
    const a = blk().approval;
    if (editing) editor.value = a?.plan ? planLines(a.arguments) : pretty(a?.arguments || "{}");
    v.sync?.();
  };

  v.sync = () => {
    const b = blk();
    const st = known("tool", b.status || "done", "unknown");
    const terminal = known("live", b.live, "text") === "terminal"; // its live output reads like one
    card.className = `ja-tool ja-st-${st}` + (terminal ? " ja-terminal" : "");
    icon.textContent = ICONS[st] || "";
    name.textContent = b.name || "tool";
    name.title = b.call_id ? `call ${b.call_id}` : "";
    origin.textContent = b.origin ? `from ${b.origin}` : ""; // e.g. an MCP server and its tool
    badge.textContent = b.badge || "";
    badge.dataset.verdict = (b.badge || "").split(":")[0];
    const asked = b.approval?.question;
    setText(args1, asked ? asked.text : b.args || ""); // a question reads better than JSON
    const word = asked && st === "waiting" ? "asks you" : asked && st === "rejected" ? "skipped" : STATUS_WORDS[st] || st;
    status.textContent = st === "done" ? "" : word; // a question nobody answered was skipped, not refused
    ms.textContent = b.replayed ? "replayed" : b.ms != null ? duration(b.ms) : "";
    ms.title = b.replayed ? "Answered from the run's recording: the tool did not run." : "";
    const parts = Array.isArray(b.parts) ? b.parts.filter((p) => p && typeof p === "object") : [];
    const shown = parts.filter((p) => p.role === "call"); // they stand for the arguments
    drawParts(call, shown);
    // The model's question is in the form while it waits; a server's question is not the call.
    const asking = b.approval?.state === "pending" && !!b.approval.question;
    call.hidden = asking && !b.approval?.question?.origin;
    drawParts(output, parts.filter((p) => p.role !== "call"));
    setText(args, pretty(b.args || "{}") + (b.args_cut ? "\n…" : ""));
    args.hidden = shown.length > 0;
    follow(printed, (b.printed_cut ? "…" : "") + (b.printed || ""), terminal);
    printed.hidden = !b.printed;
    setText(note, b.note || "");
    note.hidden = !b.note;
    const going = progressOf(b.progress);
    progress.hidden = !going || !["running", "background"].includes(st);
    if (going) {
      fill.style.width = going.share == null ? "100%" : `${(100 * going.share).toFixed(1)}%`;
      bar.classList.toggle("ja-unknown", going.share == null);
      bar.setAttribute("aria-valuemin", "0");
      bar.setAttribute("aria-valuemax", "100");
      if (going.share == null) bar.removeAttribute("aria-valuenow");
      else bar.setAttribute("aria-valuenow", String(Math.round(100 * going.share)));
      bar.setAttribute("aria-label", going.text);
      progressText.textContent = going.text;
    }
    const e = b.error;
    failure.hidden = !e;
    setText(failure, e ? `${e.type || "Error"}: ${e.message || ""}` : "");
    trace.hidden = !e?.traceback;
    setText(traceText, e?.traceback || "");
    const a = b.approval;
    box.hidden = !a;
    if (!a) return;
    const pending = a.state === "pending";
    form.hidden = !(pending && a.interactive && ctx.headerLive());
    done.hidden = !form.hidden;
    done.className = `ja-decided ja-a-${known("approval", a.state, "unknown")}`;
    done.textContent = decided(a) + (b.escalation && !pending ? " to run outside the sandbox" : "");
    escalation.textContent = b.escalation ? `Run outside the sandbox? ${b.escalation}` : "";
    escalation.hidden = !b.escalation;
    label.hidden = !!b.escalation || !!a.once; // "always" never covers such a call
    const q = a.question;
    question.el.hidden = !q;
    if (q) question.sync(q, clickable());
    edit.hidden = !!q;
    reason.placeholder = q ? "Why you skip it (optional, for the model)" : "Reason (optional, for the model)";
    nbLabel.hidden = label.hidden || !a.notebook;
    const can = clickable();
    for (const c of [approve, reject, edit, reason, always, inNotebook, editor]) {
      c.disabled = !can;
    }
    const p = !!a.plan; // the plan of a plan-mode run: nothing acts until it is approved
    approve.textContent = q ? "Answer" : editing ? (p ? "Approve edited plan" : "Approve with edits") : p ? "Approve plan" : "Approve";
    reject.textContent = q ? "Skip" : p ? "Reject plan" : "Reject";
    edit.textContent = editing ? "Cancel edit" : p ? "Edit plan" : "Edit arguments";
    if (p) reason.placeholder = "Why you reject it (optional; the run ends)";
    approve.setAttribute("aria-label", p ? "Approve this plan: the agent may act on it" : approve.textContent);
    reject.setAttribute("aria-label", p ? "Reject this plan: the run ends" : reject.textContent);
    editor.hidden = hint.hidden = !editing || !!q;
    editor.setAttribute("aria-label", p ? "The plan, one step per line" : "The call's arguments as JSON");
    hint.textContent = p ? "One step per line; the agent gets the plan as you leave it." : schemaHint(a.schema);
    err.textContent = ctx.errors.get(b.id) || a.error || "";
    err.hidden = !err.textContent;
  };
  return v;
}

/**
 * The plan's steps, one per line, for the plan editor.
 * @param {string | undefined} args the call's arguments (JSON text)
 */
function planLines(args) {
  try {
    const plan = JSON.parse(args || "{}").plan;
    return Array.isArray(plan) ? plan.map((/** @type {any} */ s) => (s && typeof s.step === "string" ? s.step : "")).filter(Boolean).join("\n") : "";
  } catch {
    return "";
  }
}

/**
 * The update_plan arguments for edited steps: each line a step (a step the plan had keeps its
 * status, a new one is pending), the model's explanation kept.
 * @param {string[]} steps
 * @param {string | undefined} args the call's arguments (JSON text)
 */
function planArguments(steps, args) {
  /** @type {Record<string, string>} */
  const had = {};
  /** @type {unknown} */
  let explanation;
  try {
    const sent = JSON.parse(args || "{}");
    explanation = sent.explanation;
    for (const s of Array.isArray(sent.plan) ? sent.plan : []) {
      if (s && typeof s.step === "string" && typeof s.status === "string") had[s.step] = s.status;
    }
  } catch {
    /* the model's arguments were not JSON: every step is new */
  }
  const plan = steps.map((step) => ({ step, status: had[step] || "pending" }));
  return typeof explanation === "string" && explanation ? { explanation, plan } : { plan };
}
