// Unit tests of the notebook agent's changes and runs as this page applies them
// (src/document/changes.ts, runs.ts), on a stand-in for the notebook model: every cell a change
// touches or goes next to must still hold the source its card showed, typing the editor has not
// read yet included; else nothing is done and the kernel is told which cell changed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { NotebookPanel } from '@jupyterlab/notebook';

import { applyChange } from '../src/document/changes';
import { Runs } from '../src/document/runs';

class Cell {
  executionState = 'idle';
  executionCount: number | null = null;
  outputs = { clear: () => undefined };
  /** Text typed in the cell's editor that the editor has not read yet. */
  pending = '';
  metadata: Record<string, unknown> = {};
  readonly sharedModel = {
    getSource: () => this.source,
    transact: (change: () => void) => change(),
    updateSource: (from: number, to: number, text: string) => {
      this.source = this.source.slice(0, from) + text + this.source.slice(to);
    }
  };
  constructor(
    public id: string,
    public source: string,
    public type = 'code'
  ) {}
}

/** A panel over `cells` (its model, shared model and editors, as far as the page uses them). */
function panelOf(cells: Cell[]): NotebookPanel {
  let made = 0;
  const model = {
    cells: { get length() { return cells.length; }, get: (i: number) => cells[i] },
    sharedModel: {
      transact: (change: () => void) => change(),
      insertCell: (index: number, cell: { cell_type: string; source: string; id?: string; metadata: Record<string, unknown> }) => {
        const inserted = new Cell(cell.id ?? `new${++made}`, cell.source, cell.cell_type);
        inserted.metadata = cell.metadata;
        cells.splice(index, 0, inserted);
        return { getId: () => inserted.id };
      },
      deleteCell: (index: number) => cells.splice(index, 1),
      moveCell: (from: number, to: number) => cells.splice(to, 0, ...cells.splice(from, 1))
    }
  };
  const editor = (cell: Cell) => ({
    editor: {
      observer: {
        forceFlush: () => {
          cell.source += cell.pending;
          cell.pending = '';
        }
      }
    }
  });
  const content = { model, get widgets() { return cells.map(c => ({ editor: editor(c) })); } };
  return { content } as unknown as NotebookPanel;
}

const ids = (cells: Cell[]) => cells.map(c => c.id);

