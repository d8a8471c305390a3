// @ts-check
// Formatting of durations, JSON, decisions and schemas for the view.

/** @typedef {import("./state.js").Approval} Approval */

/** @type {Record<string, string>} */
export const LABELS = { waiting: "waiting for approval", background: "running in background" };
/** @type {Record<string, string>} */
export const ICONS = {
  done: "✓", error: "✗", timeout: "⏱", rejected: "⊘", blocked: "⛔", waiting: "●",
  cancelled: "○", background: "⟳",
};
/** @type {Record<string, string>} */
export const STATUS_WORDS = {
  error: "failed", timeout: "timed out", rejected: "rejected", blocked: "blocked by a guardrail",
  cancelled: "cancelled", waiting: "needs approval", running: "running",
  background: "still running in the background",
};

/** The values of the state fields that become CSS classes. A saved run in a notebook someone
 * sent is untrusted: its values pick one of these, never a class of their own choosing. */
/** @type {{run: import("./state.js").RunStatus[], tool: import("./state.js").ToolStatus[],
 *  approval: import("./state.js").ApprovalState[], level: import("./state.js").NoticeLevel[],
 *  kind: import("./state.js").BlockKind[], live: import("./state.js").LiveOutput[],
 *  step: import("./state.js").StepStatus[]}} */
const KNOWN = {
  run: ["running", "waiting", "done", "failed", "cancelled", "background"],
  tool: ["running", "waiting", "done", "error", "timeout", "rejected", "blocked", "cancelled",
    "background"],
  approval: ["pending", "approved", "rejected", "expired"],
  level: ["info", "warning", "error"],
  kind: ["text", "reasoning", "tool", "notice", "event"],
  live: ["text", "terminal"],
  step: ["pending", "in_progress", "completed"],
};

/** `value` when it is a known value of `field`, else `fallback` (a value with no style).
 * @param {keyof typeof KNOWN} field @param {unknown} value @param {string} fallback */
export function known(field, value, fallback) {
  const values = /** @type {readonly string[]} */ (KNOWN[field]);
  return typeof value === "string" && values.includes(value) ? value : fallback;
}

/** @param {number} ms @param {boolean} [clock] whole seconds, for a ticking clock */
export function duration(ms, clock) {
  if (ms < 1000 && !clock) return `${Math.round(ms)} ms`;
  const s = clock ? Math.floor(ms / 1000) : ms / 1000;
  if (s < 60) return `${clock || s >= 10 ? Math.round(s) : s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  const pad = (/** @type {number} */ n) => String(Math.floor(n)).padStart(2, "0");
  return m < 60 ? `${m} min ${pad(s % 60)} s` : `${Math.floor(m / 60)} h ${pad(m % 60)} min`;
}

/** Indented JSON, or the text as it is. @param {string} text */
export function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** What was decided on a call.
 * @param {Pick<Approval, "state" | "edited" | "always" | "message" | "scope" | "question" | "answer" | "recorded">} a */
export function decided(a) {
  if (a.question) {
    if (a.state === "pending") return "Waiting for an answer.";
    if (a.state === "expired") return "No answer: the run ended first.";
    if (a.state === "approved") return "✓ Answered" + (a.answer ? `: ${a.answer}` : "");
    return "⊘ Skipped" + (a.message ? `: ${a.message}` : "");
  }
  if (a.state === "pending") return "Waiting for approval.";
  if (a.state === "expired") return "No decision: the run ended first.";
  const what = a.state === "approved" ? "✓ Approved" : "⊘ Rejected";
  const edited = a.edited ? " with edited arguments" : "";
  const always = a.scope === "notebook" ? " (always in this notebook)" : a.always ? " (always)" : "";
  const recorded = a.recorded ? " when it was recorded (not run now)" : "";
  return what + always + edited + recorded + (a.message ? `: ${a.message}` : "");
}

/** "name: type" for each parameter of a JSON schema. @param {any} schema */
export function schemaHint(schema) {
  const required = new Set(schema?.required || []);
  return Object.entries(schema?.properties || {})
    .map(([k, v]) => `${k}${required.has(k) ? "" : "?"}: ${v?.type || "any"}`)
    .join(" · ");
}

/**
 * The header's "context" item: how much of the model's window the last request used.
 * @param {unknown} ctx the header's `context` (untrusted: checked here)
 */
export function contextUse(ctx) {
  const c = /** @type {{used?: unknown, window?: unknown}} */ (ctx || {});
  const used = typeof c.used === "number" && Number.isFinite(c.used) && c.used > 0 ? c.used : 0;
  const win = typeof c.window === "number" && Number.isFinite(c.window) && c.window > 0 ? c.window : 0;
  if (!used) return { text: "", title: "", full: false };
  const k = (/** @type {number} */ n) => (n >= 1000 ? `${Math.round(n / 1000).toLocaleString()}k` : `${n}`);
  if (!win) {
    return { text: `context ${k(used)}`, title: `The last request sent ${used.toLocaleString()} tokens (the model's window is not known)`, full: false };
  }
  const share = Math.min(999, Math.round((100 * used) / win));
  return {
    text: `context ${share}% of ${k(win)}`,
    title: `The last request sent ${used.toLocaleString()} of the model's ${win.toLocaleString()}-token context window; near it, older turns are compacted into a summary`,
    full: share >= 80,
  };
}

/**
 * A running call's progress as its card shows it (untrusted: checked here): the share done
 * (null: not known) and a line such as "3 of 10 · parsing".
 * @param {unknown} progress the block's `progress`
 * @returns {{share: number | null, text: string} | null}
 */
export function progressOf(progress) {
  const p = /** @type {{done?: unknown, total?: unknown, message?: unknown}} */ (progress || {});
  if (typeof p.done !== "number" || !Number.isFinite(p.done) || p.done < 0) return null;
  const total = typeof p.total === "number" && Number.isFinite(p.total) && p.total > 0 ? p.total : null;
  const share = total == null ? null : Math.min(1, p.done / total);
  const count = total == null ? `${p.done.toLocaleString()}` : `${p.done.toLocaleString()} of ${total.toLocaleString()}`;
  const message = typeof p.message === "string" ? p.message.slice(0, 200) : "";
  return { share, text: message ? `${count} · ${message}` : count };
}

