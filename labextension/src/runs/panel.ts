/**
 * The Agent runs panel: every run of every open notebook's kernel, live, with Show, Stop and
 * the calls waiting for a decision (Approve / Reject with a reason). Everything a kernel sent is
 * shown as text, never as HTML.
 */
import { Widget } from '@lumino/widgets';

import { el } from '../dom';
import { PendingCall } from './contract';
import { Run, RunsModel } from './model';
import { elapsed, planText, STATUS_LABELS, waitText } from './summary';

/** What the panel asks of the rest of the extension. */
export interface PanelActions {
  show(run: Run): void;
  /** Continue a run a restart cut off (a `%agent resume` cell below its cell). */
  resume(run: Run): void;
  notebookName(run: Run): string;
}

export class RunsPanel extends Widget {
  private readonly _list: HTMLElement;
  private readonly _empty: HTMLElement;
  private readonly _timer: number;
  /** Reasons typed and not sent yet, by request id (kept across redraws). */
  private readonly _reasons = new Map<string, string>();
  /** Requests a decision was sent for (their buttons stay disabled). */
  private readonly _sent = new Set<string>();

  constructor(
    private readonly _model: RunsModel,
    private readonly _actions: PanelActions
  ) {
    super();
    this.id = 'jupyter-agents-runs';
    this.addClass('ja-runs-panel');
    this.title.caption = 'Agent runs';
    this.node.appendChild(el('h2', 'ja-runs-title', 'Agent runs'));
    this._empty = this.node.appendChild(
      el('p', 'ja-runs-empty', 'No %%agent runs yet in the open notebooks.')
    );
    this._list = this.node.appendChild(el('div', 'ja-runs-list'));
    _model.changed.connect(() => this.update(), this);
    _model.decided.connect((_m, { request, ok }) => {
      if (!ok) {
        this._sent.delete(request);
      }
      this.update();
    }, this);
    this._timer = window.setInterval(() => this._tick(), 1000);
    this.update();
  }

  dispose(): void {
    window.clearInterval(this._timer);
    super.dispose();
  }

  protected onUpdateRequest(): void {
    const runs = this._model.runs();
    this._empty.hidden = runs.length > 0;
    const focused = document.activeElement;
    const keep = focused instanceof HTMLInputElement ? focused.dataset.request : undefined;
    this._list.replaceChildren(...runs.map(run => this._runNode(run)));
    if (keep) {
      const input = this._list.querySelector<HTMLInputElement>(
        `input[data-request="${CSS.escape(keep)}"]`
      );
      input?.focus();
    }
  }

  private _tick(): void {
    const now = Date.now() / 1000;
    for (const node of this._list.querySelectorAll<HTMLElement>('[data-started]')) {
      if (node.dataset.ended === '') {
        const started = Number(node.dataset.started);
        node.textContent = elapsed(
          { started, ended: null } as Run,
          now
        );
      }
    }
    for (const node of this._list.querySelectorAll<HTMLElement>('.ja-run-wait')) {
      const wait = { text: node.dataset.text ?? '', since: Number(node.dataset.since) };
      node.textContent = waitText(wait, now);
    }
  }

