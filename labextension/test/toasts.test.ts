// Unit tests of which approval notifications show and go (src/runs/toasts.ts), on Node's own
// test runner.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { planToasts, ToastState } from '../src/runs/toasts';

const state = (fields: Partial<Record<keyof ToastState, unknown>>): ToastState => ({
  waiting: new Set(fields.waiting as string[] | undefined),
  shown: new Set(fields.shown as string[] | undefined),
  seen: new Set(fields.seen as string[] | undefined),
  enabled: fields.enabled !== false
});
const inView = (...requests: string[]) => (request: string) => requests.includes(request);

describe('approval notifications', () => {
  it('notifies of a waiting call whose card is out of sight, once', () => {
    assert.deepEqual(planToasts(state({ waiting: ['r1'] }), inView()), {
      withdraw: [],
      show: ['r1'],
      seen: []
    });
    const plan = planToasts(state({ waiting: ['r1'], shown: ['r1'] }), inView());
    assert.deepEqual(plan, { withdraw: [], show: [], seen: [] });
  });

  it('does not notify of a call whose card is on screen', () => {
    assert.deepEqual(planToasts(state({ waiting: ['r1'] }), inView('r1')).show, []);
  });

  it('withdraws a notification once its card comes into view', () => {
    const plan = planToasts(state({ waiting: ['r1', 'r2'], shown: ['r1', 'r2'] }), inView('r1'));
    assert.deepEqual(plan, { withdraw: ['r1'], show: [], seen: ['r1'] });
  });

  it('does not notify again of a call whose card was seen', () => {
    const plan = planToasts(state({ waiting: ['r1'], seen: ['r1'] }), inView());
    assert.deepEqual(plan.show, []);
  });

  it('withdraws a notification when its call is decided, or notifications are off', () => {
    assert.deepEqual(planToasts(state({ shown: ['r1'] }), inView()).withdraw, ['r1']);
    const off = planToasts(state({ waiting: ['r1', 'r2'], shown: ['r1'], enabled: false }), inView());
    assert.deepEqual(off, { withdraw: ['r1'], show: [], seen: [] });
  });
});
