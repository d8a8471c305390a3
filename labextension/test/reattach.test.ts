// Cards of live runs put back into pages that did not start them (src/runs/reattach.ts), and
// the runs protocol's `view` field (src/runs/protocol.ts), with stand-ins for the notebook.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { RunsModel } from '../src/runs/model';
import { parseRun } from '../src/runs/protocol';
import {
  cardIndex,
  cardOutput,
  CardReattacher,
  displayUpdate,
  WIDGET_VIEW
} from '../src/runs/reattach';

const MODEL = 'a'.repeat(32);
const DISPLAY = 'b'.repeat(32);
const RUN = {
  id: 'run-1',
  cell: 'c1',
  agent: 'assistant',
  model: 'gpt-4.1',
  status: 'waiting',
  started: 1000,
  ended: null,
  tokens: 0,
  cost: null,
  tool_calls: 0,
  pending: [],
  view: { model: MODEL, display: DISPLAY, client: 'page-a' }
};

describe("a run's card reference", () => {
  it('is kept when its ids are what a kernel makes', () => {
    assert.deepEqual(parseRun(RUN)?.view, RUN.view);
  });

  it('is dropped (null) when an id is not 32 hex digits, and the run is kept', () => {
    for (const model of ['x', MODEL + '0', '<img src=x>', 7, null]) {
      const run = parseRun({ ...RUN, view: { ...RUN.view, model } });
      assert.equal(run?.view, null);
      assert.equal(run?.id, 'run-1');
    }
    assert.equal(parseRun({ ...RUN, view: { ...RUN.view, display: 'zz' } })?.view, null);
    assert.equal(parseRun({ ...RUN, view: 'card' })?.view, null);
    assert.equal(parseRun({ ...RUN, view: undefined })?.view, null);
  });
});

describe('display updates', () => {
  const update = (content: unknown, type = 'update_display_data') =>
    ({ header: { msg_type: type }, content }) as never;

  it('reads the display id and the bundle', () => {
    const got = displayUpdate(
      update({ transient: { display_id: DISPLAY }, data: { 'text/plain': 'done' }, metadata: {} })
    );
    assert.deepEqual(got, {
      display: DISPLAY,
      output: { output_type: 'display_data', data: { 'text/plain': 'done' }, metadata: {} }
    });
  });

  it('ignores other messages and malformed ones', () => {
    const good = { transient: { display_id: DISPLAY }, data: {} };
    assert.equal(displayUpdate(update(good, 'display_data')), null);
    assert.equal(displayUpdate(update({ ...good, transient: { display_id: 3 } })), null);
    assert.equal(displayUpdate(update({ ...good, data: 'x' })), null);
    assert.equal(displayUpdate(update(null)), null);
  });
});

// -- stand-ins for a notebook page ---------------------------------------------------------

/** The little of the DOM the Resume bar uses. */
class FakeNode {
  children: FakeNode[] = [];
  parent: FakeNode | null = null;
  textContent = '';
  className = '';
  disabled = false;
  onclick: (() => void) | null = null;
  appendChild(node: FakeNode): FakeNode {
    node.parent = this;
    this.children.push(node);
    return node;
  }
  remove(): void {
    if (this.parent) {
      this.parent.children = this.parent.children.filter(c => c !== this);
    }
  }
  setAttribute(): void {}
}
(globalThis as { document?: unknown }).document = { createElement: () => new FakeNode() };

class Outputs {
  items: Record<string, unknown>[] = [];
  toJSON() {
    return this.items;
  }
  get length() {
    return this.items.length;
  }
  clear() {
    this.items = [];
  }
  add(output: Record<string, unknown>) {
    this.items.push(output);
  }
  set(index: number, output: Record<string, unknown>) {
    this.items[index] = output;
  }
}

function page(
  clientId: string,
  cells: { id: string; type: string; state?: string; trusted?: boolean }[]
) {
  const listeners: ((k: unknown, msg: unknown) => void)[] = [];
  const models = cells.map(c => ({
    id: c.id,
    type: c.type,
    executionState: c.state ?? 'idle',
    trusted: c.trusted ?? false,
    outputs: new Outputs()
  }));
  const kernel = { clientId, iopubMessage: { connect: (f: never) => listeners.push(f) } };
  const widgets = models.map(m => ({ model: m, node: new FakeNode() }));
  const panel = {
    isDisposed: false,
    sessionContext: { session: { kernel } },
    content: { widgets, model: { cells: { length: models.length, get: (i: number) => models[i] } } }
  };
  const send = (msg: unknown) => listeners.forEach(f => f(kernel, msg));
  return { panel, cells: models, send, nodes: widgets.map(w => w.node) };
}

function runs(panel: unknown, list: unknown[]) {
  const changed: (() => void)[] = [];
  const model = {
    runs: () => list.map(r => ({ ...(parseRun(r) as object), kernel: 'k1' })),
    panelsOf: () => [panel],
    changed: { connect: (f: () => void) => changed.push(f) }
  };
  return { model: model as unknown as RunsModel, emit: () => changed.forEach(f => f()) };
}

const finished = {
  header: { msg_type: 'update_display_data' },
  content: { transient: { display_id: DISPLAY }, data: { 'text/plain': 'All done.' }, metadata: {} }
};

