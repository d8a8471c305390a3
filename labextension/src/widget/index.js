// @ts-check
// Live view of one agent run; state and messages are documented in notebook/view/widget.py.
// Untrusted text reaches the DOM only as text nodes or through markdown.js (markdown-it,
// then DOMPurify).
import { children, h, setText } from "./dom.js";
import { LABELS, contextUse, duration, known } from "./format.js";
import { renderMarkdown } from "./markdown.js";
import { planView } from "./plan.js";
import { toolView } from "./tool_card.js";

/** @typedef {import("./state.js").Block} Block */
/** @typedef {import("./state.js").Header} Header */
/** @typedef {import("./state.js").ToolBlock} ToolBlock */
/** @typedef {import("./state.js").ViewMessage} ViewMessage */
/** @typedef {import("./tool_card.js").View} View */
/** @typedef {{get(k: string): unknown, on(e: string, f: Function): void,
 *  off(e: string, f: Function): void, send(m: ViewMessage): void}} Model */

/** A string field of a block as saved (a saved run is untrusted: anything else reads as "").
 * @param {Block} b @param {string} name */
const field = (b, name) => {
  const value = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (b))[name];
  return typeof value === "string" ? value : "";
};

const LIVE = ["running", "waiting", "background"];
const WAITS = ["model", "tool", "person"];
const MODES = ["ask", "plan", "agent"];
/** @type {Record<string, string>} */
const MODE_TITLES = {
  ask: "Ask mode: the agent only reads; tools that change something are refused",
  plan: "Plan mode: the agent reads, then proposes a plan for you to approve before it acts",
  agent: "Agent mode: the agent acts, under the approval and sandbox policies",
};
/** Asks JupyterLab (labextension/src/runlive) to run the cell again, asking the model. */
const RUN_LIVE_EVENT = "jupyter-agents:run-live";
const OFFLINE = "Not connected to a running kernel: buttons are disabled.";

