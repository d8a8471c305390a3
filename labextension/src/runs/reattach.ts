/**
 * Cards of live runs this page did not start: after a reload, after the notebook was closed
 * and opened again, and in a second window on the same notebook. The kernel reports where each
 * run's card is (`RunReport.view`: its widget, its display id and the page that started it);
 * this page puts the card back into the run's cell, where it draws everything the run did so far
 * and its Approve and Reject work, and applies the card's display updates itself (the finished
 * run's saved form), which a page receives only for the cells it ran. A run a restart cut off
 * gets a bar under its cell that offers Resume (as the Agents panel does).
 */
import type { ICodeCellModel } from '@jupyterlab/cells';
import type * as nbformat from '@jupyterlab/nbformat';
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel, KernelMessage } from '@jupyterlab/services';

import { isObject } from '../untrusted';
import { ViewRef } from './contract';
import { Run, RunsModel } from './model';
import { ACTIVE } from './protocol';

/** The mime type of a widget's view in an output. */
export const WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json';

/** The output that shows widget `model` (what `display(widget)` sends). */
export function cardOutput(model: string): nbformat.IDisplayData {
  return {
    output_type: 'display_data',
    data: { [WIDGET_VIEW]: { model_id: model, version_major: 2, version_minor: 1 } },
    metadata: {}
  };
}

/** Where in `outputs` (an output list as JSON) widget `model` is shown, or -1. */
export function cardIndex(outputs: readonly nbformat.IOutput[], model: string): number {
  return outputs.findIndex(output => {
    const view = isObject(output.data) ? output.data[WIDGET_VIEW] : undefined;
    return isObject(view) && view.model_id === model;
  });
}

/** The display id an `update_display_data` message is for, with its bundle; null for any other
 * message, or a malformed one. */
export function displayUpdate(
  msg: KernelMessage.IMessage
): { display: string; output: nbformat.IDisplayData } | null {
  if (msg.header.msg_type !== 'update_display_data' || !isObject(msg.content)) {
    return null;
  }
  const { transient, data, metadata } = msg.content as Record<string, unknown>;
  const display = isObject(transient) ? transient.display_id : undefined;
  if (typeof display !== 'string' || !isObject(data)) {
    return null;
  }
  const output: nbformat.IDisplayData = {
    output_type: 'display_data',
    data: data as nbformat.IMimeBundle,
    metadata: (isObject(metadata) ? metadata : {}) as nbformat.OutputMetadata
  };
  return { display, output };
}

/** A card this page put back: in which notebook and cell, and which output it is. */
interface Shown {
  panel: NotebookPanel;
  cell: string;
  model: string;
  /** The output's index once a display update replaced the widget. */
  index: number | null;
}

function codeCell(panel: NotebookPanel, id: string): ICodeCellModel | null {
  const cells = panel.content.model?.cells;
  for (let i = 0; cells && i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.id === id) {
      return cell.type === 'code' ? (cell as ICodeCellModel) : null;
    }
  }
  return null;
}

/** The class of the bar under a cell whose run a restart cut off. */
export const RESUME_BAR = 'ja-resume-bar';

/** The bar under a cut-off run's cell: what happened, and Resume. */
export function resumeBar(onResume: () => void): HTMLElement {
  const bar = document.createElement('div');
  bar.className = RESUME_BAR;
  bar.setAttribute('role', 'status');
  const text = bar.appendChild(document.createElement('span'));
  text.textContent =
    'This run was cut off by a kernel restart. Resume it where it stopped: its finished tool ' +
    'calls do not run again.';
  const button = bar.appendChild(document.createElement('button'));
  button.className = 'jp-Button jp-mod-styled jp-mod-accept';
  button.textContent = 'Resume';
  button.onclick = () => {
    button.disabled = true;
    onResume();
  };
  return bar;
}

/** Puts the cards of live runs started elsewhere into their cells, once per page and run, and
 * a Resume bar under the cells of runs a restart cut off. */
export class CardReattacher {
  private readonly _shown = new Map<string, Shown[]>(); // by display id
  private readonly _done = new WeakMap<NotebookPanel, Set<string>>(); // run ids, by page
  private readonly _heard = new WeakSet<Kernel.IKernelConnection>();
  private readonly _bars = new Map<string, HTMLElement[]>(); // by run id

  constructor(
    private readonly _runs: RunsModel,
    private readonly _resume: (run: Run) => void = () => undefined
  ) {
    _runs.changed.connect(() => this.refresh());
  }

  /** Look at every run again (the runs model calls this on every change). */
  refresh(): void {
    const cutOff = new Set<string>();
    for (const run of this._runs.runs()) {
      if (run.view && ACTIVE.has(run.status)) {
        for (const panel of this._runs.panelsOf(run)) {
          this._reattach(panel, run, run.view);
        }
      }
      if (run.resume) {
        cutOff.add(run.id);
        this._offerResume(run);
      }
    }
    for (const [id, bars] of this._bars) {
      if (!cutOff.has(id)) {
        bars.forEach(bar => bar.remove()); // resumed, or the kernel restarted again
        this._bars.delete(id);
      }
    }
  }

  private _offerResume(run: Run): void {
    if (this._bars.has(run.id)) {
      return;
    }
    const bars: HTMLElement[] = [];
    for (const panel of this._runs.panelsOf(run)) {
      const cell = panel.content.widgets.find(c => c.model.id === run.cell);
      if (cell) {
        bars.push(cell.node.appendChild(resumeBar(() => this._resume(run))));
      }
    }
    this._bars.set(run.id, bars);
  }

  private _reattach(panel: NotebookPanel, run: Run, view: ViewRef): void {
    const kernel = panel.sessionContext.session?.kernel;
    if (!kernel || kernel.clientId === view.client) {
      return; // this page ran the cell: the card is in it, and its updates come to it
    }
    const done = this._done.get(panel) ?? new Set<string>();
    this._done.set(panel, done);
    const cell = codeCell(panel, run.cell);
    if (done.has(run.id) || !cell || cell.executionState === 'running') {
      return; // put back once (the person may clear it); never over a cell running here
    }
    done.add(run.id);
    this._listen(kernel);
    const shown = this._shown.get(view.display) ?? [];
    shown.push({ panel, cell: run.cell, model: view.model, index: null });
    this._shown.set(view.display, shown);
    if (!cell.trusted || cardIndex(cell.outputs.toJSON(), view.model) < 0) {
      // The card's output comes from the live kernel, as a run cell's outputs do; a cell read
      // from a file is untrusted and would draw no widget: trust it, holding nothing else.
      cell.outputs.clear();
      cell.trusted = true;
      cell.outputs.add(cardOutput(view.model));
    }
  }

  private _listen(kernel: Kernel.IKernelConnection): void {
    if (!this._heard.has(kernel)) {
      this._heard.add(kernel);
      kernel.iopubMessage.connect((_k, msg) => this._onIOPub(msg));
    }
  }

  /** A card's display update (the finished run, drawn again when a call it left running
   * ends) replaces the card in every cell this page put it in. */
  private _onIOPub(msg: KernelMessage.IIOPubMessage): void {
    const update = displayUpdate(msg);
    for (const shown of (update && this._shown.get(update.display)) || []) {
      const cell = shown.panel.isDisposed ? null : codeCell(shown.panel, shown.cell);
      if (!cell || !update) {
        continue;
      }
      const outputs = cell.outputs;
      const found = cardIndex(outputs.toJSON(), shown.model);
      const index = found >= 0 ? found : shown.index;
      if (index !== null && index < outputs.length) {
        outputs.set(index, update.output);
        shown.index = index;
      }
    }
  }
}
