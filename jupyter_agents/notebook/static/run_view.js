// @ts-check
// Live view of one agent run; state and messages are documented in notebook/widget.py.
// Model text is untrusted: it only reaches the DOM as text nodes (no innerHTML anywhere).

/** @typedef {{state: string, attempt?: number, interactive?: boolean, arguments?: string,
 *  schema?: any, error?: string, always?: boolean, message?: string, edited?: boolean}} Approval */
/** @typedef {{id: string, call_id?: string, kind?: string, rev?: number, text?: string,
 *  name?: string, args?: string, args_cut?: number, status?: string, ms?: number,
 *  output?: string, output_cut?: number, printed?: string, printed_cut?: number,
 *  approval?: Approval, level?: string, label?: string}} Block */
/** @typedef {{get(k: string): any, on(e: string, f: Function): void,
 *  off(e: string, f: Function): void, send(m: object): void}} Model */
/** @typedef {{el: HTMLElement, kind: string, rev?: number, block?: Block, sync?: () => void}} View */

const LIVE = ["running", "waiting", "background"];
const OFFLINE = "Not connected to a running kernel: buttons are disabled.";
/** @type {Record<string, string>} */
const LABELS = { waiting: "waiting for approval", background: "running in background" };
/** @type {Record<string, string>} */
const ICONS = { done: "✓", error: "✗", rejected: "⊘", waiting: "●", cancelled: "○" };