describe('putting cards back', () => {
  it("puts a live run's card into its cell in a page that did not start it", () => {
    const p = page('page-b', [{ id: 'c0', type: 'code' }, { id: 'c1', type: 'code' }]);
    p.cells[1].outputs.add({ output_type: 'stream', name: 'stdout', text: 'stale' });
    const { model, emit } = runs(p.panel, [RUN]);
    new CardReattacher(model);
    emit();
    assert.deepEqual(p.cells[1].outputs.items, [cardOutput(MODEL)]);
    assert.equal(p.cells[1].trusted, true); // else JupyterLab draws no widget in it
    assert.equal(p.cells[0].trusted, false);
    assert.equal(cardIndex(p.cells[1].outputs.items as never, MODEL), 0);
    assert.deepEqual(p.cells[0].outputs.items, []);
  });

  it('leaves the page that ran the cell alone', () => {
    const p = page('page-a', [{ id: 'c1', type: 'code' }]);
    const { model, emit } = runs(p.panel, [RUN]);
    new CardReattacher(model);
    emit();
    assert.deepEqual(p.cells[0].outputs.items, []);
  });

  it('does it once: a card the person cleared stays cleared', () => {
    const p = page('page-b', [{ id: 'c1', type: 'code' }]);
    const { model, emit } = runs(p.panel, [RUN]);
    new CardReattacher(model);
    emit();
    p.cells[0].outputs.clear();
    emit();
    assert.deepEqual(p.cells[0].outputs.items, []);
  });

  it('keeps a card already there, and never writes into a running or non-code cell', () => {
    const there = page('page-b', [{ id: 'c1', type: 'code', trusted: true }]);
    const saved = { output_type: 'display_data', data: { [WIDGET_VIEW]: { model_id: MODEL } } };
    there.cells[0].outputs.add({ output_type: 'stream', name: 'stdout', text: 'kept' });
    there.cells[0].outputs.add(saved);
    const a = runs(there.panel, [RUN]);
    new CardReattacher(a.model);
    a.emit();
    assert.equal(there.cells[0].outputs.length, 2);
    const untrusted = page('page-b', [{ id: 'c1', type: 'code' }]);
    untrusted.cells[0].outputs.add({ output_type: 'stream', name: 'stdout', text: '<b>sent</b>' });
    untrusted.cells[0].outputs.add(saved);
    const u = runs(untrusted.panel, [RUN]);
    new CardReattacher(u.model);
    u.emit(); // a cell read from a file: what else it holds is not trusted with the card
    assert.deepEqual(untrusted.cells[0].outputs.items, [cardOutput(MODEL)]);
    for (const cell of [
      { id: 'c1', type: 'code', state: 'running' },
      { id: 'c1', type: 'markdown' }
    ]) {
      const p = page('page-b', [cell]);
      const b = runs(p.panel, [RUN]);
      new CardReattacher(b.model);
      b.emit();
      assert.deepEqual(p.cells[0].outputs.items, []);
    }
  });

  it("ignores ended runs, and runs without a card", () => {
    const p = page('page-b', [{ id: 'c1', type: 'code' }]);
    const { model, emit } = runs(p.panel, [
      { ...RUN, status: 'done', ended: 1010 },
      { ...RUN, id: 'run-2', view: null }
    ]);
    new CardReattacher(model);
    emit();
    assert.deepEqual(p.cells[0].outputs.items, []);
  });

  it("replaces the card with the finished run when its display is updated, every time", () => {
    const p = page('page-b', [{ id: 'c1', type: 'code' }]);
    const { model, emit } = runs(p.panel, [RUN]);
    new CardReattacher(model);
    emit();
    p.send({ header: { msg_type: 'update_display_data' }, content: { transient: { display_id: 'c'.repeat(32) }, data: {} } });
    assert.deepEqual(p.cells[0].outputs.items, [cardOutput(MODEL)]); // another display
    p.send(finished);
    assert.deepEqual(p.cells[0].outputs.items, [
      { output_type: 'display_data', data: { 'text/plain': 'All done.' }, metadata: {} }
    ]);
    p.send({ ...finished, content: { ...finished.content, data: { 'text/plain': 'Again.' } } });
    assert.deepEqual(p.cells[0].outputs.items[0].data, { 'text/plain': 'Again.' });
  });
});

describe('a run a restart cut off', () => {
  it('keeps the id that resumes it, when it is 32 hex digits', () => {
    const cut = { ...RUN, status: 'cut off', ended: 1000, view: null, resume: MODEL };
    assert.equal(parseRun(cut)?.resume, MODEL);
    for (const resume of ['abc', `${MODEL}; rm -rf /`, 7, null]) {
      assert.equal(parseRun({ ...cut, resume })?.resume, undefined);
    }
  });
});

describe("the Resume bar under a cut-off run's cell", () => {
  const cut = { ...RUN, status: 'cut off', ended: 1000, view: null, resume: MODEL };

  it('is there while the run can be resumed, and its Resume resumes that run', () => {
    const p = page('page-b', [{ id: 'c0', type: 'code' }, { id: 'c1', type: 'code' }]);
    const list = [cut];
    const { model, emit } = runs(p.panel, list);
    const resumed: string[] = [];
    new CardReattacher(model, run => resumed.push(run.resume ?? ''));
    emit();
    emit(); // once, however often the runs change
    const [bar] = p.nodes[1].children as unknown as FakeNode[];
    assert.equal(p.nodes[1].children.length, 1);
    assert.equal(p.nodes[0].children.length, 0);
    assert.equal(bar.className, 'ja-resume-bar');
    const button = bar.children[1];
    assert.equal(button.textContent, 'Resume');
    button.onclick?.();
    assert.deepEqual(resumed, [MODEL]);
    assert.equal(button.disabled, true);
    list[0] = { ...cut, status: 'resumed', resume: undefined as unknown as string };
    emit(); // resumed: the bar goes
    assert.equal(p.nodes[1].children.length, 0);
  });
});
