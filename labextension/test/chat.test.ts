// Unit tests of the chat's pure rules (src/chat/threads.ts) and of the code that carries a
// turn's request into the kernel (src/kernelrun/code.ts), on Node's own test runner.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';

import {
  agentCellPrompt,
  agentCellSource,
  completing,
  mentionsIn,
  metadataWith,
  readThreads,
  slashCommand,
  MAX_RUN_JSON
} from '../src/chat/threads';
import { asciiJson, awaitCall, pythonString } from '../src/kernelrun/code';

const HOSTILE = [
  'He said "hi" and \'bye\'',
  'line one\nline two\r\n\ttab',
  '"""triple""" and \'\'\'triple\'\'\'',
  '{__import__("os").system("id")} {{x}} %time !ls',
  'back\\slash \\n \\x00 \\u0041',
  'emoji 😀 and ünïcødé, lone \ud800 surrogate, \u2028 separator, \u0000 nul, \u007f del',
  '<script>alert(1)</script><img src=x onerror=alert(2)>'
];

describe('a request carried into Python', () => {
  it('is printable ASCII with no way out of its string literal', () => {
    for (const text of HOSTILE) {
      const code = awaitCall('jupyter_agents.notebook.chat.turn', 'chat_turn', { message: text });
      assert.match(code, /^[\x20-\x7e]*$/);
      const literal = pythonString(asciiJson({ message: text }));
      // inside the quotes: no unescaped quote, every backslash escaped
      assert.doesNotMatch(literal.slice(1, -1).replace(/\\\\|\\"/g, ''), /["\\]/);
    }
  });

  it('arrives in Python exactly as written', { skip: !python() }, () => {
    for (const text of HOSTILE.filter(t => !/[\ud800-\udfff]/.test(t.replace(/😀/g, '')))) {
      const literal = pythonString(asciiJson({ message: text }));
      const script = `import json,sys; sys.stdout.write(json.dumps(json.loads(${literal})["message"]))`;
      const out = execFileSync(python()!, ['-c', script], { encoding: 'utf8' });
      assert.equal(JSON.parse(out), text);
    }
  });

  it('refuses a module or function name that is not a Python name', () => {
    assert.throws(() => awaitCall('os; import x', 'f', {}));
    assert.throws(() => awaitCall('a.b', 'f()', {}));
  });
});

function python(): string | null {
  for (const candidate of [process.env.PYTHON, 'python3', 'python']) {
    try {
      if (candidate) {
        execFileSync(candidate, ['-c', 'pass']);
        return candidate;
      }
    } catch {
      // try the next
    }
  }
  return null;
}

describe('threads read from a notebook', () => {
  it('keeps what validates and drops the rest', () => {
    const threads = readThreads({
      threads: [
        {
          id: 'good',
          title: 'Hello',
          messages: [
            { role: 'user', text: '<b>bold</b>', mode: 'ask' },
            { role: 'user', text: 'x', mode: 'rm -rf' },
            { role: 'tool', text: 'not a role' },
            { role: 'user', text: 42 },
            {
              role: 'run',
              outputs: [
                { output_type: 'stream', name: 'stdout', text: 'hi' },
                { output_type: 'stream', name: 'evil', text: 'x' },
                { output_type: 'display_data', data: { 'text/html': '<script>x</script>' } },
                { output_type: 'display_data', data: { 'text/html': { not: 'text' } } },
                { output_type: 'error', ename: 'E', evalue: 'v', traceback: [1] },
                { output_type: 'javascript', code: 'alert(1)' }
              ]
            }
          ]
        },
        { id: '../etc/passwd', messages: [] },
        { id: 'good', messages: [] },
        { id: 'no-messages' },
        'not an object'
      ]
    });
    assert.equal(threads.length, 1);
    const [thread] = threads;
    assert.deepEqual(thread.messages.slice(0, 2), [
      { role: 'user', text: '<b>bold</b>', mode: 'ask' },
      { role: 'user', text: 'x' }
    ]);
    const run = thread.messages[2];
    assert.equal(run.role, 'run');
    assert.deepEqual(
      run.role === 'run' ? run.outputs.map(o => o.output_type) : [],
      ['stream', 'display_data']
    );
  });

  it('ignores a run too large to keep and anything not a list of threads', () => {
    const big = { output_type: 'stream', name: 'stdout', text: 'x'.repeat(MAX_RUN_JSON) };
    const threads = readThreads({ threads: [{ id: 't', messages: [{ role: 'run', outputs: [big] }] }] });
    assert.deepEqual(threads[0].messages, []);
    assert.deepEqual(readThreads({ threads: 'x' }), []);
    assert.deepEqual(readThreads(null), []);
  });

  it('writes threads beside the other keys of the metadata', () => {
    const written = metadataWith({ other: 1 }, [{ id: 't', title: 'T', messages: [] }]);
    assert.deepEqual(written, { other: 1, threads: [{ id: 't', title: 'T', messages: [] }] });
  });
});

describe('a message', () => {
  it('names its mentions', () => {
    const ids = ['id-a', 'id-b'];
    assert.deepEqual(mentionsIn('see @cell:2, @var:df and @file:data/x.csv.', ids), [
      { kind: 'cell', name: 'id-b' },
      { kind: 'var', name: 'df' },
      { kind: 'file', name: 'data/x.csv' }
    ]);
    assert.deepEqual(mentionsIn('@cell:9 mail@var:x', ids), []);
  });

  it('is a slash command only at its start', () => {
    assert.deepEqual(slashCommand('/greet Ada Lovelace'), { name: 'greet', args: 'Ada Lovelace' });
    assert.deepEqual(slashCommand('/summarize'), { name: 'summarize', args: '' });
    assert.equal(slashCommand('/path/to/file is odd'), null);
    assert.equal(slashCommand('not /greet'), null);
  });

  it('becomes a %%agent cell that reads back as the same prompt', () => {
    const text = 'Sum {x} and {{y}}\n%%agent is not a magic here';
    const source = agentCellSource(text);
    assert.equal(source, '%%agent\nSum {{x}} and {{{{y}}}}\n%%agent is not a magic here');
    assert.equal(agentCellPrompt(source), text);
    assert.equal(agentCellSource('hi', 'plan'), '%%agent --mode plan\nhi');
    assert.equal(agentCellPrompt('print(1)'), null);
  });

  it('completes the word at the caret', () => {
    assert.deepEqual(completing('look at @va', 11), { kind: 'mention', prefix: 'va', start: 8 });
    assert.deepEqual(completing('look at @var:pr', 15), { kind: 'var', prefix: 'pr', start: 8 });
    assert.deepEqual(completing('/gre', 4), { kind: 'prompt', prefix: 'gre', start: 0 });
    assert.equal(completing('mail@x', 6), null);
    assert.equal(completing('a /gre', 6), null);
  });
});
