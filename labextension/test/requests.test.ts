// Unit tests of the document comm's requests as this page answers them (src/document/requests.ts):
// only a request the contract has (src/document/contract.ts, generated from the Python side),
// with its args an object, is answered; anything else the kernel sends is an unknown request,
// whatever cell it names. Each line of REQUESTS is one case: the op, the args, the reply.
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';

import type { NotebookPanel } from '@jupyterlab/notebook';

import { OPS } from '../src/document/contract';
import { answer, notebookBeside, Page } from '../src/document/requests';
import { Runs } from '../src/document/runs';

const UNKNOWN = { error: 'unknown request' };

/** A notebook of one code cell `a` holding `x = 1` (as far as the requests read it). */
function notebook(): { panel: NotebookPanel; ids: () => string[] } {
  const cell = (id: string, source: string) => ({
    id,
    type: 'code',
    executionState: 'idle',
    executionCount: null,
    outputs: { clear: () => undefined },
    metadata: new Map<string, unknown>(),
    getMetadata(key: string) {
      return this.metadata.get(key);
    },
    setMetadata(key: string, value: unknown) {
      this.metadata.set(key, value);
    },
    deleteMetadata(key: string) {
      this.metadata.delete(key);
    },
    toJSON: () => ({ id, cell_type: 'code', source, outputs: [], execution_count: null }),
    sharedModel: { getSource: () => source, transact: (change: () => void) => change() }
  });
  const cells = [cell('a', 'x = 1')];
  const model = {
    cells: { get length() { return cells.length; }, get: (i: number) => cells[i] },
    sharedModel: {
      transact: (change: () => void) => change(),
      insertCell: (index: number, made: { source: string }) => {
        cells.splice(index, 0, cell(`new${cells.length}`, made.source));
        return { getId: () => cells[index].id };
      },
      deleteCell: (index: number) => cells.splice(index, 1),
      moveCell: (from: number, to: number) => cells.splice(to, 0, ...cells.splice(from, 1))
    }
  };
  const panel = { content: { model, widgets: [] }, context: { path: 'nb.ipynb' } } as unknown as NotebookPanel;
  return { panel, ids: () => cells.map(c => c.id) };
}

const opened: string[] = [];
const page: Page = {
  runs: new Runs(),
  restartAfter: () => ({ done: true }),
  openNotebook: (path: string) => {
    opened.push(path);
    return { done: true };
  }
};

const REQUESTS: [op: unknown, args: unknown, reply: unknown][] = [
  ['explode', { id: 'nope' }, UNKNOWN],
  ['explode', { id: 'a', expected: 'x = 1' }, UNKNOWN],
  ['__proto__', { id: 'a', expected: 'x = 1' }, UNKNOWN],
  ['toString', { id: 'a' }, UNKNOWN],
  ['cells ', {}, UNKNOWN],
  ['DELETE', { id: 'a', expected: 'x = 1' }, UNKNOWN],
  [undefined, { id: 'a' }, UNKNOWN],
  [7, {}, UNKNOWN],
  [['delete'], { id: 'a', expected: 'x = 1' }, UNKNOWN],
  ['delete', ['a', 'x = 1'], UNKNOWN],
  ['delete', 'a', UNKNOWN],
  ['delete', null, UNKNOWN],
  ['insert', undefined, UNKNOWN],
  ['insert', { cell_type: 'sql', source: 's' }, { refused: 'cell_type must be code, markdown or raw, and source text.' }],
  ['edit', { id: 'a', expected: 'x = 1', source: 5 }, { refused: 'the new source must be text.' }],
  ['delete', { id: 'nope', expected: 'x = 1' }, { missing: 'nope' }],
  ['ping', undefined, { done: true }],
  ['delete', { id: 'a', expected: 'x = 1' }, { done: true, cell: 'a' }]
];

describe('a request from the kernel', () => {
  for (const [op, args, reply] of REQUESTS) {
    it(`${JSON.stringify(op)} with ${JSON.stringify(args)} is answered ${JSON.stringify(reply)}`, () => {
      const { panel, ids } = notebook();
      assert.deepEqual(answer(page, panel, op, args), reply);
      const done = (reply as { done?: boolean }).done === true && op !== 'ping';
      assert.deepEqual(ids(), done ? [] : ['a']); // only the one allowed delete changed anything
    });
  }

  it('of every op the contract has is answered, none as unknown', () => {
    for (const op of OPS) {
      assert.notDeepEqual(answer(page, notebook().panel, op, {}), UNKNOWN, op);
    }
  });

  it('is not answered from a notebook that is not open', () => {
    assert.deepEqual(answer(page, undefined, 'ping', undefined), {
      error: 'the notebook is not open'
    });
  });
});

test('open_notebook opens only a plain relative .ipynb path beside the notebook', () => {
  const { panel } = notebook();
  (panel as unknown as { context: { path: string } }).context = { path: 'work/sales.ipynb' };
  opened.length = 0;
  const refusedPaths: unknown[] = [
    '../secrets.ipynb',
    '/etc/passwd.ipynb',
    'a/../../x.ipynb',
    '.hidden/x.ipynb',
    'x.py',
    'a\\b.ipynb',
    'x\u0000.ipynb',
    7,
    '',
    'x'.repeat(2000) + '.ipynb'
  ];
  for (const path of refusedPaths) {
    const reply = answer(page, panel, 'open_notebook', { path });
    assert.ok('refused' in reply, `${String(path)} -> ${JSON.stringify(reply)}`);
  }
  assert.deepEqual(opened, []);
  assert.deepEqual(answer(page, panel, 'open_notebook', { path: './sub/q1.ipynb' }), { done: true });
  assert.deepEqual(opened, ['work/sub/q1.ipynb']);
  assert.equal(notebookBeside('top.ipynb', 'b.ipynb'), 'b.ipynb');
});