/** @param {string} tag @param {string} [cls] @param {string} [text] @returns {any} */
function h(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

/** One child `tag` of `parent` per class name. @param {Node} parent @param {string} tag
 * @param {string} classes space-separated @returns {any[]} */
const children = (parent, tag, classes) =>
  classes.split(" ").map((c) => parent.appendChild(h(tag, c)));

// ---- markdown: a safe subset, built with DOM calls ----

const U = String.raw`<?((?:[^()\s<>]|\([^()\s<>]*\))*)>?(?:\s+["'][^)]*["'])?\s*\)`;
const INLINE = new RegExp(
  [
    String.raw`\\([\\\x60*_{}\[\]()#+\-.!|>~<])`,
    String.raw`(\x60+)([\s\S]+?)\2`,
    String.raw`!\[([^\]]*)\]\(\s*` + U,
    String.raw`\[([^\]]+)\]\(\s*` + U,
    String.raw`<((?:https?:\/\/|mailto:)[^>\s]+)>`,
    String.raw`(https?:\/\/[^\s<>"]*[^\s<>".,;:!?)\]'*_])`,
    String.raw`\*\*(\S(?:[\s\S]*?\S)?)\*\*|__(\S(?:[\s\S]*?\S)?)__`,
    String.raw`~~(\S(?:[\s\S]*?\S)?)~~`,
    String.raw`\*([^*\s](?:[^*]*?[^*\s])?)\*|(?<!\w)_([^_\s](?:[^_]*?[^_\s])?)_(?!\w)`,
  ].join("|"),
  "g",
);
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** An absolute http(s) / mailto URL, else null. @param {string} url */
export function safeUrl(url) {
  url = url.trim();
  if (!/^(https?:\/\/|mailto:)[^\s\x00-\x1f"'<>`]+$/i.test(url)) return null;
  try {
    const u = new URL(url);
    return ["http:", "https:", "mailto:"].includes(u.protocol) ? u.href : null;
  } catch {
    return null;
  }
}

/** A link opening in a new tab, or a plain span for an unsafe URL. @param {string} url */
function link(url) {
  const safe = safeUrl(url);
  if (!safe) return h("span");
  const a = h("a");
  Object.assign(a, { href: safe, target: "_blank", rel: "noopener noreferrer nofollow" });
  return a;
}

/** Append inline markdown. @param {string} text @param {HTMLElement} p */
function inline(text, p) {
  let pos = 0;
  for (const m of text.matchAll(INLINE)) {
    p.append(text.slice(pos, m.index));
    pos = (m.index || 0) + m[0].length;
    const g = m.slice(1);
    /** @param {string} tag @param {string} inner */
    const wrap = (tag, inner) => inline(inner, p.appendChild(h(tag)));
    if (g[0]) p.append(g[0]);
    else if (g[1]) p.append(h("code", "", g[2].trim()));
    else if (m[0][0] === "!") p.appendChild(link(g[4])).append("🖼 " + (g[3] || "image"));
    else if (g[5]) inline(g[5], p.appendChild(link(g[6])));
    else if (g[7] || g[8]) p.appendChild(link(g[7] || g[8])).append(g[7] || g[8]);
    else if (g[9] || g[10]) wrap("strong", g[9] || g[10]);
    else if (g[11]) wrap("del", g[11]);
    else wrap("em", g[12] || g[13]);
  }
  p.append(text.slice(pos));
}

/** @param {string} line */
const cells = (line) =>
  line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

/** @param {string} line @param {string} [next] */
const startsBlock = (line, next) =>
  [FENCE, HEADING, RULE, QUOTE, ITEM].some((re) => re.test(line)) ||
  (line.includes("|") && next != null && TABLE_RULE.test(next));

/** Render markdown into `parent`. @param {string} text @param {HTMLElement} parent */
export function markdown(text, parent) {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  for (let i = 0, m; i < lines.length;) {
    const line = lines[i];
    if (!line.trim()) i++;
    else if ((m = FENCE.exec(line))) {
      const body = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(m[1]); i++) body.push(lines[i]);
      i++;
      parent.appendChild(h("pre")).append(h("code", "", body.join("\n")));
    } else if ((m = HEADING.exec(line))) {
      inline(m[2], parent.appendChild(h("h" + m[1].length)));
      i++;
    } else if (RULE.test(line)) {
      parent.append(h("hr"));
      i++;
    } else if (QUOTE.test(line)) {
      const body = [];
      for (; i < lines.length && (m = QUOTE.exec(lines[i])); i++) body.push(m[1]);
      markdown(body.join("\n"), parent.appendChild(h("blockquote")));
    } else if ((m = ITEM.exec(line))) {
      i = list(lines, i, m[1].length, parent);
    } else if (line.includes("|") && TABLE_RULE.test(lines[i + 1] || "")) {
      const table = parent.appendChild(h("table"));
      /** @param {string} l @param {string} tag @param {HTMLElement} into */
      const row = (l, tag, into) => {
        const tr = into.appendChild(h("tr"));
        for (const c of cells(l)) inline(c, tr.appendChild(h(tag)));
      };
      row(line, "th", table.appendChild(h("thead")));
      const body = table.appendChild(h("tbody"));
      for (i += 2; i < lines.length && lines[i].includes("|") && lines[i].trim(); i++) {
        row(lines[i], "td", body);
      }
    } else {
      const para = [line.trim()];
      for (i++; i < lines.length && lines[i].trim() && !startsBlock(lines[i], lines[i + 1]); i++) {
        para.push(lines[i].trim());
      }
      inline(para.join("\n"), parent.appendChild(h("p")));
    }
  }
}

/** @param {string[]} lines @param {number} i @param {number} indent @param {HTMLElement} parent */
function list(lines, i, indent, parent) {
  const first = /** @type {RegExpExecArray} */ (ITEM.exec(lines[i]));
  const ordered = /\d/.test(first[2]);
  const pad = " ".repeat(indent + 2);
  /** @type {string[][]} */
  const items = [];
  for (; i < lines.length; i++) {
    const line = lines[i];
    const m = ITEM.exec(line);
    if (m && m[1].length <= indent + 1) {
      if (/\d/.test(m[2]) !== ordered) break;
      items.push([m[3]]);
    } else if (line.trim() && (line.startsWith(pad) || !startsBlock(line))) {
      items[items.length - 1].push(line.startsWith(pad) ? line.slice(pad.length) : line);
    } else if (!line.trim() && (lines[i + 1] || "").startsWith(pad)) {
      items[items.length - 1].push("");
    } else break;
  }
  const el = parent.appendChild(h(ordered ? "ol" : "ul"));
  if (ordered && parseInt(first[2], 10) !== 1) el.start = parseInt(first[2], 10);
  for (const body of items) {
    const li = el.appendChild(h("li"));
    markdown(body.join("\n"), li);
    const p = li.firstElementChild;
    if (p?.tagName === "P" && li.querySelectorAll(":scope > p").length === 1) {
      p.replaceWith(...p.childNodes); // tight list item
    }
  }
  return i;
}

// ---- the view ----

/** @param {number} ms @param {boolean} [clock] whole seconds, for a ticking clock */
function duration(ms, clock) {
  if (ms < 1000 && !clock) return `${Math.round(ms)} ms`;
  const s = clock ? Math.floor(ms / 1000) : ms / 1000;
  if (s < 60) return `${clock || s >= 10 ? Math.round(s) : s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  const pad = (/** @type {number} */ n) => String(Math.floor(n)).padStart(2, "0");
  return m < 60 ? `${m} min ${pad(s % 60)} s` : `${Math.floor(m / 60)} h ${pad(m % 60)} min`;
}

/** Indented JSON, or the text as it is. @param {string} text */
function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** What was decided on a call. @param {Approval} a */
function decided(a) {
  if (a.state === "pending") return "Waiting for approval.";
  if (a.state === "expired") return "No decision: the run ended first.";
  const what = a.state === "approved" ? "✓ Approved" : "⊘ Rejected";
  const edited = a.edited ? " with edited arguments" : "";
  return what + (a.always ? " (always)" : "") + edited + (a.message ? `: ${a.message}` : "");
}

/** "name: type" for each parameter of a JSON schema. @param {any} schema */
function schemaHint(schema) {
  const required = new Set(schema?.required || []);
  return Object.entries(schema?.properties || {})
    .map(([k, v]) => `${k}${required.has(k) ? "" : "?"}: ${v?.type || "any"}`)
    .join(" · ");
}

/** @param {{model: Model, el: HTMLElement}} ctx */
function render({ model, el }) {
  const ui = { alive: false, lost: false, stopping: false };
  /** @type {Map<string, number>} call id -> attempt a decision was sent for */
  const sent = new Map();
  /** @type {Map<string, string>} call id -> why the edit was refused */
  const errors = new Map();
  /** @type {Map<string, View>} */
  const views = new Map();

  const root = el.appendChild(h("div", "ja-run"));
  const head = root.appendChild(h("div", "ja-head"));
  const [agent, dot, modelName, pill, elapsed, tokens] = children(
    head,
    "span",
    "ja-agent ja-dot ja-model ja-pill ja-meta ja-meta",
  );
  dot.textContent = "·";
  const stop = head.appendChild(h("button", "ja-btn ja-stop", "■ Stop"));
  const detail = root.appendChild(h("div", "ja-detail"));
  const body = root.appendChild(h("div", "ja-blocks"));
  const note = root.appendChild(h("div", "ja-offline", OFFLINE));

  const header = () => model.get("header") || {};
  const live = () => !!header().live && ui.alive;

  function tick() {
    const hd = header();
    const end = hd.ended_at || (hd.live && ui.alive ? Date.now() : 0);
    const ms = end && hd.started_at ? Math.max(0, end - hd.started_at) : null;
    elapsed.textContent = ms == null ? "" : duration(ms, !hd.ended_at);
  }

  function drawHeader() {
    const hd = header();
    agent.textContent = hd.agent || "agent";
    modelName.textContent = hd.model || "";
    pill.textContent = LABELS[hd.status] || hd.status || "";
    pill.className = `ja-pill ja-s-${hd.status}`;
    detail.className = `ja-detail ja-s-${hd.status}`;
    detail.textContent = hd.detail || "";
    const t = hd.tokens;
    tokens.textContent = t ? `${t.total.toLocaleString()} tokens` : "";
    tokens.title = t ? `${t.input.toLocaleString()} in · ${t.output.toLocaleString()} out` : "";
    stop.hidden = !(hd.live && LIVE.includes(hd.status));
    stop.disabled = !live() || ui.stopping;
    if (ui.stopping) stop.textContent = "Stopping…";
    note.hidden = !(ui.lost && hd.live);
    tick();
  }

  stop.onclick = () => {
    if (!live() || ui.stopping) return;
    ui.stopping = true;
    model.send({ type: "stop" });
    drawHeader();
  };

  /** A tool card; its approval controls are built once, so typing survives updates. */
  function toolView() {
    const card = h("div", "ja-tool");
    const det = card.appendChild(h("details"));
    const sum = det.appendChild(h("summary"));
    const [icon, name, args1, status, ms] = children(
      sum,
      "span",
      "ja-icon ja-name ja-args1 ja-tstatus ja-ms",
    );
    const [args, printed, out] = children(det, "pre", "ja-args ja-printed ja-out");
    const cut = det.appendChild(h("div", "ja-cut"));
    const box = card.appendChild(h("div", "ja-approval"));
    const done = box.appendChild(h("div"));
    const form = box.appendChild(h("div", "ja-form"));
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
    const edit = row.appendChild(h("button", "ja-btn ja-link"));
    let editing = false;
    /** @type {View} */
    const v = { el: card, kind: "tool", rev: -1 };
    const blk = () => /** @type {Block} */ (v.block);
    const clickable = () => {
      const a = blk().approval;
      const waiting = a?.state === "pending" && !!a.interactive;
      return waiting && live() && sent.get(blk().call_id || blk().id) !== a.attempt;
    };

    /** @param {boolean} approved */
    function decide(approved) {
      const { approval } = blk();
      const id = blk().call_id || blk().id;
      if (!clickable() || !approval) return;
      /** @type {Record<string, any>} */
      const msg = { type: "decision", call_id: id, approved, always: always.checked };
      if (!approved && reason.value.trim()) msg.message = reason.value.trim();
      if (approved && editing) {
        let value = null;
        try {
          value = JSON.parse(editor.value);
        } catch (e) {
          errors.set(id, `Not valid JSON: ${e}`);
        }
        if (value === null || typeof value !== "object" || Array.isArray(value)) {
          if (!errors.has(id)) errors.set(id, "The arguments must be a JSON object.");
          return v.sync?.();
        }
        msg.arguments = value;
      }
      errors.delete(id);
      sent.set(id, approval.attempt || 0);
      model.send(msg);
      v.sync?.();
    }
    approve.onclick = () => decide(true);
    reject.onclick = () => decide(false);
    edit.onclick = () => {
      editing = !editing;
      if (editing) editor.value = pretty(blk().approval?.arguments || "{}");
      v.sync?.();
    };

    v.sync = () => {
      const b = blk();
      const st = b.status || "done";
      card.className = `ja-tool ja-st-${st}`;
      icon.textContent = ICONS[st] || "";
      name.textContent = b.name || "tool";
      args1.textContent = b.args || "";
      status.textContent = st === "done" ? "" : st === "waiting" ? "needs approval" : st;
      ms.textContent = b.ms != null ? duration(b.ms) : "";
      args.textContent = pretty(b.args || "{}") + (b.args_cut ? "\n…" : "");
      printed.textContent = (b.printed_cut ? "…" : "") + (b.printed || "");
      out.textContent = b.output || "";
      const total = b.output_cut?.toLocaleString();
      cut.textContent = total ? `Output truncated: ${total} characters in all.` : "";
      printed.hidden = !b.printed;
      out.hidden = !b.output;
      cut.hidden = !b.output_cut;
      const a = b.approval;
      box.hidden = !a;
      if (!a) return;
      const pending = a.state === "pending";
      form.hidden = !(pending && a.interactive && header().live);
      done.hidden = !form.hidden;
      done.className = `ja-decided ja-a-${a.state}`;
      done.textContent = decided(a);
      const can = clickable();
      for (const c of [approve, reject, edit, reason, always, editor]) c.disabled = !can;
      approve.textContent = editing ? "Approve with edits" : "Approve";
      edit.textContent = editing ? "Cancel edit" : "Edit arguments";
      editor.hidden = hint.hidden = !editing;
      hint.textContent = schemaHint(a.schema);
      err.textContent = errors.get(b.call_id || b.id) || a.error || "";
      err.hidden = !err.textContent;
    };
    return v;
  }

  /** @param {string} kind @returns {View} */
  function create(kind) {
    if (kind === "tool") return toolView();
    if (kind === "text") return { el: h("div", "ja-text ja-md"), kind };
    if (kind !== "reasoning") return { el: h("div", `ja-${kind}`), kind };
    const d = h("details", "ja-reasoning");
    d.append(h("summary", "", "Reasoning"), h("div", "ja-md"));
    return { el: d, kind };
  }

  /** @param {View} v @param {Block} b */
  function update(v, b) {
    const was = v.block?.status;
    v.block = b;
    if (v.sync) {
      v.sync();
      const st = b.status || "done";
      const det = /** @type {HTMLDetailsElement} */ (v.el.firstChild);
      if (was !== st && (st === "waiting" || st === "error")) det.open = true;
      return;
    }
    const target = /** @type {HTMLElement} */ (v.kind === "reasoning" ? v.el.lastChild : v.el);
    target.replaceChildren();
    if (v.kind === "text" || v.kind === "reasoning") markdown(b.text || "", target);
    else if (v.kind === "notice") {
      v.el.className = `ja-notice ja-l-${b.level || "info"}`;
      target.append(b.text || "");
    } else target.append(h("span", "ja-label", b.label || v.kind), " ", b.text || "");
  }

  function drawBlocks() {
    /** @type {Block[]} */
    const blocks = model.get("blocks") || [];
    const seen = new Set();
    /** @type {ChildNode | null} */
    let prev = null;
    for (const b of blocks) {
      const kind = b.kind || "tool";
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
  }

  /** A blinking caret after the text being streamed. */
  function caret() {
    const blocks = model.get("blocks") || [];
    const last = blocks[blocks.length - 1];
    const on = last?.kind === "text" && header().live ? views.get(last.id) : undefined;
    for (const v of views.values()) v.el.classList.toggle("ja-streaming", v === on);
  }

  const resync = () => {
    drawHeader();
    caret();
    for (const v of views.values()) v.sync?.();
  };
  /** @param {any} msg */
  const onMsg = (msg) => {
    if (msg?.type === "alive") {
      ui.alive = true;
      ui.lost = false;
    } else if (msg?.type === "decision_error" && typeof msg.call_id === "string") {
      sent.delete(msg.call_id);
      errors.set(msg.call_id, String(msg.error || "The edited arguments were refused."));
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
    root.remove();
  };
}

export default { render };
