// Unit tests of the smallest replacement an agent's edit makes (src/document/diff.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { changedPart } from '../src/document/diff';

/** `before` with the replacement applied. */
const apply = (before: string, [from, to, text]: [number, number, string]): string =>
  before.slice(0, from) + text + before.slice(to);

describe('changedPart', () => {
  it('replaces only what differs', () => {
    assert.deepEqual(changedPart('x = 1\ny = 2', 'x = 1\ny = 3'), [10, 11, '3']);
    assert.deepEqual(changedPart('typed k1.', 'typed k1.\n# agent'), [9, 9, '\n# agent']);
    assert.deepEqual(changedPart('abc', 'abc'), [3, 3, '']);
    assert.deepEqual(changedPart('', 'new'), [0, 0, 'new']);
    assert.deepEqual(changedPart('old', ''), [0, 3, '']);
    assert.deepEqual(changedPart('aaaa', 'aa'), [2, 4, '']); // repeats: one end kept
  });

  it('never splits a character of two code units', () => {
    const [from, to, text] = changedPart('a😀b', 'a😁b');
    assert.deepEqual([from, to, text], [1, 3, '😁']);
  });

  it('always turns before into after', () => {
    const words = ['', 'a', 'ab', 'ba', 'aba', '😀', 'a😀', '😀😁', 'x\ny', 'aaaa'];
    for (const before of words) {
      for (const after of words) {
        const part = changedPart(before, after);
        assert.equal(apply(before, part), after, `${before} -> ${after}`);
        assert.ok(part[0] <= part[1] && part[1] <= before.length);
      }
    }
  });
});