  private _runNode(run: Run): HTMLElement {
    const node = el('div', `ja-run-item ja-s-${run.status}`);
    node.dataset.run = run.id;
    const head = node.appendChild(el('div', 'ja-run-head'));
    head.appendChild(el('span', 'ja-run-agent', run.agent));
    head.appendChild(el('span', `ja-run-status ja-s-${run.status}`, STATUS_LABELS[run.status] ?? run.status));
    const facts = node.appendChild(el('div', 'ja-run-facts'));
    facts.appendChild(el('span', 'ja-run-notebook', this._actions.notebookName(run)));
    facts.appendChild(el('span', 'ja-run-model', run.model));
    const time = facts.appendChild(el('span', 'ja-run-elapsed', elapsed(run, Date.now() / 1000)));
    time.dataset.started = String(run.started);
    time.dataset.ended = run.ended === null ? '' : String(run.ended);
    if (run.tokens > 0) {
      facts.appendChild(el('span', 'ja-run-tokens', `${run.tokens.toLocaleString()} tokens`));
    }
    if (run.cost) {
      facts.appendChild(el('span', 'ja-run-cost', run.cost));
    }
    const calls = `${run.tool_calls} tool call${run.tool_calls === 1 ? '' : 's'}`;
    facts.appendChild(el('span', 'ja-run-calls', calls));
    const plan = planText(run);
    if (plan) {
      const steps = facts.appendChild(el('span', 'ja-run-plan', `plan ${plan}`));
      steps.title = run.plan?.current ? `Now: ${run.plan.current}` : 'Steps completed of the plan';
    }
    if (run.wait && run.ended === null) {
      const text = waitText(run.wait, Date.now() / 1000);
      const wait = node.appendChild(el('div', `ja-run-wait ja-w-${run.wait.on}`, text));
      wait.dataset.text = run.wait.text;
      wait.dataset.since = String(run.wait.since);
    }
    const row = node.appendChild(el('div', 'ja-run-actions'));
    const show = row.appendChild(el('button', 'jp-Button jp-mod-styled ja-run-show', 'Show'));
    show.title = 'Scroll to the cell of this run';
    show.onclick = () => this._actions.show(run);
    if (run.resume) {
      const resume = row.appendChild(
        el('button', 'jp-Button jp-mod-styled jp-mod-accept ja-run-resume', 'Resume')
      );
      resume.title = 'Continue this run where it was cut off: its finished tool calls do not run again';
      resume.onclick = () => {
        resume.disabled = true;
        this._actions.resume(run);
      };
    }
    if (run.ended === null) {
      const stop = row.appendChild(el('button', 'jp-Button jp-mod-styled ja-run-stop', 'Stop'));
      stop.onclick = () => {
        stop.disabled = true;
        this._model.stop(run);
      };
    }
    for (const call of run.pending) {
      node.appendChild(this._pendingNode(run, call));
    }
    for (const call of run.background ?? []) {
      const line = node.appendChild(el('div', 'ja-run-background'));
      line.appendChild(el('span', 'ja-run-tool', call.tool));
      line.append(' still running in the background');
      line.title = 'The run stopped waiting for this call, but a thread cannot be stopped: ' +
        'it ends on its own, and its card says what it did.';
    }
    return node;
  }

  private _pendingNode(run: Run, call: PendingCall): HTMLElement {
    const box = el('div', 'ja-run-pending');
    box.dataset.request = call.request;
    const what = box.appendChild(el('div', 'ja-run-call'));
    what.appendChild(el('span', 'ja-run-tool', call.tool));
    if (call.question !== undefined) {
      what.appendChild(el('span', 'ja-run-question', `asks: ${call.question}`));
    } else {
      what.appendChild(el('code', 'ja-run-args', call.arguments));
    }
    const row = box.appendChild(el('div', 'ja-run-decide'));
    const approve = row.appendChild(
      el('button', 'jp-Button jp-mod-styled jp-mod-accept ja-run-approve', 'Approve')
    );
    const reject = row.appendChild(
      el('button', 'jp-Button jp-mod-styled jp-mod-warn ja-run-reject', 'Reject')
    );
    const reason = row.appendChild(el('input', 'jp-mod-styled ja-run-reason'));
    reason.placeholder = 'reason (optional)';
    reason.dataset.request = call.request;
    reason.value = this._reasons.get(call.request) ?? '';
    reason.oninput = () => this._reasons.set(call.request, reason.value);
    const sent = this._sent.has(call.request);
    approve.disabled = reject.disabled = reason.disabled = sent;
    const send = (approved: boolean) => {
      if (this._sent.has(call.request)) {
        return;
      }
      this._sent.add(call.request);
      approve.disabled = reject.disabled = reason.disabled = true;
      this._model.decide(run, call.request, approved, approved ? undefined : reason.value);
      this._reasons.delete(call.request);
    };
    if (call.question !== undefined) {
      approve.hidden = true; // a question is answered in its cell's form; here it can be skipped
      reject.textContent = 'Skip';
    } else if (call.on_card) {
      approve.hidden = true; // what it would do shows on its card only: approved there
      const show = row.insertBefore(
        el('button', 'jp-Button jp-mod-styled ja-run-card', call.plan ? 'Show the plan' : 'Show the card'),
        reject
      );
      show.title = call.plan
        ? 'The whole plan, and its editor, are on its card'
        : 'What this call would do (the code it runs, the cells it changes) is on its card';
      show.onclick = () => this._actions.show(run);
      if (call.plan) {
        reject.textContent = 'Reject plan';
      }
    }
    approve.onclick = () => send(true);
    reject.onclick = () => send(false);
    reason.onkeydown = event => {
      if (event.key === 'Enter') {
        send(false);
      }
    };
    return box;
  }
}
