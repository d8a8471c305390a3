"use strict";(self.rspackChunkjupyter_agents=self.rspackChunkjupyter_agents||[]).push([[834],{35(a,r,o){var e=o(28),t=o.n(e),n=o(29),i=(o.n(n))()(t());i.push([a.id,`/* Evaluation report widget: JupyterLab theme variables, with light-theme fallbacks. */
.ja-ev {
  --ja-ok: var(--jp-success-color1, #388e3c);
  --ja-bad: var(--jp-error-color1, #d32f2f);
  --ja-muted: var(--jp-ui-font-color2, rgba(0, 0, 0, 0.54));
  --ja-line: var(--jp-border-color2, #e0e0e0);
  --ja-bg: var(--jp-layout-color1, #fff);
  --ja-bg2: var(--jp-layout-color2, #eee);
  --ja-mono: var(--jp-code-font-family, SFMono-Regular, Menlo, Consolas, monospace);
  font: var(--jp-ui-font-size1, 13px) var(--jp-ui-font-family, system-ui, sans-serif);
  color: var(--jp-ui-font-color1, rgba(0, 0, 0, 0.87));
  background: var(--ja-bg);
  border: 1px solid var(--ja-line);
  border-radius: 6px;
  overflow: hidden;
}
.ja-ev-head {
  display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; padding: 6px 10px;
  background: var(--ja-bg2); border-bottom: 1px solid var(--ja-line);
}
.ja-ev-title { font-weight: 600; }
.ja-ev-summary { color: var(--ja-muted); font-variant-numeric: tabular-nums; }
.ja-ev-scorers { display: flex; flex-wrap: wrap; gap: 6px; padding: 8px 10px 2px; }
.ja-ev-chip {
  display: inline-flex; gap: 6px; align-items: baseline; padding: 2px 8px;
  border: 1px solid var(--ja-line); border-radius: 10px; font-variant-numeric: tabular-nums;
}
.ja-ev-chip-name { color: var(--ja-muted); }
.ja-ev-chip-val { font-weight: 600; }
.ja-ev-ok { color: var(--ja-ok); }
.ja-ev-bad { color: var(--ja-bad); }
.ja-ev-same, .ja-ev-none, .ja-ev-arrow { color: var(--ja-muted); }
.ja-ev-arrow { padding: 0 3px; }
.ja-ev-filters { display: flex; gap: 4px; padding: 6px 10px; }
.ja-ev-filter {
  font: inherit; color: inherit; background: none; cursor: pointer; padding: 1px 8px;
  border: 1px solid var(--ja-line); border-radius: 4px; text-transform: capitalize;
}
.ja-ev-filter[aria-pressed="true"] { background: var(--ja-bg2); font-weight: 600; }
.ja-ev-table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
.ja-ev-table th {
  text-align: left; font-weight: 600; color: var(--ja-muted); padding: 4px 8px;
  border-bottom: 1px solid var(--ja-line); position: sticky; top: 0; z-index: 1;
  background: var(--ja-bg);
}
.ja-ev-table td { padding: 3px 8px; border-bottom: 1px solid var(--ja-line); vertical-align: top; }
.ja-ev-num { text-align: right; white-space: nowrap; }
.ja-ev-table th.ja-ev-num { text-align: right; }
.ja-ev-table th.ja-ev-scorer { white-space: nowrap; }
.ja-ev-row { cursor: pointer; }
.ja-ev-row:hover, .ja-ev-row:focus { background: var(--ja-bg2); outline: none; }
.ja-ev-row > td:first-child { border-left: 3px solid transparent; }
.ja-ev-fail > td:first-child, .ja-ev-error > td:first-child, .ja-ev-ch-worse > td:first-child {
  border-left-color: var(--ja-bad);
}
.ja-ev-ch-better > td:first-child { border-left-color: var(--ja-ok); }
.ja-ev-name { white-space: nowrap; }
.ja-ev-scroll { overflow: auto; max-height: 40em; }
.ja-ev-cut {
  max-width: 11em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
}
.ja-ev-detail { display: grid; gap: 8px; padding: 6px 4px 10px; max-width: 820px; }
.ja-ev-label { font-weight: 600; color: var(--ja-muted); margin-bottom: 2px; }
.ja-ev-pre {
  margin: 0; padding: 4px 8px; font: 12px/1.45 var(--ja-mono); white-space: pre-wrap;
  word-break: break-word; background: var(--ja-bg2); border-radius: 4px; max-height: 16em;
  overflow: auto;
}
.ja-ev-error { color: var(--ja-bad); }
.ja-ev-reason { display: flex; gap: 6px; align-items: baseline; padding: 1px 0; }
.ja-ev-why { color: var(--ja-muted); }
.ja-ev-tool { border: 1px solid var(--ja-line); border-radius: 4px; padding: 4px 6px; margin: 4px 0; }
.ja-ev-tool-name { font: 600 12px var(--ja-mono); }
.ja-ev-tool-status { color: var(--ja-muted); margin-left: 8px; }
.ja-ev-tool .ja-ev-pre { margin-top: 4px; }
.ja-ev-more { padding: 6px 10px; color: var(--ja-muted); }
`,""]),o.d(r,{},{A:i})},31(a,r,o){var e=o(28),t=o.n(e),n=o(29),i=(o.n(n))()(t());i.push([a.id,`/* Live agent run view: JupyterLab theme variables, with light-theme fallbacks. */
.ja-run {
  --ja-brand: var(--jp-brand-color1, #1976d2);
  --ja-error: var(--jp-error-color1, #d32f2f);
  --ja-warn: var(--jp-warn-color1, #f57c00);
  --ja-ok: var(--jp-success-color1, #388e3c);
  --ja-muted: var(--jp-ui-font-color2, rgba(0, 0, 0, 0.54));
  --ja-faint: var(--jp-ui-font-color3, rgba(0, 0, 0, 0.38));
  --ja-line: var(--jp-border-color2, #e0e0e0);
  --ja-line1: var(--jp-border-color1, #bdbdbd);
  --ja-bg: var(--jp-layout-color1, #fff);
  --ja-bg2: var(--jp-layout-color2, #eee);
  --ja-mono: var(--jp-code-font-family, SFMono-Regular, Menlo, Consolas, monospace);
  font: var(--jp-ui-font-size1, 13px) var(--jp-ui-font-family, system-ui, sans-serif);
  color: var(--jp-ui-font-color1, rgba(0, 0, 0, 0.87));
  background: var(--ja-bg);
  border: 1px solid var(--ja-line);
  border-radius: 6px;
  overflow: hidden;
}
.ja-run [hidden] { display: none !important; }
:is(.ja-meta, .ja-detail, .ja-blocks, .ja-hint, .ja-tstatus, .ja-ms, .ja-cut, .ja-args1):empty { display: none; }
.ja-head {
  display: flex; align-items: center; gap: 8px; flex-wrap: wrap; padding: 5px 10px;
  font-size: 12px; background: var(--ja-bg2); border-bottom: 1px solid var(--ja-line);
}
.ja-agent { font-weight: 600; }
.ja-model, .ja-dot, .ja-meta { color: var(--ja-muted); }
.ja-meta { font-variant-numeric: tabular-nums; }
.ja-meta[data-full="1"] { color: var(--ja-warn); }
.ja-pill {
  padding: 0 8px; border-radius: 9px; font-size: 11px; line-height: 18px; font-weight: 500;
  color: var(--ja-c); background: color-mix(in srgb, var(--ja-c) 13%, transparent);
}
.ja-run, .ja-tool, .ja-notice { --ja-c: var(--ja-muted); }
.ja-s-running, .ja-s-background, .ja-st-running, .ja-st-background { --ja-c: var(--ja-brand); }
.ja-s-waiting, .ja-st-waiting, .ja-l-warning { --ja-c: var(--ja-warn); }
.ja-s-done, .ja-st-done { --ja-c: var(--ja-ok); }
.ja-s-failed, .ja-st-error, .ja-st-rejected, .ja-st-timeout, .ja-st-blocked, .ja-l-error { --ja-c: var(--ja-error); }
.ja-stop, .ja-run-live { margin-left: auto; }
.ja-badge[data-verdict="replayed"] { --ja-v: var(--ja-brand); font-size: 11px; }
.ja-mode { font-size: 11px; }
.ja-badge[data-verdict="mode-ask"] { --ja-v: var(--ja-ok); }
.ja-badge[data-verdict="mode-plan"] { --ja-v: var(--ja-warn); }
.ja-badge[data-verdict="mode-agent"] { --ja-v: var(--ja-muted); }
.ja-detail { padding: 4px 12px; font-size: 12px; color: var(--ja-c); white-space: pre-wrap; }
.ja-wait { padding: 3px 12px; font-size: 12px; color: var(--ja-muted); border-bottom: 1px solid var(--ja-line); }
.ja-wait:empty { display: none; }
.ja-w-model, .ja-w-person { color: var(--ja-warn); }
.ja-offline { padding: 3px 12px; font-size: 11px; color: var(--ja-warn); border-top: 1px solid var(--ja-line); }
.ja-blocks { display: flex; flex-direction: column; gap: 6px; padding: 8px 12px; }

/* markdown */
.ja-md {
  font-family: var(--jp-content-font-family, inherit); font-size: var(--jp-content-font-size1, 14px);
  line-height: 1.5; overflow-wrap: anywhere;
}
.ja-md > :first-child { margin-top: 0; }
.ja-md > :last-child { margin-bottom: 0; }
.ja-md :is(p, ul, ol, pre, table, blockquote) { margin: 6px 0; }
.ja-md :is(ul, ol) { padding-left: 22px; }
.ja-md :is(h1, h2, h3, h4, h5, h6) { margin: 10px 0 4px; line-height: 1.3; font-size: 1em; }
.ja-md h1 { font-size: 1.3em; }
.ja-md h2 { font-size: 1.18em; }
.ja-md h3 { font-size: 1.06em; }
.ja-md code { font: 0.88em var(--ja-mono); background: var(--ja-bg2); padding: 0 4px; border-radius: 3px; }
.ja-md pre { background: var(--ja-bg2); padding: 6px 10px; border-radius: 4px; overflow: auto; }
.ja-md pre code { background: none; padding: 0; }
.ja-md blockquote { border-left: 3px solid var(--ja-line); padding-left: 10px; color: var(--ja-muted); }
.ja-md table { border-collapse: collapse; font-size: 0.93em; }
.ja-md :is(th, td) { border: 1px solid var(--ja-line); padding: 2px 8px; text-align: left; }
.ja-md th { background: var(--ja-bg2); }
.ja-md hr { border: none; border-top: 1px solid var(--ja-line); }
.ja-md a { color: var(--ja-brand); }
.ja-streaming > :last-child::after { content: "▍"; color: var(--ja-brand); animation: ja-blink 1s steps(2) infinite; }
@keyframes ja-blink { 50% { opacity: 0; } }

/* tool cards */
.ja-tool { border: 1px solid var(--ja-line); border-left: 3px solid var(--ja-c); border-radius: 5px; }
.ja-tool summary {
  display: flex; align-items: center; gap: 6px; padding: 3px 8px;
  font-size: 12px; cursor: pointer; list-style: none; user-select: none;
}
.ja-tool summary::-webkit-details-marker { display: none; }
.ja-tool summary::before { content: "▸"; color: var(--ja-faint); font-size: 10px; transition: transform 0.1s; }
.ja-tool [open] > summary::before { transform: rotate(90deg); }
.ja-icon { color: var(--ja-c); font-weight: 700; }
.ja-st-waiting .ja-icon { font-size: 9px; animation: ja-blink 1.2s ease-in-out infinite; }
.ja-st-running .ja-icon {
  width: 8px; height: 8px; border: 2px solid var(--ja-c); border-right-color: transparent;
  border-radius: 50%; animation: ja-spin 0.8s linear infinite;
}
@keyframes ja-spin { to { transform: rotate(360deg); } }
.ja-name { font-family: var(--ja-mono); font-weight: 600; white-space: nowrap; }
.ja-args1 {
  flex: 1; min-width: 0; font-family: var(--ja-mono); color: var(--ja-muted);
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis;
}
.ja-tstatus { color: var(--ja-c); font-size: 11px; }
.ja-origin:empty { display: none; }
.ja-origin { color: var(--ja-muted); font-size: 0.92em; white-space: nowrap; }
.ja-badge:empty { display: none; }
.ja-badge {
  --ja-v: var(--ja-muted); white-space: nowrap; font-size: 10px; line-height: 15px; padding: 0 6px;
  border-radius: 8px; color: var(--ja-v); border: 1px solid color-mix(in srgb, var(--ja-v) 45%, transparent);
}
.ja-badge[data-verdict="safe"] { --ja-v: var(--ja-ok); }
.ja-badge:is([data-verdict="sandboxed"], [data-verdict="writes"]) { --ja-v: var(--ja-brand); }
.ja-badge:is([data-verdict="asks"], [data-verdict="destructive"]) { --ja-v: var(--ja-warn); }
.ja-badge:is([data-verdict="read-only"], [data-verdict="additive"]) { --ja-v: var(--ja-ok); }
.ja-badge:is([data-verdict="escalated"], [data-verdict="unsandboxed"], [data-verdict="dangerous"],
  [data-verdict="refused"]) { --ja-v: var(--ja-error); }
.ja-ms { color: var(--ja-faint); font-variant-numeric: tabular-nums; white-space: nowrap; }
.ja-tool pre {
  margin: 0 8px 6px; padding: 5px 8px; max-height: 260px; overflow: auto; border-radius: 4px;
  font: 12px var(--ja-mono); white-space: pre-wrap; overflow-wrap: anywhere; background: var(--ja-bg2);
}
.ja-tool pre::before, .ja-label {
  display: block; margin-bottom: 2px; font: 600 10px var(--jp-ui-font-family, sans-serif);
  letter-spacing: 0.04em; text-transform: uppercase; color: var(--ja-faint);
}
.ja-args::before { content: "Arguments"; }
.ja-tool pre[data-label]::before { content: attr(data-label); }
.ja-tool pre[data-label=""]::before { display: none; }
.ja-printed::before { content: "Printed"; }
.ja-st-error .ja-out, .ja-out.ja-part-error {
  color: var(--ja-error); background: color-mix(in srgb, var(--ja-error) 7%, transparent);
}
.ja-cut { margin: -2px 8px 6px; font-size: 11px; color: var(--ja-faint); }
.ja-printed { max-height: 16em; overflow: auto; }
.ja-failure { margin: 2px 8px; font: 12px var(--ja-mono); color: var(--ja-error); white-space: pre-wrap; }
.ja-failure:empty { display: none; }
.ja-note { margin: 0 8px 4px 22px; font-size: 11px; color: var(--ja-c); overflow-wrap: anywhere; }
.ja-trace { margin: 0 8px 6px; font-size: 11px; color: var(--ja-muted); }
.ja-trace pre { font: 11px var(--ja-mono); white-space: pre-wrap; margin: 2px 0; }
.ja-md img { display: none; }

/* approvals */
.ja-approval { padding: 2px 8px 4px; font-size: 12px; }
.ja-st-waiting .ja-approval {
  padding: 6px 8px; border-top: 1px solid var(--ja-line);
  background: color-mix(in srgb, var(--ja-warn) 6%, transparent);
}
.ja-decided { color: var(--ja-muted); }
.ja-a-rejected { color: var(--ja-error); }
.ja-a-approved { color: var(--ja-ok); }
.ja-form { display: flex; flex-direction: column; gap: 5px; }
.ja-row { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; }
.ja-run :is(button, input, textarea) { font: inherit; font-size: 12px; color: inherit; }
.ja-btn {
  line-height: 18px; padding: 1px 10px; cursor: pointer; border-radius: 4px;
  border: 1px solid var(--ja-line1); background: var(--ja-bg);
}
.ja-btn:not(.ja-primary):hover:not(:disabled) { background: var(--ja-bg2); }
.ja-btn.ja-primary { background: var(--ja-brand); border-color: var(--ja-brand); color: #fff; }
.ja-primary:hover:not(:disabled) { filter: brightness(1.1); }
.ja-btn.ja-danger { color: var(--ja-error); border-color: color-mix(in srgb, var(--ja-error) 50%, transparent); }
.ja-btn.ja-link { border-color: transparent; background: none; color: var(--ja-brand); padding: 1px 4px; }
.ja-run :disabled, .ja-always:has(:disabled), .ja-always-notebook:has(:disabled) { opacity: 0.45; cursor: default; }
.ja-reason, .ja-editor {
  border: 1px solid var(--ja-line1); border-radius: 4px; padding: 1px 6px;
  background: var(--jp-input-background, var(--ja-bg));
}
.ja-reason { flex: 1; min-width: 140px; }
.ja-always, .ja-always-notebook { color: var(--ja-muted); display: inline-flex; align-items: center; gap: 3px; }
.ja-run .ja-editor {
  box-sizing: border-box; width: 100%; min-height: 90px; resize: vertical; padding: 5px 8px;
  font-family: var(--ja-mono);
}
.ja-hint { font: 11px var(--ja-mono); color: var(--ja-faint); }
.ja-err { color: var(--ja-error); }

/* other blocks */
.ja-reasoning summary { font-size: 12px; color: var(--ja-muted); cursor: pointer; }
.ja-reasoning .ja-md { margin: 4px 0 0 14px; font-size: 13px; color: var(--ja-muted); }
.ja-notice {
  font-size: 12px; padding: 3px 8px; border-radius: 4px; color: var(--ja-c);
  background: color-mix(in srgb, var(--ja-c) 9%, transparent);
}
.ja-event { font-size: 12px; color: var(--ja-muted); }
.ja-event .ja-label { display: inline; margin-right: 4px; }
.ja-insert { display: block; margin: -4px 0 8px; font-size: 11px; padding: 1px 8px; }
.ja-image { display: block; max-width: calc(100% - 16px); max-height: 360px; margin: 4px 8px 6px; border: 1px solid var(--ja-line); }
.ja-diff { font-family: var(--ja-mono); font-size: 12px; }
.ja-diff .ja-diff-file { font-weight: 600; }
.ja-diff .ja-diff-hunk { color: var(--ja-brand); }
.ja-diff .ja-diff-add { color: var(--ja-ok); background: color-mix(in srgb, var(--ja-ok) 10%, transparent); }
.ja-diff .ja-diff-del { color: var(--ja-error); background: color-mix(in srgb, var(--ja-error) 10%, transparent); }

/* terminal output (a shell, code): the 16 ANSI colours, readable on its dark background in both themes */
.ja-terminal .ja-printed, .ja-tool .ja-part-terminal { background: #1e2127; color: #dcdfe4; }
.ja-tool .ja-part-terminal::before, .ja-terminal .ja-printed::before { color: #7f848e; }
.ja-terminal .ja-printed::before { content: "Live output"; }
.ja-fg0 { color: #3f4451; } .ja-fg1 { color: #e05561; } .ja-fg2 { color: #8cc265; } .ja-fg3 { color: #d18f52; }
.ja-fg4 { color: #4aa5f0; } .ja-fg5 { color: #c162de; } .ja-fg6 { color: #42b3c2; } .ja-fg7 { color: #e6e6e6; }
.ja-fg8 { color: #4f5666; } .ja-fg9 { color: #ff616e; } .ja-fg10 { color: #a5e075; } .ja-fg11 { color: #f0a45d; }
.ja-fg12 { color: #4dc4ff; } .ja-fg13 { color: #de73ff; } .ja-fg14 { color: #4cd1e0; } .ja-fg15 { color: #ffffff; }
.ja-bg0 { background: #3f4451; } .ja-bg1 { background: #e05561; } .ja-bg2 { background: #8cc265; } .ja-bg3 { background: #d18f52; }
.ja-bg4 { background: #4aa5f0; } .ja-bg5 { background: #c162de; } .ja-bg6 { background: #42b3c2; } .ja-bg7 { background: #e6e6e6; }
.ja-bg8 { background: #4f5666; } .ja-bg9 { background: #ff616e; } .ja-bg10 { background: #a5e075; } .ja-bg11 { background: #f0a45d; }
.ja-bg12 { background: #4dc4ff; } .ja-bg13 { background: #de73ff; } .ja-bg14 { background: #4cd1e0; } .ja-bg15 { background: #ffffff; }
.ja-bold { font-weight: 700; } .ja-dim { opacity: 0.7; } .ja-italic { font-style: italic; } .ja-underline { text-decoration: underline; }
.ja-escalation { color: var(--ja-error); font-weight: 500; white-space: pre-wrap; }
/* code (the code interpreter's arguments) */
.ja-code { font-family: var(--ja-mono); font-size: 12px; }
.ja-py-kw { color: var(--jp-mirror-editor-keyword-color, #008000); font-weight: 600; }
.ja-py-str { color: var(--jp-mirror-editor-string-color, #ba2121); }
.ja-py-num { color: var(--jp-mirror-editor-number-color, #080); }
.ja-py-com { color: var(--jp-mirror-editor-comment-color, #408080); font-style: italic; }
/* a character that does not show, marked by the kernel on a card: never blends into code */
.ja-char {
  color: var(--ja-error); font-style: normal; font-weight: 600; border-radius: 2px;
  background: color-mix(in srgb, var(--ja-error) 14%, transparent);
}
.ja-py-fn { color: var(--jp-mirror-editor-builtin-color, #008000); }

/* questions (ask_user, an MCP server's elicitation) */
.ja-question { display: flex; flex-direction: column; gap: 4px; }
.ja-q-origin { color: var(--ja-muted); font-size: 11px; }
.ja-q-text { font-size: 13px; font-weight: 500; white-space: pre-wrap; }
.ja-q-fields { display: flex; flex-direction: column; gap: 4px; }
.ja-q-choice, .ja-q-field { display: flex; align-items: center; gap: 6px; }
.ja-q-label { min-width: 90px; color: var(--ja-muted); }
.ja-q-desc { color: var(--ja-faint); font-size: 11px; }
.ja-run .ja-q-input:not([type="checkbox"]) {
  border: 1px solid var(--ja-line1); border-radius: 4px; padding: 1px 6px;
  background: var(--jp-input-background, var(--ja-bg)); min-width: 160px;
}
.ja-run .ja-q-textarea { box-sizing: border-box; width: 100%; min-height: 44px; resize: vertical; }
.ja-q-origin:empty { display: none; }

/* the plan (update_plan): a checklist above the blocks */
.ja-plan { padding: 6px 12px 4px; border-bottom: 1px solid var(--ja-line); font-size: 12px; }
.ja-plan-head { display: flex; gap: 8px; align-items: baseline; }
.ja-plan-label { font-weight: 600; }
.ja-plan-count { color: var(--ja-muted); font-variant-numeric: tabular-nums; }
.ja-plan-why { color: var(--ja-muted); white-space: pre-wrap; }
.ja-plan-why:empty { display: none; }
.ja-plan-steps { list-style: none; margin: 3px 0 0; padding: 0; }
.ja-step { display: flex; gap: 6px; padding: 1px 4px; border-radius: 3px; overflow-wrap: anywhere; }
.ja-step-mark { flex: none; width: 1em; text-align: center; }
.ja-step-pending .ja-step-mark { color: var(--ja-faint); }
.ja-step-in_progress { color: var(--ja-brand); background: color-mix(in srgb, var(--ja-brand) 10%, transparent); font-weight: 500; }
.ja-step-completed { color: var(--ja-muted); }
.ja-step-completed .ja-step-mark { color: var(--ja-ok); }
.ja-step-completed .ja-step-text { text-decoration: line-through; }
.ja-progress { display: flex; align-items: center; gap: 8px; padding: 2px 10px 6px 26px; font-size: 11px; color: var(--ja-muted); }
.ja-progress[hidden] { display: none; }
.ja-bar { flex: 0 0 160px; height: 6px; border-radius: 3px; background: var(--ja-line); overflow: hidden; }
.ja-fill { height: 100%; background: var(--ja-accent, var(--jp-brand-color1, #1976d2)); transition: width 0.2s; }
.ja-bar.ja-unknown .ja-fill { opacity: 0.35; }
.ja-progress-text { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
`,""]),o.d(r,{},{A:i})},34(a,r,o){var e=o(28),t=o.n(e),n=o(29),i=(o.n(n))()(t());i.push([a.id,`/* The assists (src/assist/): the Fix button under an error, and the box an assist shows in a
   cell. JupyterLab's CSS variables only, so both themes apply. */
.ja-assist-fixbar,
.ja-assist {
  margin-left: calc(var(--jp-cell-collapser-width, 8px) + var(--jp-cell-prompt-width, 64px));
}
.ja-assist-fixbar { padding: 2px 0 4px; }
.ja-assist-fixbutton.jp-Button { font-size: var(--jp-ui-font-size1); min-height: 24px; padding: 0 10px; }
.ja-assist {
  margin-top: 4px;
  margin-bottom: 4px;
  border: 1px solid var(--jp-border-color1);
  border-left: 3px solid var(--jp-brand-color1);
  border-radius: 4px;
  background: var(--jp-layout-color1);
  color: var(--jp-ui-font-color1);
}
.ja-assist-bar {
  display: flex;
  align-items: center;
  gap: 6px;
  padding: 4px 6px;
}
.ja-assist-title { flex: 1; font-size: var(--jp-ui-font-size1); color: var(--jp-ui-font-color1); }
.ja-assist-input.jp-mod-styled {
  flex: 1;
  min-height: 24px;
  resize: vertical;
  font-family: var(--jp-ui-font-family);
  font-size: var(--jp-ui-font-size1);
  color: var(--jp-ui-font-color1);
  background: var(--jp-input-background, var(--jp-layout-color1));
  border: var(--jp-border-width) solid var(--jp-input-border-color, var(--jp-border-color1));
  padding: 3px 6px;
}
.ja-assist-input.jp-mod-styled:focus { border-color: var(--jp-brand-color1); }
.ja-assist-status { font-size: var(--jp-ui-font-size0); color: var(--jp-ui-font-color2); }
.ja-assist-close.jp-Button { min-width: 24px; min-height: 24px; padding: 0 6px; color: var(--jp-ui-font-color1); }
.ja-assist-bar .jp-Button:focus-visible { outline: 2px solid var(--jp-brand-color1); outline-offset: 1px; }
.ja-assist-output:empty { display: none; }
.ja-assist-output { padding: 0 6px 4px; }
.ja-assist-output .jp-OutputArea-prompt { display: none; }
.ja-assist-bar .jp-Button:disabled { opacity: 0.5; cursor: default; }
`,""]),o.d(r,{},{A:i})},27(a,r,o){var e=o(28),t=o.n(e),n=o(29),i=(o.n(n))()(t());i.push([a.id,`/*
 * %%agent cells (see src/agentcell/). The editor carries .jp-agent-cell while the cell is
 * in agent mode; the magic line and the {expression} spans are decorations of their own.
 * Colours come from JupyterLab's theme variables, so light and dark themes both work.
 */

/* The magic line reads as the cell's header. */
.cm-line.jp-agent-magic-line {
  background-color: color-mix(in srgb, var(--jp-brand-color1) 12%, transparent);
  border-bottom: 1px solid color-mix(in srgb, var(--jp-brand-color1) 35%, transparent);
}

.jp-agent-magic-command {
  color: var(--jp-brand-color1);
  font-weight: bold;
}

.jp-agent-magic-agent {
  color: var(--jp-mirror-editor-def-color);
  font-weight: bold;
}

.jp-agent-magic-flag {
  color: var(--jp-mirror-editor-keyword-color);
}

.jp-agent-magic-value {
  color: var(--jp-mirror-editor-string-color);
}

.jp-agent-magic-invalid,
.jp-agent-brace-invalid {
  text-decoration: wavy underline var(--jp-error-color1);
  text-decoration-skip-ink: none;
}

/* {expression}: Python inside the prose, set off like inline code. */
.jp-agent-expression {
  background-color: color-mix(in srgb, var(--jp-mirror-editor-variable-2-color) 14%, transparent);
  border-radius: 3px;
}
`,""]),o.d(r,{},{A:i})},33(a,r,o){var e=o(28),t=o.n(e),n=o(29),i=(o.n(n))()(t());i.push([a.id,`/* The Agent chat panel (src/chat/panel.ts): JupyterLab's theme variables only. */
.ja-chat-panel {
  display: flex;
  flex-direction: column;
  background: var(--jp-layout-color1);
  color: var(--jp-ui-font-color1);
  font-size: var(--jp-ui-font-size1);
  min-width: 280px;
}
.ja-chat-header {
  flex: 0 0 auto;
  padding: 6px 10px;
  border-bottom: 1px solid var(--jp-border-color2);
}
.ja-chat-top { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.ja-chat-title { font-size: var(--jp-ui-font-size2); margin: 2px 0; font-weight: 600; }
.ja-chat-notebook {
  color: var(--jp-ui-font-color2);
  flex: 1 1 auto;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}
.ja-chat-mode-label { display: flex; align-items: center; gap: 4px; color: var(--jp-ui-font-color2); }
.ja-chat-mode { font-weight: 600; }
.ja-chat-panel[data-mode='ask'] .ja-chat-mode { color: var(--jp-info-color1); }
.ja-chat-panel[data-mode='plan'] .ja-chat-mode { color: var(--jp-warn-color1); }
.ja-chat-panel[data-mode='agent'] .ja-chat-mode { color: var(--jp-success-color1); }
.ja-chat-threadbar { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; align-items: center; }
.ja-chat-thread { flex: 1 1 100%; min-width: 0; }
.ja-chat-threadbar .jp-Button { flex: 1 1 auto; white-space: nowrap; }
.ja-chat-messages {
  flex: 1 1 auto;
  overflow-y: auto;
  padding: 8px 10px;
}
.ja-chat-empty { color: var(--jp-ui-font-color2); }
.ja-chat-user {
  margin: 8px 0 4px auto;
  max-width: 90%;
  padding: 6px 8px;
  border-radius: 6px;
  background: var(--jp-layout-color2);
  border: 1px solid var(--jp-border-color2);
}
.ja-chat-who { font-size: var(--jp-ui-font-size0); color: var(--jp-ui-font-color2); margin-bottom: 2px; }
.ja-chat-text { white-space: pre-wrap; overflow-wrap: anywhere; }
.ja-chat-run { margin: 4px 0 8px; }
.ja-chat-run .jp-OutputArea-prompt { display: none; }
.ja-chat-footer {
  flex: 0 0 auto;
  position: relative;
  padding: 6px 10px 8px;
  border-top: 1px solid var(--jp-border-color2);
}
.ja-chat-context { color: var(--jp-ui-font-color2); font-size: var(--jp-ui-font-size0); min-height: 1.2em; }
.ja-chat-send-row { display: flex; gap: 6px; align-items: flex-end; margin-top: 4px; }
.ja-chat-input {
  flex: 1 1 auto;
  resize: vertical;
  min-height: 3em;
  font-family: var(--jp-ui-font-family);
  font-size: var(--jp-ui-font-size1);
  color: var(--jp-ui-font-color0);
  background: var(--jp-input-background, var(--jp-layout-color1));
}
.ja-chat-completions {
  position: absolute;
  bottom: 100%;
  left: 10px;
  right: 10px;
  max-height: 220px;
  overflow-y: auto;
  margin: 0;
  padding: 2px 0;
  list-style: none;
  background: var(--jp-layout-color1);
  border: 1px solid var(--jp-border-color1);
  box-shadow: var(--jp-elevation-z4);
  z-index: 10;
}
.ja-chat-completion { display: flex; gap: 8px; padding: 2px 8px; cursor: pointer; }
.ja-chat-completion.ja-mod-selected { background: var(--jp-brand-color3); color: var(--jp-ui-font-color0); }
.ja-chat-completion-label { font-family: var(--jp-code-font-family); white-space: nowrap; }
.ja-chat-completion-detail {
  color: var(--jp-ui-font-color2);
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}
`,""]),o.d(r,{},{A:i})},30(a,r,o){var e=o(28),t=o.n(e),n=o(29),i=(o.n(n))()(t());i.push([a.id,`/* The Agent runs panel and status bar item (src/runs/). Theme variables only. */
.ja-runs-panel {
  padding: 8px 10px;
  overflow-y: auto;
  background: var(--jp-layout-color1);
  color: var(--jp-ui-font-color1);
  font-size: var(--jp-ui-font-size1);
}
.ja-runs-title { font-size: var(--jp-ui-font-size2); margin: 4px 0 8px; font-weight: 600; }
.ja-runs-empty { color: var(--jp-ui-font-color2); }
.ja-run-item {
  border: 1px solid var(--jp-border-color2);
  border-left: 3px solid var(--ja-c, var(--jp-border-color1));
  border-radius: 4px;
  padding: 6px 8px;
  margin-bottom: 8px;
}
.ja-run-item.ja-s-running, .ja-run-item.ja-s-background { --ja-c: var(--jp-brand-color1); }
.ja-run-item.ja-s-waiting { --ja-c: var(--jp-warn-color1); }
.ja-run-item.ja-s-done { --ja-c: var(--jp-success-color1); }
.ja-run-item.ja-s-failed { --ja-c: var(--jp-error-color1); }
.ja-run-head { display: flex; gap: 8px; align-items: baseline; }
.ja-run-agent { font-weight: 600; }
.ja-run-status { color: var(--ja-c, var(--jp-ui-font-color2)); font-size: var(--jp-ui-font-size0); }
.ja-run-facts {
  display: flex; flex-wrap: wrap; gap: 4px 10px; margin: 2px 0 4px;
  color: var(--jp-ui-font-color2); font-size: var(--jp-ui-font-size0);
  font-variant-numeric: tabular-nums;
}
.ja-run-actions, .ja-run-decide { display: flex; gap: 6px; flex-wrap: wrap; align-items: center; }
.ja-run-pending {
  margin-top: 6px; padding: 6px; border-radius: 4px;
  background: color-mix(in srgb, var(--jp-warn-color1) 10%, transparent);
}
.ja-run-call { display: flex; gap: 6px; align-items: baseline; margin-bottom: 4px; min-width: 0; }
.ja-run-tool { font-weight: 600; }
.ja-run-args {
  font-family: var(--jp-code-font-family); font-size: var(--jp-code-font-size);
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0;
}
.ja-run-reason { flex: 1; min-width: 80px; }
.ja-run-background { margin-top: 4px; color: var(--jp-brand-color1); font-size: var(--jp-ui-font-size0); }
.ja-run-wait {
  margin: 0 0 4px; color: var(--jp-ui-font-color2); font-size: var(--jp-ui-font-size0);
  font-variant-numeric: tabular-nums;
}
.ja-run-wait.ja-w-model, .ja-run-wait.ja-w-person { color: var(--jp-warn-color1); }
.ja-runs-status { display: flex; align-items: center; height: 100%; cursor: pointer; padding: 0 6px; }
.ja-runs-status.ja-runs-waiting { color: var(--jp-warn-color1); font-weight: 600; }
/* The mode item (modestatus.ts): a button, drawn like the status bar's other items. */
.ja-mode-status {
  display: flex; align-items: center; gap: 5px; height: 100%; margin: 0; padding: 0 6px;
  border: none; border-radius: 0; background: none; cursor: pointer;
  color: var(--jp-ui-font-color1); font-family: var(--jp-ui-font-family);
  font-size: var(--jp-ui-font-size1); line-height: 24px; white-space: nowrap;
}
.ja-mode-status:hover { background: var(--jp-layout-color3); }
.ja-mode-status:focus-visible { outline: 1px solid var(--jp-brand-color1); outline-offset: -1px; }
.ja-mode-status::before {
  content: ''; width: 8px; height: 8px; border-radius: 50%; flex: none;
  background: var(--jp-ui-font-color2);
}
.ja-mode-status[data-mode='ask']::before { background: var(--jp-success-color1); }
.ja-mode-status[data-mode='plan']::before { background: var(--jp-warn-color1); }
/* its menu: the current mode checked (a plain Lumino menu draws no check of its own) */
.ja-mode-menu .lm-Menu-item.lm-mod-toggled > .lm-Menu-itemIcon::before {
  content: '✓'; color: var(--jp-ui-font-color1);
}
.ja-saved-run { padding: 2px 0; }

/* Under the cell of a run a kernel restart cut off (reattach.ts). */
.ja-resume-bar {
  display: flex;
  gap: 8px;
  align-items: center;
  margin: 4px 0 4px var(--jp-cell-prompt-width, 64px);
  padding: 6px 10px;
  border-left: 3px solid var(--jp-warn-color1);
  background: var(--jp-layout-color2);
  color: var(--jp-ui-font-color1);
  font-size: var(--jp-ui-font-size1);
}
`,""]),o.d(r,{},{A:i})},32(a,r,o){var e=o(28),t=o.n(e),n=o(29),i=(o.n(n))()(t());i.push([a.id,`/*
 * Saved forms of evaluation reports, comparisons and batch progress (src/savedforms/). A
 * report is drawn by the report widget's own code and stylesheet (eval_report.css); a batch's
 * progress by batch.ts, with JupyterLab's theme variables, so light and dark themes both work.
 */
.ja-saved-form { padding: 2px 0; }
.ja-saved-form .ja-saved-note {
  color: var(--jp-ui-font-color2); font-size: var(--jp-ui-font-size1); margin: 2px 0 6px;
}
.ja-bp {
  font: var(--jp-ui-font-size1) var(--jp-ui-font-family);
  color: var(--jp-ui-font-color1);
  background: var(--jp-layout-color1);
  border: 1px solid var(--jp-border-color2);
  border-radius: 6px;
  padding: 6px 10px;
}
.ja-bp-head { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
.ja-bp-bar {
  flex: 0 0 180px; height: 8px; border-radius: 4px; overflow: hidden;
  background: var(--jp-layout-color3);
}
.ja-bp-fill { height: 100%; background: var(--jp-brand-color1); }
.ja-bp-done .ja-bp-fill { background: var(--jp-success-color1); }
.ja-bp-failed .ja-bp-fill { background: var(--jp-error-color1); }
.ja-bp-stopped .ja-bp-fill { background: var(--jp-warn-color1); }
.ja-bp-line { font-variant-numeric: tabular-nums; }
.ja-bp-outcome { color: var(--jp-ui-font-color2); }
.ja-bp-failed .ja-bp-outcome { color: var(--jp-error-color1); }
.ja-bp-stopped .ja-bp-outcome { color: var(--jp-warn-color1); }
.ja-bp-table { border-collapse: collapse; margin-top: 6px; line-height: 1.3; }
.ja-bp-table th {
  text-align: left; font-weight: 600; color: var(--jp-ui-font-color2); padding: 2px 8px;
  border-bottom: 1px solid var(--jp-border-color2);
}
.ja-bp-table td { padding: 2px 8px; border-bottom: 1px solid var(--jp-border-color3); }
.ja-bp-text {
  max-width: 48em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  font-family: var(--jp-code-font-family); font-size: var(--jp-code-font-size);
}
.ja-bp-st-ok { color: var(--jp-success-color1); }
.ja-bp-st-failed, .ja-bp-st-rejected { color: var(--jp-error-color1); }
.ja-bp-st-waiting, .ja-bp-st-pending { color: var(--jp-warn-color1); }
.ja-bp-errors { margin-top: 6px; }
.ja-bp-errors-head { color: var(--jp-ui-font-color2); }
.ja-bp-errors ul { margin: 2px 0; padding-left: 20px; }
`,""]),o.d(r,{},{A:i})},29(a){a.exports=function(a){var r=[];return r.toString=function(){return this.map(function(r){var o="",e=void 0!==r[5];return r[4]&&(o+="@supports (".concat(r[4],") {")),r[2]&&(o+="@media ".concat(r[2]," {")),e&&(o+="@layer".concat(r[5].length>0?" ".concat(r[5]):""," {")),o+=a(r),e&&(o+="}"),r[2]&&(o+="}"),r[4]&&(o+="}"),o}).join("")},r.i=function(a,o,e,t,n){"string"==typeof a&&(a=[[null,a,void 0]]);var i={};if(e)for(var p=0;p<this.length;p++){var l=this[p][0];null!=l&&(i[l]=!0)}for(var d=0;d<a.length;d++){var s=[].concat(a[d]);e&&i[s[0]]||(void 0!==n&&(void 0===s[5]||(s[1]="@layer".concat(s[5].length>0?" ".concat(s[5]):""," {").concat(s[1],"}")),s[5]=n),o&&(s[2]&&(s[1]="@media ".concat(s[2]," {").concat(s[1],"}")),s[2]=o),t&&(s[4]?(s[1]="@supports (".concat(s[4],") {").concat(s[1],"}"),s[4]=t):s[4]="".concat(t)),r.push(s))}},r}},28(a){a.exports=function(a){return a[1]}},21(a){var r=[];function o(a){for(var o=-1,e=0;e<r.length;e++)if(r[e].identifier===a){o=e;break}return o}function e(a,e){for(var t={},n=[],i=0;i<a.length;i++){var p=a[i],l=e.base?p[0]+e.base:p[0],d=t[l]||0,s="".concat(l," ").concat(d);t[l]=d+1;var c=o(s),j={css:p[1],media:p[2],sourceMap:p[3],supports:p[4],layer:p[5]};if(-1!==c)r[c].references++,r[c].updater(j);else{var f=function(a,r){var o=r.domAPI(r);return o.update(a),function(r){r?(r.css!==a.css||r.media!==a.media||r.sourceMap!==a.sourceMap||r.supports!==a.supports||r.layer!==a.layer)&&o.update(a=r):o.remove()}}(j,e);e.byIndex=i,r.splice(i,0,{identifier:s,updater:f,references:1})}n.push(s)}return n}a.exports=function(a,t){var n=e(a=a||[],t=t||{});return function(a){a=a||[];for(var i=0;i<n.length;i++){var p=o(n[i]);r[p].references--}for(var l=e(a,t),d=0;d<n.length;d++){var s=o(n[d]);0===r[s].references&&(r[s].updater(),r.splice(s,1))}n=l}}},23(a){var r={};a.exports=function(a,o){var e=function(a){if(void 0===r[a]){var o=document.querySelector(a);if(window.HTMLIFrameElement&&o instanceof window.HTMLIFrameElement)try{o=o.contentDocument.head}catch(a){o=null}r[a]=o}return r[a]}(a);if(!e)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");e.appendChild(o)}},25(a){a.exports=function(a){var r=document.createElement("style");return a.setAttributes(r,a.attributes),a.insert(r,a.options),r}},24(a,r,o){a.exports=function(a){var r=o.nc;r&&a.setAttribute("nonce",r)}},22(a){a.exports=function(a){if("u"<typeof document)return{update:function(){},remove:function(){}};var r=a.insertStyleElement(a);return{update:function(o){var e,t,n;e="",o.supports&&(e+="@supports (".concat(o.supports,") {")),o.media&&(e+="@media ".concat(o.media," {")),(t=void 0!==o.layer)&&(e+="@layer".concat(o.layer.length>0?" ".concat(o.layer):""," {")),e+=o.css,t&&(e+="}"),o.media&&(e+="}"),o.supports&&(e+="}"),(n=o.sourceMap)&&"u">typeof btoa&&(e+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(n))))," */")),a.styleTagTransform(e,r,a.options)},remove:function(){var a;null===(a=r).parentNode||a.parentNode.removeChild(a)}}}},26(a){a.exports=function(a,r){if(r.styleSheet)r.styleSheet.cssText=a;else{for(;r.firstChild;)r.removeChild(r.firstChild);r.appendChild(document.createTextNode(a))}}},20(a,r,o){var e=o(21),t=o.n(e),n=o(22),i=o.n(n),p=o(23),l=o.n(p),d=o(24),s=o.n(d),c=o(25),j=o.n(c),f=o(26),u=o.n(f),v=o(27),g={};g.styleTagTransform=u(),g.setAttributes=s(),g.insert=l().bind(null,"head"),g.domAPI=i(),g.insertStyleElement=j(),t()(v.A,g),v.A&&v.A.locals&&v.A.locals;var b=o(30),m={};m.styleTagTransform=u(),m.setAttributes=s(),m.insert=l().bind(null,"head"),m.domAPI=i(),m.insertStyleElement=j(),t()(b.A,m),b.A&&b.A.locals&&b.A.locals;var x=o(31),h={};h.styleTagTransform=u(),h.setAttributes=s(),h.insert=l().bind(null,"head"),h.domAPI=i(),h.insertStyleElement=j(),t()(x.A,h),x.A&&x.A.locals&&x.A.locals;var w=o(32),y={};y.styleTagTransform=u(),y.setAttributes=s(),y.insert=l().bind(null,"head"),y.domAPI=i(),y.insertStyleElement=j(),t()(w.A,y),w.A&&w.A.locals&&w.A.locals;var k=o(33),z={};z.styleTagTransform=u(),z.setAttributes=s(),z.insert=l().bind(null,"head"),z.domAPI=i(),z.insertStyleElement=j(),t()(k.A,z),k.A&&k.A.locals&&k.A.locals;var A=o(34),T={};T.styleTagTransform=u(),T.setAttributes=s(),T.insert=l().bind(null,"head"),T.domAPI=i(),T.insertStyleElement=j(),t()(A.A,T),A.A&&A.A.locals&&A.A.locals;var S=o(35),q={};q.styleTagTransform=u(),q.setAttributes=s(),q.insert=l().bind(null,"head"),q.domAPI=i(),q.insertStyleElement=j(),t()(S.A,q),S.A&&S.A.locals&&S.A.locals}}]);