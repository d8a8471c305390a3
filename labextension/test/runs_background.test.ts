// The runs protocol's calls left running in the background (src/runs/protocol.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseRun } from '../src/runs/protocol';

const STOPPED = {
  id: 'run-2',
  cell: 'c2',
  agent: 'assistant',
  model: 'gpt-4.1',
  status: 'cancelled',
  started: 1000,
  ended: 1010,
  tokens: 0,
  cost: null,
  tool_calls: 0,
  pending: []
};

describe('calls still running in the background', () => {
  it('keeps each call and tool name', () => {
    const calls = [{ call: 'w1', tool: 'write_file' }];
    assert.deepEqual(parseRun({ ...STOPPED, background_calls: calls })?.background, calls);
  });

  it('leaves the field out when there are none, or when they are malformed', () => {
    assert.equal(parseRun({ ...STOPPED, background_calls: [] })?.background, undefined);
    assert.equal(parseRun(STOPPED)?.background, undefined);
    const odd = [{ call: 1, tool: 'x' }, 'w1', { call: 'w2', tool: 'kept', extra: '<b>' }];
    assert.deepEqual(parseRun({ ...STOPPED, background_calls: odd })?.background, [
      { call: 'w2', tool: 'kept' }
    ]);
    assert.equal(parseRun({ ...STOPPED, background_calls: 'w1' })?.background, undefined);
  });
});
