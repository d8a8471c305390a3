// Unit tests of the pure rules of %%agent cells (src/agentcell/syntax.ts), on Node's own test
// runner: `jlpm test` compiles them with tsc and runs `node --test`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  closingBrace,
  findExpressions,
  firstLine,
  isAgentSource,
  isMagicLine,
  MagicPartKind,
  parseMagicLine,
  resolveFlag,
  splitWords
} from '../src/agentcell/syntax';

/** The parts of `line` as `[kind, text]` pairs. */
function parts(line: string): [MagicPartKind, string][] | null {
  const found = parseMagicLine(line);
  return found && found.map(p => [p.kind, line.slice(p.from, p.to)]);
}

/** The spans of `text` as `[kind, text]` pairs. */
function spans(text: string): [string, string][] {
  return findExpressions(text).map(s => [s.kind, text.slice(s.from, s.to)]);
}

describe('the magic line', () => {
  it('is %%agent as a whole word at the very start', () => {
    for (const line of ['%%agent', '%%agent ', '%%agent\tbot', '%%agent --new']) {
      assert.equal(isMagicLine(line), true, line);
    }
    const others = ['', '%%agents', '%%agent2 x', ' %%agent', '%agent', '# %%agent', '%%AGENT'];
    for (const line of others) {
      assert.equal(isMagicLine(line), false, line);
    }
  });

  it('is the first line of the source, whatever the line break', () => {
    assert.equal(firstLine('%%agent\nbody'), '%%agent');
    assert.equal(firstLine('%%agent --new\r\nbody'), '%%agent --new');
    assert.equal(firstLine('%%agent\rbody'), '%%agent');
    assert.equal(firstLine('one line'), 'one line');
    assert.equal(isAgentSource('%%agent\nSummarise {df}'), true);
    assert.equal(isAgentSource('x = 1\n%%agent'), false);
    assert.equal(isAgentSource(''), false);
  });

  it('is not parsed when it is not a magic line', () => {
    assert.equal(parseMagicLine('print(1)'), null);
  });

  it('names the command, the agent, options and their values', () => {
    assert.deepEqual(parts('%%agent researcher --model gpt-4.1 --max-turns 3 --new'), [
      ['command', '%%agent'],
      ['agent', 'researcher'],
      ['flag', '--model'],
      ['value', 'gpt-4.1'],
      ['flag', '--max-turns'],
      ['value', '3'],
      ['flag', '--new']
    ]);
    assert.deepEqual(parts('%%agent --over tickets --concurrency 8 --backend ray --fresh'), [
      ['command', '%%agent'],
      ['flag', '--over'],
      ['value', 'tickets'],
      ['flag', '--concurrency'],
      ['value', '8'],
      ['flag', '--backend'],
      ['value', 'ray'],
      ['flag', '--fresh']
    ]);
    assert.deepEqual(parts('%%agent --over t --backend ray --keep-warm'), [
      ['command', '%%agent'],
      ['flag', '--over'],
      ['value', 't'],
      ['flag', '--backend'],
      ['value', 'ray'],
      ['flag', '--keep-warm']
    ]);
    assert.deepEqual(parts('%%agent --eval evals/qa.yaml --scorer checks --scorer 2x'), [
      ['command', '%%agent'],
      ['flag', '--eval'],
      ['value', 'evals/qa.yaml'],
      ['flag', '--scorer'],
      ['value', 'checks'],
      ['flag', '--scorer'],
      ['invalid', '2x']
    ]);
    assert.deepEqual(parts('%%agent --concurrency 0 --backend spark'), [
      ['command', '%%agent'],
      ['flag', '--concurrency'],
      ['invalid', '0'],
      ['flag', '--backend'],
      ['invalid', 'spark']
    ]);
    assert.deepEqual(parts('%%agent --replay --replay-tools run --replay-tools all'), [
      ['command', '%%agent'],
      ['flag', '--replay'],
      ['flag', '--replay-tools'],
      ['value', 'run'],
      ['flag', '--replay-tools'],
      ['invalid', 'all']
    ]);
    assert.deepEqual(parts('%%agent --out=answer --approve auto --background'), [
      ['command', '%%agent'],
      ['flag', '--out'],
      ['value', 'answer'],
      ['flag', '--approve'],
      ['value', 'auto'],
      ['flag', '--background']
    ]);
  });

  it('keeps quoted values whole, as shlex does', () => {
    assert.deepEqual(parts('%%agent --model "my model" --new'), [
      ['command', '%%agent'],
      ['flag', '--model'],
      ['value', '"my model"'],
      ['flag', '--new']
    ]);
    assert.deepEqual(
      splitWords(` a 'b c'd "e`).map(w => w.text),
      ['a', 'b cd', 'e']
    );
  });

  it('accepts unambiguous option prefixes, as argparse does', () => {
    assert.equal(resolveFlag('--backg'), '--background');
    assert.equal(resolveFlag('--back'), null); // --background or --backend
    assert.equal(resolveFlag('--ma'), '--max-turns');
    assert.equal(resolveFlag('--replay'), '--replay'); // exact, though --replay-tools starts so
    assert.equal(resolveFlag('--replay-'), '--replay-tools');
    assert.equal(resolveFlag('--m'), null); // --model or --max-turns
    assert.equal(resolveFlag('--'), null);
    assert.deepEqual(parts('%%agent --backg'), [
      ['command', '%%agent'],
      ['flag', '--backg']
    ]);
  });

  it('marks what the kernel would refuse as invalid', () => {
    const cases: [string, string[]][] = [
      ['%%agent --verbose', ['--verbose']],
      ['%%agent --approve maybe', ['maybe']],
      ['%%agent --max-turns 0', ['0']],
      ['%%agent --max-turns two', ['two']],
      ['%%agent --out 1x', ['1x']],
      ['%%agent --model', ['--model']],
      ['%%agent --model --new', ['--model']],
      ['%%agent a b', ['b']],
      ['%%agent my-agent', ['my-agent']],
      ['%%agent --new=yes', ['yes']],
      ['%%agent -m x', ['-m']]
    ];
    for (const [line, invalid] of cases) {
      const found = (parts(line) ?? []).filter(([kind]) => kind === 'invalid');
      assert.deepEqual(
        found.map(([, text]) => text),
        invalid,
        line
      );
    }
  });

  it('takes a negative number as a value, as argparse does', () => {
    assert.deepEqual(parts('%%agent --max-turns -1'), [
      ['command', '%%agent'],
      ['flag', '--max-turns'],
      ['invalid', '-1']
    ]);
  });
});

