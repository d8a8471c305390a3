// The run widget's plain JavaScript formatting (src/widget/format.js), as the header shows it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { contextUse, progressOf } from '../src/widget/format.js';

describe("the run header's context item", () => {
  it('says the share of a known window, and warns near it', () => {
    const shown = contextUse({ used: 12_345, window: 128_000 });
    assert.equal(shown.text, 'context 10% of 128k');
    assert.match(shown.title, /12,345 of the model's 128,000-token context window/);
    assert.equal(shown.full, false);
    assert.equal(contextUse({ used: 110_000, window: 128_000 }).full, true);
  });

  it('says the tokens alone when the window is not known', () => {
    assert.equal(contextUse({ used: 900, window: null }).text, 'context 900');
  });

  it('shows nothing before a request, and only numbers from the kernel', () => {
    for (const odd of [undefined, null, {}, { used: 0, window: 10 }, { used: 'x', window: 5 }]) {
      assert.equal(contextUse(odd).text, '', JSON.stringify(odd));
    }
    assert.equal(contextUse({ used: 5, window: '<b>' }).text, 'context 5');
  });
});

describe("a running call's progress", () => {
  it('is a share and a line when the total is known', () => {
    assert.deepEqual(progressOf({ done: 3, total: 10, message: 'parsing' }), {
      share: 0.3,
      text: '3 of 10 · parsing'
    });
  });

  it('is a count with no share when the total is not known, and capped at done', () => {
    assert.deepEqual(progressOf({ done: 7, total: null, message: '' }), { share: null, text: '7' });
    assert.equal(progressOf({ done: 12, total: 10, message: '' })?.share, 1);
  });

  it('is nothing for what is not a count', () => {
    for (const odd of [undefined, {}, { done: -1 }, { done: 'x' }, { done: NaN }]) {
      assert.equal(progressOf(odd), null, JSON.stringify(odd));
    }
    assert.equal(progressOf({ done: 1, total: 2, message: 5 })?.text, '1 of 2');
  });
});
