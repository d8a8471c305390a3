// Unit tests of the saved forms of evaluation reports and batches (src/savedforms/): documents
// made the way the kernel makes them (gzip, then base64), and the defensive reading of what
// they hold (a crafted file's fields of the wrong type, classes it would choose).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';

import { batchState, known, OUTCOMES, STATUSES } from '../src/savedforms/batch';
import {
  decodeSavedForm,
  MAX_DECODED_BYTES,
  SavedFormTooLarge
} from '../src/savedforms/document';
import { reportState } from '../src/savedforms/report';

function encode(state: unknown, version = 1): unknown {
  const data = gzipSync(Buffer.from(JSON.stringify(state))).toString('base64');
  return { version, encoding: 'gzip+base64', data };
}

describe('saved forms', () => {
  it('decode to the state they hold', async () => {
    const state = { line: '<script>x</script> é', finished: 1, total: 2 };
    assert.deepEqual(await decodeSavedForm(encode(state)), state);
  });

  it('refuse anything else', async () => {
    for (const bad of [
      null,
      { version: 2, encoding: 'gzip+base64', data: '' },
      { version: 1, encoding: 'plain', data: '{}' },
      encode([1, 2]),
      encode('text')
    ]) {
      await assert.rejects(decodeSavedForm(bad));
    }
  });

  it('stop inflating a document larger than the bound (a gzip bomb)', async () => {
    const chunk = gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20), { level: 9 });
    const data = Buffer.concat(Array(40).fill(chunk)).toString('base64');
    assert.ok(data.length < 1024 * 1024, `bomb is ${data.length} bytes of base64`);
    await assert.rejects(
      decodeSavedForm({ version: 1, encoding: 'gzip+base64', data }),
      SavedFormTooLarge
    );
    assert.equal(MAX_DECODED_BYTES, 8 * 1024 * 1024);
  });

  it('read a crafted batch as text and known values', () => {
    const state = batchState({
      line: ['not', 'text'],
      finished: 'many',
      total: -3,
      outcome: 'done jp-mod-hidden',
      latest: [{ label: 7, status: 'ok lm-mod-hidden', text: { x: 1 } }, 'row', null],
      errors: 'none'
    });
    assert.deepEqual(state, {
      line: '',
      finished: 0,
      total: 0,
      outcome: 'done jp-mod-hidden',
      latest: [{ label: '7', status: 'ok lm-mod-hidden', text: '' }],
      errors: []
    });
    assert.equal(known(OUTCOMES, state.outcome), 'unknown');
    assert.equal(known(STATUSES, state.latest[0].status), 'unknown');
    assert.equal(known(STATUSES, 'failed'), 'failed');
  });

  it('read a crafted report with every field of the type the widget reads', () => {
    const state = reportState({
      mode: 'compare jp-mod-hidden',
      title: 5,
      scorers: [{ name: 'S', kind: 'assertion', a: '0.5', b: 0.25, delta: null }, 'x'],
      cases: [
        {
          name: 'c',
          status: 'fail',
          scores: { S: { shown: '✗', ok: 'no', reason: ['r'] }, T: 'x' },
          seconds: '3',
          cost: 0.01,
          tools: [{ name: 't', arguments: { a: 1 } }]
        }
      ],
      total: 'all'
    });
    assert.equal(state.mode, 'report');
    assert.equal(state.title, '5');
    assert.deepEqual(state.scorers, [{ name: 'S', kind: 'assertion', a: null, b: 0.25, delta: null }]);
    const [c] = state.cases;
    assert.deepEqual(c.scores, { S: { shown: '✗', ok: null, reason: '' } });
    assert.deepEqual(c.tools, [{ name: 't', arguments: '', status: '' }]);
    assert.equal(c.seconds, 0);
    assert.equal(c.cost, 0.01);
    assert.equal(c.key, 'case-0');
    assert.equal(state.total, 1);
  });
});