describe('{expression} spans', () => {
  it('finds expressions, nested braces included', () => {
    assert.deepEqual(spans('Summarise {df.head()} and {d["k"]}.'), [
      ['expression', '{df.head()}'],
      ['expression', '{d["k"]}']
    ]);
    // `{{` is a literal brace even where a dict literal was meant, as in the kernel.
    assert.deepEqual(spans('{{1: {2: 3}}[1]}'), [
      ['expression', '{2: 3}'],
      ['invalid', '}'],
      ['invalid', '}']
    ]);
    assert.deepEqual(spans('{ {1: 2}[1] }'), [['expression', '{ {1: 2}[1] }']]);
  });

  it('reads {{ and }} as literal braces', () => {
    assert.deepEqual(spans('JSON looks like {{"a": 1}}; {x} is {{not}} code'), [
      ['expression', '{x}']
    ]);
  });

  it('lets an expression span lines', () => {
    assert.deepEqual(spans('see {len(\n  rows)} rows'), [['expression', '{len(\n  rows)}']]);
  });

  it('marks empty, unclosed and unmatched braces', () => {
    assert.deepEqual(spans('an empty { } here'), [['invalid', '{ }']]);
    assert.deepEqual(spans('a lone } here, then {x}'), [
      ['invalid', '}'],
      ['expression', '{x}']
    ]);
    // After an unclosed `{` the kernel reads everything as its expression: nothing more.
    assert.deepEqual(spans('{x} then {open and {y}'), [
      ['expression', '{x}'],
      ['invalid', '{']
    ]);
  });

  it('finds the closing brace within a range', () => {
    assert.equal(closingBrace('{a{b}c}', 0), 6);
    assert.equal(closingBrace('{a{b}c}', 2), 4);
    assert.equal(closingBrace('{a{b}c}', 0, 6), -1);
    assert.equal(closingBrace('no brace', 0), -1);
  });
});
