// Unit tests of the notebook's mode on the runs comm (src/runs/protocol.ts, src/runs/model.ts,
// src/runs/summary.ts), with a stand-in kernel, on Node's own test runner.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { NotebookPanel } from '@jupyterlab/notebook';
import { Signal } from '@lumino/signaling';

import { Mode } from '../src/runs/contract';
import { RunsModel } from '../src/runs/model';
import { parseMessage } from '../src/runs/protocol';
import { modeText } from '../src/runs/summary';

describe('the mode message', () => {
  it('keeps each of the three modes', () => {
    for (const mode of ['ask', 'plan', 'agent']) {
      assert.deepEqual(parseMessage({ type: 'mode', mode }), { type: 'mode', mode });
    }
  });

  it('drops a mode that is not one, or not text', () => {
    for (const mode of ['yolo', 'ASK', '', 1, null, undefined, ['ask'], { mode: 'ask' }]) {
      assert.equal(parseMessage({ type: 'mode', mode }), null);
    }
  });

  it('reads as the status bar says it', () => {
    assert.equal(modeText('plan'), 'Mode: plan');
    assert.equal(modeText(null), '');
  });
});

/** A comm as the model uses it: what it was opened with and what was sent on it. */
class FakeComm {
  isDisposed = false;
  opened: unknown = undefined;
  sent: unknown[] = [];
  onMsg: ((msg: { content: { data: unknown } }) => void) | null = null;
  onClose: (() => void) | null = null;
  open(data: unknown): void {
    this.opened = data;
  }
  send(data: unknown): void {
    this.sent.push(data);
  }
  /** The kernel sends `data` on this comm. */
  receive(data: unknown): void {
    this.onMsg?.({ content: { data } });
  }
}

class FakeKernel {
  isDisposed = false;
  comms: FakeComm[] = [];
  statusChanged = new Signal<this, string>(this);
  disposed = new Signal<this, void>(this);
  constructor(readonly id: string) {}
  registerCommTarget(): void {}
  createComm(): FakeComm {
    const comm = new FakeComm();
    this.comms.push(comm);
    return comm;
  }
}

function notebook(kernel: FakeKernel | null) {
  const owner = {};
  const panel = {
    sessionContext: { session: kernel && { kernel }, kernelChanged: new Signal(owner) },
    disposed: new Signal(owner)
  };
  return panel as unknown as NotebookPanel;
}

function tracked(id = 'k1') {
  const model = new RunsModel();
  const kernel = new FakeKernel(id);
  const panel = notebook(kernel);
  model.track(panel);
  let changes = 0;
  model.changed.connect(() => (changes += 1));
  return { model, kernel, panel, comm: kernel.comms[0], changes: () => changes };
}

describe("the model's mode of each notebook", () => {
  it('has none until the kernel says it (a kernel without the extension says nothing)', () => {
    const { model, panel, comm } = tracked();
    assert.deepEqual(comm.opened, { type: 'hello' });
    assert.equal(model.modeOf(panel), null);
    comm.receive({ type: 'snapshot', runs: [] });
    assert.equal(model.modeOf(panel), null);
    assert.equal(model.modeOf(notebook(null)), null);
    assert.equal(model.modeOf(null), null);
  });

  it('keeps the mode the kernel sends, and tells the views once per change', () => {
    const { model, panel, comm, changes } = tracked();
    comm.receive({ type: 'mode', mode: 'plan' });
    assert.equal(model.modeOf(panel), 'plan');
    assert.equal(changes(), 1);
    comm.receive({ type: 'mode', mode: 'plan' }); // the same again (after a snapshot)
    assert.equal(changes(), 1);
    comm.receive({ type: 'mode', mode: 'ask' });
    assert.equal(model.modeOf(panel), 'ask');
    assert.equal(changes(), 2);
  });

  it('ignores a malformed mode', () => {
    const { model, panel, comm, changes } = tracked();
    comm.receive({ type: 'mode', mode: 'agent' });
    comm.receive({ type: 'mode', mode: 'sudo' });
    comm.receive({ type: 'mode', mode: '<img src=x onerror=alert(1)>' });
    assert.equal(model.modeOf(panel), 'agent');
    assert.equal(changes(), 1);
  });

  it("keeps each kernel's mode apart", () => {
    const a = tracked('k1');
    const b = tracked('k2');
    a.comm.receive({ type: 'mode', mode: 'ask' });
    b.comm.receive({ type: 'mode', mode: 'plan' });
    assert.equal(a.model.modeOf(a.panel), 'ask');
    assert.equal(b.model.modeOf(b.panel), 'plan');
    assert.equal(a.model.modeOf(b.panel), null); // a kernel this model does not follow
  });

  it('sends set_mode, and shows the new mode only when the kernel says it', () => {
    const { model, panel, comm } = tracked();
    comm.receive({ type: 'mode', mode: 'ask' });
    assert.equal(model.setMode(panel, 'agent'), true);
    assert.deepEqual(comm.sent.at(-1), { type: 'set_mode', mode: 'agent' });
    assert.equal(model.modeOf(panel), 'ask');
    comm.receive({ type: 'mode', mode: 'agent' });
    assert.equal(model.modeOf(panel), 'agent');
  });

  it('sends nothing for a mode that is not one, or without a kernel', () => {
    const { model, panel, comm } = tracked();
    assert.equal(model.setMode(panel, 'root' as Mode), false);
    assert.equal(model.setMode(notebook(null), 'ask'), false);
    assert.equal(model.setMode(null, 'ask'), false);
    assert.deepEqual(comm.sent, []);
  });

  it('forgets the mode when the kernel restarts (until it loads the extension again)', () => {
    const { model, kernel, panel, comm } = tracked();
    comm.receive({ type: 'mode', mode: 'plan' });
    kernel.statusChanged.emit('restarting');
    assert.equal(model.modeOf(panel), null);
    assert.equal(model.setMode(panel, 'ask'), false); // no comm left to send it on
  });
});
