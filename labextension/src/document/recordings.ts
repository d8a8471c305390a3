/**
 * A cell's recorded agent runs (jupyter_agents/notebook/cells/cell_replay.py): packed text in the
 * cell's metadata (`jupyter_agents.cassette`), where clearing outputs leaves them, so the saved
 * notebook carries them.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';

import { isObject, Untrusted } from '../untrusted';
import { CassetteArgs, Done, Missing, Recordings, Refused, SetCassetteArgs } from './contract';

const KEY = 'jupyter_agents';

/** Cells whose next run asks the model ("Run live" on a replayed run; labextension/src/runlive):
 * the next `cassette` request for one says `live` and takes it off. */
export const liveNext = new Set<string>();

/** `cassette` (read) or `set_cassette` (write; `data: null` drops it) for cell `args.id`. */
export function recordings(
  panel: NotebookPanel,
  op: 'cassette' | 'set_cassette',
  args: Untrusted<CassetteArgs & SetCassetteArgs>
): Recordings | Done | Missing | Refused {
  const cells = panel.content.model?.cells;
  let cell = undefined;
  for (let i = 0; cells && i < cells.length; i++) {
    if (cells.get(i).id === args.id) {
      cell = cells.get(i);
    }
  }
  if (!cell) {
    return { missing: String(args.id) };
  }
  const stored = cell.getMetadata(KEY);
  const ours: Record<string, unknown> = isObject(stored) ? { ...stored } : {};
  if (op === 'cassette') {
    const live = liveNext.delete(String(args.id));
    return { data: typeof ours.cassette === 'string' ? ours.cassette : null, live };
  }
  if (args.data === null) {
    delete ours.cassette;
  } else if (typeof args.data === 'string') {
    ours.cassette = args.data;
  } else {
    return { refused: 'recordings are packed text.' };
  }
  if (Object.keys(ours).length) {
    cell.setMetadata(KEY, ours);
  } else {
    cell.deleteMetadata(KEY);
  }
  return { done: true };
}