/** @param {{model: Model, el: HTMLElement}} ctx */
function render({ model, el }) {
  const ui = { alive: false, lost: false, stopping: false };
  /** @type {Map<string, View>} */
  const views = new Map();
  /** Streamed text by block id (the synced blocks carry only its length while live).
   * @type {Map<string, string>} */
  const texts = new Map();

  const root = el.appendChild(h("div", "ja-run"));
  const head = root.appendChild(h("div", "ja-head"));
  const [agent, dot, modelName, pill, elapsed, tokens, context, cost] = children(
    head,
    "span",
    "ja-agent ja-dot ja-model ja-pill ja-meta ja-meta ja-meta ja-meta",
  );
  cost.title = "What the run's model calls cost, priced by genai-prices";
  dot.textContent = "·";
  const mode = head.appendChild(h("span", "ja-badge ja-mode", "")); // ask / plan / agent
  const replayed = head.appendChild(h("span", "ja-badge ja-replayed", ""));
  replayed.dataset.verdict = "replayed";
  replayed.title = "Replayed from the cell's recording: the model was not asked.";
  const stop = head.appendChild(h("button", "ja-btn ja-stop", "■ Stop"));
  const runLive = head.appendChild(h("button", "ja-btn ja-run-live", "▶ Run live"));
  runLive.title = "Run this cell again, asking the model instead of replaying its recording";
  const detail = root.appendChild(h("div", "ja-detail"));
  const waiting = root.appendChild(h("div", "ja-wait")); // what the run waits for, from 5 s on
  const plan = planView(); // the model's checklist (update_plan), above the blocks
  root.appendChild(plan.el);
  const body = root.appendChild(h("div", "ja-blocks"));
  const note = root.appendChild(h("div", "ja-offline", OFFLINE));

  const header = () => /** @type {Partial<Header>} */ (model.get("header") || {});
  const blocksOf = () => /** @type {Block[]} */ (model.get("blocks") || []);
  const live = () => !!header().live && ui.alive;
  const cardCtx = {
    live,
    headerLive: () => !!header().live,
    send: (/** @type {ViewMessage} */ m) => model.send(m),
    /** @type {Map<string, number>} request id -> attempt a decision was sent for */
    sent: new Map(),
    /** @type {Map<string, string>} card id -> why the edit was refused */
    errors: new Map(),
  };

  function tick() {
    const hd = header();
    const end = hd.ended_at || (hd.live && ui.alive ? Date.now() : 0);
    const ms = end && hd.started_at ? Math.max(0, end - hd.started_at) : null;
    elapsed.textContent = ms == null ? "" : duration(ms, !hd.ended_at);
    const w = hd.live && ui.alive ? hd.wait : undefined; // a saved run waits for nothing
    const shown = !!w && typeof w.text === "string" && typeof w.since === "number";
    waiting.textContent = shown ? `${w.text} · ${duration(Math.max(0, Date.now() - w.since), true)}` : "";
    waiting.className = `ja-wait ja-w-${shown && WAITS.includes(w.on) ? w.on : "model"}`;
  }

  function drawHeader() {
    const hd = header();
    agent.textContent = hd.agent || "agent";
    modelName.textContent = hd.model || "";
    pill.textContent = LABELS[hd.status || ""] || hd.status || "";
    const asks = (/** @type {any} */ b) => b?.approval?.state === "pending" && !!b.approval.question;
    if (hd.status === "waiting" && blocksOf().some(asks)) pill.textContent = "waiting for your answer";
    const status = known("run", hd.status, "unknown");
    pill.className = `ja-pill ja-s-${status}`;
    detail.className = `ja-detail ja-s-${status}`;
    setText(detail, hd.detail || "");
    const t = hd.tokens;
    const counted = !!t && t.total > 0; // no "0 tokens" before usage is known
    tokens.textContent = counted ? `${t.total.toLocaleString()} tokens` : "";
    tokens.title = counted ? `${t.input.toLocaleString()} in · ${t.output.toLocaleString()} out` : "";
    const c = contextUse(hd.context);
    context.textContent = c.text;
    context.title = c.title;
    context.dataset.full = c.full ? "1" : "";
    cost.textContent = hd.cost || "";
    const m = MODES.includes(hd.mode || "") ? hd.mode : "";
    mode.textContent = m ? `${m} mode` : "";
    mode.dataset.verdict = m ? `mode-${m}` : "";
    mode.title = m ? MODE_TITLES[m] : "";
    replayed.textContent = hd.replayed ? "replayed" : "";
    // Only JupyterLab with this extension (it marks the page) can run the cell again.
    runLive.hidden = !(hd.replayed && !hd.live && document.body.dataset.jupyterAgentsLab === "1");
    stop.hidden = !(hd.live && LIVE.includes(hd.status || ""));
    stop.disabled = !live() || ui.stopping;
    if (ui.stopping) stop.textContent = "Stopping…";
    note.hidden = !(ui.lost && hd.live);
    plan.draw(hd.plan);
    tick();
  }

  stop.onclick = () => {
    if (!live() || ui.stopping) return;
    ui.stopping = true;
    model.send({ type: "stop" });
    drawHeader();
  };

  runLive.onclick = () => {
    const event = new CustomEvent(RUN_LIVE_EVENT, { bubbles: true, cancelable: true });
    if (root.dispatchEvent(event)) return; // nothing took it: the button stays as it was
    runLive.disabled = true;
    runLive.textContent = "Running live…";
  };

  /** @param {string} kind @returns {View} */
  function create(kind) {
    if (kind === "tool") return toolView(cardCtx);
    if (kind === "text") return { el: h("div", "ja-text ja-md"), kind };
    if (kind !== "reasoning") return { el: h("div", `ja-${kind}`), kind };
    const d = h("details", "ja-reasoning");
    d.append(h("summary", "", "Reasoning"), h("div", "ja-md"));
    return { el: d, kind };
  }

  /** The text of a text or reasoning block: the synced one, else what was streamed.
   * @param {Block} b */
  const textOf = (b) => (b.kind === "text" && b.text == null ? texts.get(b.id) || "" : field(b, "text"));

  /** @param {View} v @param {Block} b */
  function update(v, b) {
    if (v.sync) {
      const was = v.block ? /** @type {ToolBlock} */ (v.block).status || "done" : undefined;
      v.block = b;
      v.sync();
      const st = /** @type {ToolBlock} */ (b).status || "done";
      const det = /** @type {HTMLDetailsElement} */ (v.el.firstChild);
      if (was !== st && (st === "waiting" || st === "error")) det.open = true;
      return;
    }
    v.block = b;
    const target = /** @type {HTMLElement} */ (v.kind === "reasoning" ? v.el.lastChild : v.el);
    if (v.kind === "text" || v.kind === "reasoning") {
      stale.delete(b.id); // drawn now
      renderMarkdown(textOf(b), target, v.kind === "text" && !header().live);
    } else if (v.kind === "notice") {
      v.el.className = `ja-notice ja-l-${known("level", field(b, "level"), "info")}`;
      target.replaceChildren(field(b, "text"));
    } else target.replaceChildren(h("span", "ja-label", field(b, "label") || v.kind), " ", field(b, "text"));
  }

  function drawBlocks() {
    const blocks = blocksOf();
    const seen = new Set();
    /** @type {ChildNode | null} */
    let prev = null;
    for (const b of blocks) {
      const kind = known("kind", b.kind || "tool", "event");
      seen.add(b.id);
      let v = views.get(b.id);
      if (!v || v.kind !== kind) {
        v?.el.remove();
        views.set(b.id, (v = create(kind)));
      }
      if (v.rev !== b.rev || b.rev == null) {
        update(v, b);
        v.rev = b.rev;
      }
      /** @type {ChildNode | null} */
      const want = prev ? prev.nextSibling : body.firstChild;
      if (want !== v.el) body.insertBefore(v.el, want);
      prev = v.el;
    }
    for (const [id, v] of views) {
      if (!seen.has(id)) (v.el.remove(), views.delete(id));
    }
    caret();
    if (header().status === "waiting") drawHeader(); // is it an approval or a question?
  }

  /** A blinking caret after the text being streamed. */
  function caret() {
    const blocks = blocksOf();
    const last = blocks[blocks.length - 1];
    const on = last?.kind === "text" && header().live ? views.get(last.id) : undefined;
    for (const v of views.values()) v.el.classList.toggle("ja-streaming", v === on);
  }

  /** Text blocks whose streamed text changed since they were last drawn. @type {Set<string>} */
  const stale = new Set();
  let drawTimer = 0;
  let drawAt = 0;
  /** Redraw the text block `id` from the buffer, soon. Drawing renders the whole text again
   * (markdown, then DOMPurify), so a long answer streamed in many small appends would cost
   * time in proportion to its length on every append: appends are drawn together, and the
   * pause before the next drawing is at least a frame and four times what the last one took,
   * so drawing takes at most a fifth of the page's time however long the text grows.
   * @param {string} id */
  function redrawText(id) {
    stale.add(id);
    if (!drawTimer) drawTimer = window.setTimeout(drawStale, Math.max(0, drawAt - performance.now()));
  }
  function drawStale() {
    drawTimer = 0;
    const started = performance.now();
    for (const id of stale) {
      const v = views.get(id);
      if (v?.block && !v.sync) update(v, v.block);
    }
    stale.clear();
    const now = performance.now();
    drawAt = now + Math.max(16, 4 * (now - started));
  }

  const resync = () => {
    drawHeader();
    caret();
    for (const v of views.values()) v.sync?.();
  };
  /** @param {any} msg */
  const onMsg = (msg) => {
    const type = msg?.type;
    if (type === "text" && typeof msg.id === "string") {
      texts.set(msg.id, String(msg.text ?? ""));
      return redrawText(msg.id);
    }
    if (type === "append" && typeof msg.id === "string") {
      const have = texts.get(msg.id) || "";
      const add = String(msg.text ?? "");
      if (msg.at > have.length) return model.send({ type: "hello" }); // a gap: ask for all
      texts.set(msg.id, have.slice(0, msg.at) + add);
      return redrawText(msg.id);
    }
    if (type === "alive") {
      ui.alive = true;
      ui.lost = false;
    } else if (type === "decision_error" && typeof msg.id === "string") {
      const card = /** @type {ToolBlock | undefined} */ (views.get(msg.id)?.block);
      if (card?.approval?.request) cardCtx.sent.delete(card.approval.request);
      cardCtx.errors.set(msg.id, String(msg.error || "The edited arguments were refused."));
    } else return;
    resync();
  };
  model.on("change:header", resync);
  model.on("change:blocks", drawBlocks);
  model.on("msg:custom", onMsg);
  drawBlocks();
  drawHeader();
  model.send({ type: "hello" });
  const timer = setInterval(tick, 1000);
  const offline = setTimeout(() => {
    ui.lost = !ui.alive;
    if (ui.lost) resync();
  }, 2000);

  return () => {
    model.off("change:header", resync);
    model.off("change:blocks", drawBlocks);
    model.off("msg:custom", onMsg);
    clearInterval(timer);
    clearTimeout(offline);
    clearTimeout(drawTimer);
    root.remove();
  };
}

export default { render };
