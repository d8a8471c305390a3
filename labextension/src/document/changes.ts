/**
 * The notebook agent's changes, applied to the notebook model this page holds: each checked
 * against the document as it is now and made in one transaction, so it is one undo step.
 *
 * Every cell a change touches or goes next to must still hold, in full, the source its card
 * showed the person (`expected`, `after_expected`): the person may have typed since the card
 * was made, and then nothing is done (`stale`, with the cell and its source now).
 */
import { NotebookPanel } from '@jupyterlab/notebook';

import { isOneOf, Untrusted } from '../untrusted';
import {
  CELL_TYPES,
  DeleteArgs,
  Done,
  EditArgs,
  Failed,
  InsertArgs,
  Missing,
  MoveArgs,
  Outcome,
  Refused,
  Stale
} from './contract';
import { changedPart } from './diff';

/** A cell id nbformat accepts (an insert may ask for one: notebook_edits.inserted_id). */
const CELL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The changes applied here, and their args as the kernel sent them (each field checked where
 * it is read). */
export type Change = 'insert' | 'edit' | 'delete' | 'move';
export type ChangeArgs = Untrusted<InsertArgs & EditArgs & DeleteArgs & MoveArgs>;

/** The reply to a change: one of its outcomes (or an error), whose every field can be read (one
 * the outcome does not have is undefined). */
export type Reply = (Outcome | Failed) & Partial<Done & Stale & Missing & Refused & Failed>;

/** "code, markdown or raw": the cell types, as the kernel is told them. */
const CELL_TYPE_LIST = `${CELL_TYPES.slice(0, -1).join(', ')} or ${CELL_TYPES[CELL_TYPES.length - 1]}`;

/**
 * The mark the kernel made for a cell its agent inserts (keyed with the person's secret over
 * the cell's text: `signing.inserted_mark`), written as given. Running the notebook again
 * headless takes such a cell out until the replayed run inserts it again; anything else the
 * kernel sent is not written, so the cell is an ordinary one.
 */
const MARK = /^[0-9a-f]{32}$/;

/** The editor shows `\r\n` and `\r` as one line break while the cell's shared source keeps
 * them, so a change to such a source lands at the wrong place (or throws in the editor). */
const CARRIAGE_RETURNS =
  "that cell's source holds carriage returns (Windows line ends) the editor does not show, so " +
  'it cannot be changed safely here; ask the user to retype it in a new cell.';

