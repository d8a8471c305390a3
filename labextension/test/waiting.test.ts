// What a run waits for, as the runs panel reads it from a kernel (src/runs/protocol.ts) and
// words it (src/runs/summary.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseRun } from '../src/runs/protocol';
import { waitText } from '../src/runs/summary';

const RUN = {
  id: 'run-1',
  cell: 'c1',
  agent: 'assistant',
  model: 'gpt-4.1',
  status: 'running',
  started: 1000,
  ended: null,
  tokens: 0,
  cost: null,
  tool_calls: 0,
  pending: []
};
const WAIT = { on: 'model', text: 'waiting for the model at 127.0.0.1:8000', since: 1_000_000 };

describe('what a run waits for', () => {
  it('is kept when it is well formed', () => {
    assert.deepEqual(parseRun({ ...RUN, wait: WAIT })?.wait, WAIT);
  });

  it('is left out when there is none, or it is malformed, and the run stays', () => {
    for (const wait of [null, undefined, 'model', { ...WAIT, on: 'nobody' }, { ...WAIT, since: '1' }]) {
      const run = parseRun({ ...RUN, wait });
      assert.ok(run);
      assert.equal(run.wait, undefined);
      assert.equal('wait' in run, false);
    }
  });

  it('says for how long, in whole seconds', () => {
    assert.equal(waitText(WAIT, 1_005.4), 'waiting for the model at 127.0.0.1:8000 · 5 s');
    assert.equal(waitText(WAIT, 1_012), 'waiting for the model at 127.0.0.1:8000 · 12 s');
    assert.equal(waitText(WAIT, 1_065), 'waiting for the model at 127.0.0.1:8000 · 1 min 05 s');
    assert.equal(waitText(WAIT, 990), 'waiting for the model at 127.0.0.1:8000 · 0 s');
  });
});
