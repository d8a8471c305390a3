// Unit tests of the assists' pure rules (src/assist/rules.ts): which outputs are an error, and
// the request and code an assist sends to the kernel.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ASSIST_MODULE, assistCode, assistRequest, hasError, MAX_PROMPT } from '../src/assist/rules';

describe('a cell that can be fixed', () => {
  it('has an error output among its outputs', () => {
    assert.equal(hasError([]), false);
    assert.equal(hasError([{ output_type: 'stream', name: 'stdout', text: 'Error' }]), false);
    assert.equal(hasError([{ output_type: 'stream' }, { output_type: 'error', ename: 'E' }]), true);
    assert.equal(hasError([null, 'error', { output_type: ['error'] }]), false);
  });
});

describe('an assist request', () => {
  it('names the kind and the cell, with the instruction trimmed and capped', () => {
    assert.deepEqual(assistRequest('fix', 'abc-1_2'), { kind: 'fix', cell: 'abc-1_2' });
    assert.deepEqual(assistRequest('generate', 'c', '  add the numbers \n'), {
      kind: 'generate',
      cell: 'c',
      prompt: 'add the numbers'
    });
    const long = assistRequest('generate', 'c', 'x'.repeat(MAX_PROMPT + 10));
    assert.equal(long.prompt?.length, MAX_PROMPT);
  });

  it('refuses a cell id that is not one, and a prompt with nothing to do', () => {
    for (const id of ['', 'a/b', '../x', 'a b', '"x"', 'x'.repeat(65), 'é']) {
      assert.throws(() => assistRequest('fix', id), /not a cell id/);
    }
    assert.throws(() => assistRequest('generate', 'c', '   '), /say what/);
  });

  it('reaches the kernel as one ASCII JSON string literal', () => {
    const hostile = '"""\'); import os #{__import__("os")} \\ \n <script>ü😀';
    const code = assistCode(assistRequest('generate', 'c', hostile));
    assert.match(code, /^[\x20-\x7e]*$/);
    assert.ok(code.startsWith(`await __import__("${ASSIST_MODULE}", fromlist=["_"]).assist("`));
    assert.ok(code.endsWith('")'));
    assert.doesNotMatch(code.slice(code.indexOf('assist("') + 8, -2).replace(/\\\\|\\"/g, ''), /["\\]/);
  });
});
