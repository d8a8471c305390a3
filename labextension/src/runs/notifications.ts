/**
 * A notification for each call that waits for a decision while its cell is out of sight (its
 * notebook is not the current tab, or the cell is scrolled away), with Approve, Reject and Show.
 * It goes away when the call is decided anywhere.
 */
import { Notification } from '@jupyterlab/apputils';

import { Run, RunsModel } from './model';
import { PendingCall } from './protocol';

export interface NotifierActions {
  /** Whether the run's cell is on screen in the current notebook tab. */
  visible(run: Run): boolean;
  show(run: Run): void;
}

export class ApprovalNotifier {
  /** Notification ids by request id. */
  private readonly _shown = new Map<string, string>();
  enabled = true;

  constructor(
    private readonly _model: RunsModel,
    private readonly _actions: NotifierActions
  ) {
    _model.changed.connect(() => this.refresh(), this);
  }

  /** Show what waits and is out of sight; withdraw what no longer waits. */
  refresh(): void {
    const waiting = new Map<string, [Run, PendingCall]>();
    for (const run of this._model.runs()) {
      for (const call of run.pending) {
        waiting.set(call.request, [run, call]);
      }
    }
    for (const [request, id] of this._shown) {
      if (!waiting.has(request) || !this.enabled) {
        Notification.dismiss(id);
        this._shown.delete(request);
      }
    }
    if (!this.enabled) {
      return;
    }
    for (const [request, [run, call]] of waiting) {
      if (!this._shown.has(request) && !this._actions.visible(run)) {
        this._shown.set(request, this._notify(run, call));
      }
    }
  }

  private _notify(run: Run, call: PendingCall): string {
    const decide = (approved: boolean) => () => this._model.decide(run, call.request, approved);
    const show = () => this._actions.show(run);
    if (call.question !== undefined) {
      // A question is answered in its cell's form: show it there (or skip it from here).
      const asked = call.question.length > 120 ? `${call.question.slice(0, 119)}…` : call.question;
      return Notification.warning(`${run.agent} asks: ${asked}`, {
        autoClose: false,
        actions: [
          { label: 'Answer', callback: show, displayType: 'accent' },
          { label: 'Skip', callback: decide(false), displayType: 'warn' }
        ]
      });
    }
    if (call.on_card) {
      // What it would do shows only on its card (the code it runs): approved there.
      return Notification.warning(`${run.agent} waits for your decision on ${call.tool}`, {
        autoClose: false,
        actions: [
          { label: 'Show the card', callback: show, displayType: 'accent' },
          { label: 'Reject', callback: decide(false), displayType: 'warn' }
        ]
      });
    }
    const args = call.arguments.length > 80 ? `${call.arguments.slice(0, 79)}…` : call.arguments;
    return Notification.warning(`${run.agent} wants to run ${call.tool}(${args})`, {
      autoClose: false,
      actions: [
        { label: 'Approve', callback: decide(true), displayType: 'accent' },
        { label: 'Reject', callback: decide(false), displayType: 'warn' },
        { label: 'Show', callback: show, displayType: 'link' }
      ]
    });
  }
}