/** What the agent writes, with plain line feeds (see CARRIAGE_RETURNS). */
function lineFeeds(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** What the person typed in cell `index` that its editor has not read yet, read now.
 * CodeMirror takes typed text from the page on the next animation frame; a change checked
 * before that would not see it, and the text would be lost under the change. (The editor's
 * observer is internal to CodeMirror: without it, nothing is flushed, as before.) */
export function flushTyping(panel: NotebookPanel, index: number): void {
  const editor = panel.content.widgets[index]?.editor as unknown as {
    editor?: { observer?: { forceFlush?: () => void } };
  } | null;
  try {
    editor?.editor?.observer?.forceFlush?.();
  } catch (e) {
    console.debug('jupyter-agents: could not read pending typing', e);
  }
}

/** The reply for a cell that does not hold the source its card showed: nothing is done. */
export function stale(id: string, source: string): Stale {
  return { stale: true, cell: id, source };
}

/** Whether cell `index` of `panel` holds exactly `expected` (what the person typed and its
 * editor has not read yet is read first); the stale reply when it does not. */
function holds(panel: NotebookPanel, index: number, expected: unknown): Stale | null {
  const cell = panel.content.model!.cells.get(index);
  flushTyping(panel, index);
  const now = cell.sharedModel.getSource();
  return now === expected ? null : stale(cell.id, now);
}

/** Apply change `op` with `args` to `panel`'s notebook; the reply for the kernel. */
export function applyChange(panel: NotebookPanel, op: Change, args: ChangeArgs): Reply {
  const model = panel.content.model;
  if (!model) {
    return { error: 'the notebook is not open' };
  }
  const shared = model.sharedModel;
  const indexOf = (id: unknown): number => {
    for (let i = 0; i < model.cells.length; i++) {
      if (model.cells.get(i).id === id) {
        return i;
      }
    }
    return -1;
  };
  if (op === 'insert') {
    const kind = args.cell_type;
    if (!isOneOf(CELL_TYPES, kind) || typeof args.source !== 'string') {
      return { refused: `cell_type must be ${CELL_TYPE_LIST}, and source text.` };
    }
    const anchor = args.after ?? args.before;
    let index = model.cells.length;
    if (anchor !== null && anchor !== undefined) {
      const found = indexOf(anchor);
      if (found < 0) {
        return { missing: String(anchor) };
      }
      const changed = holds(panel, found, args.expected); // the cell it goes next to
      if (changed) {
        return changed;
      }
      index = args.after !== null && args.after !== undefined ? found + 1 : found;
    }
    const source = lineFeeds(args.source);
    // The kernel asks for an id made from the call, so a replayed run asks for the same one:
    // a cell of that id holding that text is the one the recorded run inserted (not twice).
    let asked = typeof args.id === 'string' && CELL_ID.test(args.id) ? args.id : undefined;
    if (asked !== undefined) {
      const there = indexOf(asked);
      if (there >= 0) {
        const held = model.cells.get(there);
        if (held.type === kind && held.sharedModel.getSource() === source) {
          return { done: true, cell: asked, source };
        }
        asked = undefined; // that id holds something else: a new one
      }
    }
    let id = '';
    shared.transact(() => {
      const mark = typeof args.mark === 'string' && MARK.test(args.mark) ? args.mark : undefined;
      const metadata = mark ? { jupyter_agents: { inserted: mark } } : {};
      const cell = { cell_type: kind, source, metadata, ...(asked ? { id: asked } : {}) };
      id = shared.insertCell(index, cell).getId();
    });
    return { done: true, cell: id, source };
  }
  const index = indexOf(args.id);
  if (index < 0) {
    return { missing: String(args.id) };
  }
  const cell = model.cells.get(index);
  flushTyping(panel, index);
  const state = (cell as unknown as { executionState?: string }).executionState;
  if (state === 'running') {
    return { refused: 'that cell is running now; it cannot be changed.' };
  }
  const now = cell.sharedModel.getSource();
  if ((op === 'edit' || op === 'delete' || op === 'move') && now !== args.expected) {
    return stale(cell.id, now);
  }
  if (op === 'edit') {
    if (typeof args.source !== 'string') {
      return { refused: 'the new source must be text.' };
    }
    if (now.includes('\r')) {
      return { refused: CARRIAGE_RETURNS };
    }
    const source = lineFeeds(args.source);
    // Only the part that changes is replaced, so the person's cursor and selection stay where
    // they are (replacing the whole source put the cursor at the start, and what they typed
    // next landed there). The cell's own transaction: its undo manager tracks it, so Ctrl+Z
    // in the cell takes back exactly this edit.
    const [from, to, text] = changedPart(now, source);
    cell.sharedModel.transact(() => cell.sharedModel.updateSource(from, to, text));
    return { done: true, cell: cell.id, source };
  }
  if (op === 'delete') {
    shared.transact(() => shared.deleteCell(index));
    return { done: true, cell: cell.id };
  }
  if (op === 'move') {
    const after = args.after;
    let to = 0;
    if (after !== null && after !== undefined) {
      const target = indexOf(after);
      if (target < 0) {
        return { missing: String(after) };
      }
      if (target === index) {
        return { refused: 'a cell cannot go after itself.' };
      }
      const changed = holds(panel, target, args.after_expected);
      if (changed) {
        return changed;
      }
      to = target < index ? target + 1 : target;
    }
    shared.transact(() => shared.moveCell(index, to));
    return { done: true, cell: cell.id };
  }
  return { error: 'unknown request' };
}
