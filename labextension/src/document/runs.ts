/**
 * Cells the kernel runs for the notebook agent (`run_cells`) while the agent's own cell is
 * still running: the kernel runs the code itself and relays each output message here over the
 * document comm, and this puts them into the cell, as the cell would show its own run: `[*]`
 * while it runs, the outputs as they come, the execution count at the end
 * (protocol: jupyter_agents/notebook/workspace/document_comm.py).
 */
import type { ICodeCellModel } from '@jupyterlab/cells';
import type * as nbformat from '@jupyterlab/nbformat';
import type { NotebookPanel } from '@jupyterlab/notebook';

import { isObject, Untrusted } from '../untrusted';
import { flushTyping, stale } from './changes';
import { Outcome, RanArgs, RunArgs } from './contract';

interface Run {
  cell: ICodeCellModel;
  /** Output indices by display id, for `update_display_data`. */
  displays: Map<string, number[]>;
  clearNext: boolean;
}

/** The runs under way in one kernel's notebook, by the kernel's token. */
export class Runs {
  private readonly runs = new Map<string, Run>();

  /** The kernel is about to run cell `args.id`, whose source must still be `args.expected`
   * (the source its card showed). */
  start(panel: NotebookPanel, args: Untrusted<RunArgs>): Outcome {
    const model = panel.content.model;
    const token = args.run;
    if (!model || typeof token !== 'string' || this.runs.has(token)) {
      return { refused: 'a run needs a token of its own.' };
    }
    let cell: ICodeCellModel | undefined;
    let found = -1;
    for (let i = 0; i < model.cells.length && found < 0; i++) {
      const candidate = model.cells.get(i);
      if (candidate.id === args.id) {
        found = i;
        cell = candidate.type === 'code' ? (candidate as ICodeCellModel) : undefined;
      }
    }
    if (found < 0) {
      return { missing: String(args.id) };
    }
    if (!cell) {
      return { refused: 'only code cells run.' };
    }
    if (cell.executionState === 'running') {
      return { refused: 'that cell is running or waiting to run; it cannot run again now.' };
    }
    // The kernel runs the source the card showed: only while the cell still holds all of it
    // (typing its editor has not read yet included), so the outputs land under that code.
    flushTyping(panel, found);
    const source = cell.sharedModel.getSource();
    if (source !== args.expected) {
      return stale(cell.id, source);
    }
    cell.outputs.clear();
    cell.executionCount = null;
    cell.executionState = 'running';
    this.runs.set(token, { cell, displays: new Map(), clearNext: false });
    return { done: true, cell: cell.id };
  }

  /** One output message of run `token`, as the kernel sent it on IOPub. */
  output(token: unknown, msgType: unknown, content: unknown): void {
    const run = typeof token === 'string' ? this.runs.get(token) : undefined;
    if (!run || typeof msgType !== 'string' || !isObject(content)) {
      return;
    }
    const outputs = run.cell.outputs;
    if (msgType === 'clear_output') {
      if (content.wait) {
        run.clearNext = true;
      } else {
        run.displays.clear();
      }
      outputs.clear(Boolean(content.wait));
      return;
    }
    if (msgType === 'update_display_data') {
      const id = displayId(content);
      for (const index of id ? (run.displays.get(id) ?? []) : []) {
        outputs.set(index, {
          output_type: 'display_data',
          data: (content.data ?? {}) as nbformat.IMimeBundle,
          metadata: (content.metadata ?? {}) as nbformat.OutputMetadata
        });
      }
      return;
    }
    const output = asOutput(msgType, content);
    if (!output) {
      return;
    }
    if (run.clearNext) {
      run.clearNext = false;
      run.displays.clear();
    }
    const index = outputs.add(output);
    const id = displayId(content);
    if (id) {
      run.displays.set(id, [...(run.displays.get(id) ?? []), index]);
    }
  }

  /** Run `args.run` ended with `args.execution_count`. */
  end(args: Untrusted<RanArgs>): Outcome {
    const token = args.run;
    const run = typeof token === 'string' ? this.runs.get(token) : undefined;
    if (typeof token !== 'string' || !run) {
      return { missing: String(token) };
    }
    this.runs.delete(token);
    const count = args.execution_count;
    run.cell.executionCount = typeof count === 'number' ? count : null;
    run.cell.executionState = 'idle';
    return { done: true, cell: run.cell.id };
  }
}

/** The nbformat output an output message adds (its fields only: `transient` is not saved). */
function asOutput(msgType: string, c: Record<string, unknown>): nbformat.IOutput | undefined {
  const data = (isObject(c.data) ? c.data : {}) as nbformat.IMimeBundle;
  const metadata = (isObject(c.metadata) ? c.metadata : {}) as nbformat.OutputMetadata;
  switch (msgType) {
    case 'stream':
      return c.name === 'stdout' || c.name === 'stderr'
        ? { output_type: 'stream', name: c.name, text: String(c.text ?? '') }
        : undefined;
    case 'display_data':
      return { output_type: 'display_data', data, metadata };
    case 'execute_result': {
      const count = typeof c.execution_count === 'number' ? c.execution_count : null;
      return { output_type: 'execute_result', data, metadata, execution_count: count };
    }
    case 'error':
      return {
        output_type: 'error',
        ename: String(c.ename ?? ''),
        evalue: String(c.evalue ?? ''),
        traceback: Array.isArray(c.traceback) ? c.traceback.map(String) : []
      };
    default:
      return undefined;
  }
}

function displayId(content: Record<string, unknown>): string | undefined {
  const transient = content.transient;
  const id = isObject(transient) ? transient.display_id : undefined;
  return typeof id === 'string' ? id : undefined;
}
