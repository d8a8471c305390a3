/**
 * A notification for each call that waits for a decision while its cell is out of sight (its
 * notebook is not the current tab, or the cell is scrolled away), with Approve, Reject and Show.
 * It goes away when the call is decided anywhere, or when its card comes into view (toasts.ts).
 */
import { Notification } from '@jupyterlab/apputils';

import { PendingCall } from './contract';
import { Run, RunsModel } from './model';
import { planToasts } from './toasts';

export interface NotifierActions {
  /** Whether the run's cell is on screen in the current notebook tab. */
  visible(run: Run): boolean;
  show(run: Run): void;
}

export class ApprovalNotifier {
  /** Notification ids by request id. */
  private readonly _shown = new Map<string, string>();
  /** Requests whose notification went when their card came into view (not shown again). */
  private readonly _seen = new Set<string>();
  enabled = true;

  constructor(
    private readonly _model: RunsModel,
    private readonly _actions: NotifierActions
  ) {
    _model.changed.connect(() => this.refresh(), this);
  }

  /** Show what waits and is out of sight; withdraw what no longer waits or is in view. */
  refresh(): void {
    const waiting = new Map<string, [Run, PendingCall]>();
    for (const run of this._model.runs()) {
      for (const call of run.pending) {
        waiting.set(call.request, [run, call]);
      }
    }
    const state = {
      waiting: new Set(waiting.keys()),
      shown: new Set(this._shown.keys()),
      seen: this._seen,
      enabled: this.enabled
    };
    const plan = planToasts(state, request => {
      const found = waiting.get(request);
      return found !== undefined && this._actions.visible(found[0]);
    });
    for (const request of plan.withdraw) {
      Notification.dismiss(this._shown.get(request) ?? '');
      this._shown.delete(request);
    }
    plan.seen.forEach(request => this._seen.add(request));
    [...this._seen].filter(r => !waiting.has(r)).forEach(r => this._seen.delete(r));
    for (const request of plan.show) {
      const [run, call] = waiting.get(request)!;
      this._shown.set(request, this._notify(run, call));
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
    if (call.plan) {
      // A plan is reviewed whole, and can be edited, only on its card.
      return Notification.warning(`${run.agent} proposes a plan: approve, edit or reject it`, {
        autoClose: false,
        actions: [
          { label: 'Show the plan', callback: show, displayType: 'accent' },
          { label: 'Reject plan', callback: decide(false), displayType: 'warn' }
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
