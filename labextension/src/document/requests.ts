/**
 * The reply to each request of the kernel's `jupyter_agents.document` comm (typed in
 * ./contract, generated from jupyter_agents/notebook/document_contract.py), from the notebook
 * this page holds. A request is untrusted: its `op` must be one the contract has, its args an
 * object, and each arg is checked where it is read (changes.ts, recordings.ts, runs.ts).
 */
import type { NotebookPanel } from '@jupyterlab/notebook';

import { isObject, isOneOf, Untrusted } from '../untrusted';
import { applyChange } from './changes';
import { Answer, Cell, CELL_TYPES, Done, OPS, Refused, RestartArgs } from './contract';
import { recordings } from './recordings';
import { Runs } from './runs';

/** What answering needs besides the notebook: the runs under way, and a restart of the kernel
 * once the agent's cell ends. */
export interface Page {
  readonly runs: Runs;
  restartAfter(panel: NotebookPanel, args: Untrusted<RestartArgs>): Done | Refused;
  /** Open `path` (already checked: `notebookBeside`) in a new tab. */
  openNotebook(path: string): Done | Refused;
}

/**
 * The server path of `relative` (the kernel's word, untrusted) in the folder of the notebook
 * `from`, or why not: a relative path of plain names (no `..`, no hidden part, no backslash)
 * ending in `.ipynb`.
 */
export function notebookBeside(from: string, relative: unknown): string | Refused {
  if (typeof relative !== 'string' || relative.length > 1024 || /[\\\0]/.test(relative)) {
    return { refused: 'not a relative path' };
  }
  const parts = relative.split('/').filter(p => p !== '' && p !== '.');
  if (relative.startsWith('/') || parts.length === 0) {
    return { refused: 'not a relative path' };
  }
  if (parts.some(p => p === '..' || p.startsWith('.'))) {
    return { refused: 'the path may not go up or name a hidden file' };
  }
  if (!parts[parts.length - 1].endsWith('.ipynb')) {
    return { refused: 'not a notebook (.ipynb)' };
  }
  const folder = from.split('/').slice(0, -1);
  return [...folder, ...parts].join('/');
}

/** The cells of `panel`'s notebook as they are now. */
export function cellsOf(panel: NotebookPanel): Cell[] {
  const model = panel.content.model;
  if (!model) {
    return [];
  }
  const cells: Cell[] = [];
  for (let i = 0; i < model.cells.length; i++) {
    const cell = model.cells.get(i);
    const json = cell.toJSON() as Record<string, unknown>;
    const source = Array.isArray(json.source) ? json.source.join('') : String(json.source ?? '');
    const state = (cell as unknown as { executionState?: string }).executionState;
    cells.push({
      id: cell.id,
      // (JupyterLab types a cell's type as any string; its notebook model makes only these)
      cell_type: isOneOf(CELL_TYPES, cell.type) ? cell.type : 'raw',
      source,
      execution_count: typeof json.execution_count === 'number' ? json.execution_count : null,
      outputs: Array.isArray(json.outputs) ? json.outputs : [],
      executing: state === 'running'
    });
  }
  return cells;
}

/** The reply to request `op` with `args` from the notebook `shown` (none: it is not open): only
 * a request the contract has (`OPS`) with its args an object is answered (each arg is checked
 * where it is read); anything else is an unknown request. */
export function answer(
  page: Page,
  shown: NotebookPanel | undefined,
  op: unknown,
  args: unknown
): Answer {
  if (!shown) {
    return { error: 'the notebook is not open' };
  }
  if (!isOneOf(OPS, op)) {
    return { error: 'unknown request' };
  }
  if (op === 'ping') {
    return { done: true };
  }
  if (op === 'cells') {
    return { cells: cellsOf(shown) };
  }
  if (!isObject(args)) {
    return { error: 'unknown request' };
  }
  switch (op) {
    case 'cassette':
    case 'set_cassette':
      return recordings(shown, op, args);
    case 'restart':
      return page.restartAfter(shown, args);
    case 'open_notebook': {
      const path = notebookBeside(shown.context.path, args.path);
      return typeof path === 'string' ? page.openNotebook(path) : path;
    }
    case 'run':
      return page.runs.start(shown, args);
    case 'ran':
      return page.runs.end(args);
    case 'insert':
    case 'edit':
    case 'delete':
    case 'move':
      return applyChange(shown, op, args);
  }
}