describe('a change the card showed', () => {
  it('is made while every cell it touches holds what the card showed', () => {
    const cells = [new Cell('a', 'x = 1'), new Cell('b', 'y = 2')];
    const panel = panelOf(cells);
    const moved = applyChange(panel, 'move', {
      id: 'a',
      expected: 'x = 1',
      after: 'b',
      after_expected: 'y = 2'
    });
    assert.deepEqual(moved, { done: true, cell: 'a' });
    assert.deepEqual(ids(cells), ['b', 'a']);
    const put = applyChange(panel, 'insert', {
      cell_type: 'code',
      source: 'z = 3',
      before: 'a',
      expected: 'x = 1'
    });
    assert.equal(put.done, true);
    assert.deepEqual(ids(cells), ['b', 'new1', 'a']);
  });

  it('is refused when the cell that moves changed since', () => {
    const cells = [new Cell('a', 'x = 1'), new Cell('b', 'y = 2')];
    const reply = applyChange(panelOf(cells), 'move', {
      id: 'b',
      expected: 'y = 1',
      after: null
    });
    assert.deepEqual(reply, { stale: true, cell: 'b', source: 'y = 2' });
    assert.deepEqual(ids(cells), ['a', 'b']);
  });

  it('is refused when the cell a move or an insert goes next to changed since', () => {
    const cells = [new Cell('a', 'x = 1'), new Cell('b', 'y = 2')];
    const panel = panelOf(cells);
    cells[1].pending = ' + 1'; // typed, not yet read by the editor
    const moved = applyChange(panel, 'move', {
      id: 'a',
      expected: 'x = 1',
      after: 'b',
      after_expected: 'y = 2'
    });
    assert.deepEqual(moved, { stale: true, cell: 'b', source: 'y = 2 + 1' });
    const put = applyChange(panel, 'insert', {
      cell_type: 'code',
      source: 'z',
      after: 'a',
      expected: 'x = 2'
    });
    assert.deepEqual(put, { stale: true, cell: 'a', source: 'x = 1' });
    const unchecked = applyChange(panel, 'insert', { cell_type: 'code', source: 'z', after: 'a' });
    assert.equal(unchecked.stale, true); // a kernel that sends no expected source is refused
    assert.deepEqual(ids(cells), ['a', 'b']);
  });

  it('inserts with the id the kernel asks for, and never twice', () => {
    const cells = [new Cell('a', 'x = 1')];
    const panel = panelOf(cells);
    const insert = { cell_type: 'code', source: 'y = 2', after: 'a', expected: 'x = 1' };
    const first = applyChange(panel, 'insert', { ...insert, id: 'ja-0123' });
    assert.deepEqual(first, { done: true, cell: 'ja-0123', source: 'y = 2' });
    // a replay of the same call: the notebook holds that cell with that text already
    const again = applyChange(panel, 'insert', { ...insert, id: 'ja-0123' });
    assert.deepEqual(again, { done: true, cell: 'ja-0123', source: 'y = 2' });
    assert.deepEqual(ids(cells), ['a', 'ja-0123']);
    // the person changed it since: a new cell, with an id of its own
    cells[1].source = 'y = 3';
    const changed = applyChange(panel, 'insert', { ...insert, id: 'ja-0123' });
    assert.equal(changed.done, true);
    assert.notEqual(changed.cell, 'ja-0123');
    // an id nbformat would refuse is not asked for
    const odd = applyChange(panel, 'insert', { ...insert, id: 'not an id!' });
    assert.notEqual(odd.cell, 'not an id!');
    assert.equal(cells.length, 4);
  });

  it("writes the kernel's keyed mark as given, and nothing else as a mark", () => {
    const cells: Cell[] = [];
    const panel = panelOf(cells);
    const mark = '0123456789abcdef0123456789abcdef';
    const insert = { cell_type: 'code', source: 'x = 1', after: null, before: null };
    applyChange(panel, 'insert', { ...insert, mark });
    assert.deepEqual(cells[0].metadata, { jupyter_agents: { inserted: mark } });
    // a mark of another form (the old unkeyed one, markup, another type) makes a plain cell
    for (const odd of ['5-41f65c6b', `${mark}<b>`, 12, undefined]) {
      applyChange(panel, 'insert', { ...insert, mark: odd });
      assert.deepEqual(cells[cells.length - 1].metadata, {});
    }
  });

  it('names the cell when an edit or a delete finds another source', () => {
    const cells = [new Cell('a', 'x = 1')];
    const panel = panelOf(cells);
    assert.deepEqual(applyChange(panel, 'edit', { id: 'a', expected: 'x', source: 'y' }), {
      stale: true,
      cell: 'a',
      source: 'x = 1'
    });
    assert.deepEqual(applyChange(panel, 'delete', { id: 'a', expected: 'x' }).stale, true);
    assert.deepEqual(ids(cells), ['a']);
  });
});

describe('a cell the kernel runs', () => {
  it('starts only while it holds the source its card showed, typing not yet read included', () => {
    const cells = [new Cell('a', "print('shown')")];
    const panel = panelOf(cells);
    const runs = new Runs();
    cells[0].pending = "; print('typed')";
    const reply = runs.start(panel, { id: 'a', expected: "print('shown')", run: 't1' });
    assert.deepEqual(reply, { stale: true, cell: 'a', source: "print('shown'); print('typed')" });
    assert.equal(cells[0].executionState, 'idle');
    const ran = runs.start(panel, { id: 'a', expected: cells[0].source, run: 't2' });
    assert.deepEqual(ran, { done: true, cell: 'a' });
    assert.equal(cells[0].executionState, 'running');
  });

  it('is the first cell with its id', () => {
    const cells = [new Cell('a', 'first'), new Cell('a', 'second')];
    const reply = new Runs().start(panelOf(cells), { id: 'a', expected: 'second', run: 't' });
    assert.deepEqual(reply, { stale: true, cell: 'a', source: 'first' });
  });
});
