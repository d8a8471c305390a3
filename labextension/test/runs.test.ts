// Unit tests of the runs protocol and the words shown for runs (src/runs/protocol.ts,
// src/runs/summary.ts), on Node's own test runner.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseMessage, parseRun, RunInfo } from '../src/runs/protocol';
import { countRuns, duration, elapsed, planText, statusText } from '../src/runs/summary';

const RUN = {
  id: 'run-1',
  cell: 'c1',
  agent: 'assistant',
  model: 'gpt-4.1',
  status: 'running',
  started: 1000,
  ended: null,
  tokens: 120,
  cost: '$0.0123',
  tool_calls: 2,
  pending: [{ request: 'r1', call: 'e1', tool: 'send_email', arguments: '{"to": "a"}' }],
  view: null
};

describe('messages from a kernel', () => {
  it('keeps a well-formed run', () => {
    assert.deepEqual(parseMessage({ type: 'run', run: RUN }), { type: 'run', run: RUN });
  });

  it('keeps the question of a waiting question, and only a string', () => {
    const asked = { request: 'r2', call: 'q1', tool: 'ask_user', arguments: '{}', question: 'Which?' };
    assert.deepEqual(parseRun({ ...RUN, pending: [asked] })?.pending, [asked]);
    const odd = parseRun({ ...RUN, pending: [{ ...asked, question: 5 }] })?.pending[0];
    assert.equal(odd?.question, undefined);
  });

  it('keeps the mark of a call approved on its card only, and only true', () => {
    const run = { request: 'r3', call: 'c1', tool: 'run_cells', arguments: '{}', on_card: true };
    assert.deepEqual(parseRun({ ...RUN, pending: [run] })?.pending, [run]);
    const odd = parseRun({ ...RUN, pending: [{ ...run, on_card: 'yes' }] })?.pending[0];
    assert.equal(odd?.on_card, undefined);
  });

  it('approves a plan on its card only, even when the kernel forgot to say so', () => {
    const plan = { request: 'r4', call: 'u1', tool: 'update_plan', arguments: '{}', plan: true };
    const parsed = parseRun({ ...RUN, pending: [plan] })?.pending[0];
    assert.deepEqual(parsed, { ...plan, on_card: true });
    const odd = parseRun({ ...RUN, pending: [{ ...plan, plan: 1 }] })?.pending[0];
    assert.equal(odd?.plan, undefined);
  });

  it('drops a run with a field of the wrong type', () => {
    assert.equal(parseRun({ ...RUN, agent: 5 }), null);
    assert.equal(parseRun({ ...RUN, started: 'yesterday' }), null);
    assert.equal(parseRun({ ...RUN, pending: [{ request: 1 }] }), null);
    assert.equal(parseMessage({ type: 'run', run: null }), null);
  });

  it('drops a whole snapshot when one run is malformed', () => {
    assert.equal(parseMessage({ type: 'snapshot', runs: [RUN, { id: 1 }] }), null);
    assert.deepEqual(parseMessage({ type: 'snapshot', runs: [] }), { type: 'snapshot', runs: [] });
  });

  it('reads decided replies and ignores unknown types', () => {
    assert.deepEqual(parseMessage({ type: 'decided', run: 'run-1', request: 'r1', ok: 1 }), {
      type: 'decided',
      run: 'run-1',
      request: 'r1',
      ok: false
    });
    assert.equal(parseMessage({ type: 'html', html: '<script>' }), null);
    assert.equal(parseMessage('run'), null);
  });

  it('fills optional numbers with defaults', () => {
    const run = parseRun({ ...RUN, tokens: 'many', tool_calls: undefined, ended: 'no' });
    assert.equal(run?.tokens, 0);
    assert.equal(run?.tool_calls, 0);
    assert.equal(run?.ended, null);
  });

  it('keeps a cost only as text', () => {
    assert.equal(parseRun({ ...RUN, cost: 0.5 })?.cost, null);
    assert.equal(parseRun({ ...RUN, cost: undefined })?.cost, null);
    assert.equal(parseRun(RUN)?.cost, '$0.0123');
  });
});

describe('the status bar text', () => {
  const run = (status: string, pending = 0): RunInfo => ({
    ...RUN,
    status,
    pending: RUN.pending.slice(0, pending)
  });

  it('counts running and waiting runs', () => {
    const counts = countRuns([run('running'), run('waiting', 1), run('done', 1), run('failed')]);
    assert.deepEqual(counts, { running: 2, waiting: 1 });
    assert.equal(statusText(counts), '2 running · 1 waiting');
  });

  it('says nothing when nothing runs', () => {
    assert.equal(statusText(countRuns([run('done')])), '');
    assert.equal(statusText({ running: 1, waiting: 0 }), '1 running');
  });
});

describe('the plan of a run', () => {
  const plan = { completed: 3, total: 7, current: 'Fit the model' };

  it('keeps a well-formed plan and shows completed of all steps', () => {
    const run = parseRun({ ...RUN, plan });
    assert.deepEqual(run?.plan, plan);
    assert.equal(planText(run as RunInfo), '3/7');
  });

  it('shows nothing without a plan, for an empty one, or a malformed one', () => {
    assert.equal(planText(parseRun({ ...RUN, plan: null }) as RunInfo), '');
    assert.equal(parseRun({ ...RUN, plan: null })?.plan, undefined);
    assert.equal(planText({ ...RUN, plan: { completed: 0, total: 0, current: null } }), '');
    assert.equal(parseRun({ ...RUN, plan: { completed: '3', total: 7 } })?.plan, undefined);
  });

  it('reads a step in progress only when it is text', () => {
    assert.equal(parseRun({ ...RUN, plan: { ...plan, current: 5 } })?.plan?.current, null);
  });
});

describe('durations', () => {
  it('reads well at every scale', () => {
    assert.equal(duration(0.42), '0.4 s');
    assert.equal(duration(12.7), '12 s');
    assert.equal(duration(184), '3 min 04 s');
    assert.equal(duration(7500), '2 h 05 min');
    assert.equal(duration(-3), '0.0 s');
  });

  it('count to the end of a finished run, or to now', () => {
    assert.equal(elapsed({ ...RUN, ended: 1030 }, 5000), '30 s');
    assert.equal(elapsed({ ...RUN, ended: null }, 1005), '5.0 s');
  });
});
