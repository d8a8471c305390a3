// Unit tests of the saved run's data (src/transcript/document.ts): made the way the kernel makes
// it (gzip, then base64), decoded with the browser's DecompressionStream (Node has it too).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';

import {
  decodeRunDocument,
  MAX_DECODED_BYTES,
  RunDocumentTooLarge,
  upgradeV1Block
} from '../src/transcript/document';

function encode(doc: unknown, version = 2): unknown {
  const data = gzipSync(Buffer.from(JSON.stringify(doc))).toString('base64');
  return { version, encoding: 'gzip+base64', data };
}

describe('saved run documents', () => {
  it('decode to the header and blocks', async () => {
    const doc = {
      header: { agent: 'a', status: 'done', live: false },
      blocks: [{ id: 'k1', name: 't', parts: [{ type: 'text', text: '<script>x</script> é' }] }]
    };
    assert.deepEqual(await decodeRunDocument(encode(doc)), doc);
  });

  it('upgrade the cards of a version-1 document to parts', async () => {
    const doc = {
      header: { agent: 'a', status: 'done', live: false },
      blocks: [
        { id: 'k1', name: 't', output: 'out', output_cut: 9000, image: 'data:image/png;base64,AA==' },
        { id: 'k2', name: 'sh', terminal: true, output: '\u001b[31mred\u001b[0m', status: 'error' },
        { id: 'k3', name: 'p', diff: 'update_file a\n+x', output: 'Done' },
        { id: 'k4', name: 'c', code: 'print(1)', code_language: 'python', terminal: true },
        { id: 't:1', kind: 'text', text: 'hello' }
      ]
    };
    const { blocks } = await decodeRunDocument(encode(doc, 1));
    assert.deepEqual(blocks, [
      {
        id: 'k1',
        name: 't',
        parts: [
          { type: 'text', text: 'out', cut: 9000 },
          { type: 'image', text: 'data:image/png;base64,AA==' }
        ]
      },
      {
        id: 'k2',
        name: 'sh',
        status: 'error',
        parts: [{ type: 'terminal', text: '\u001b[31mred\u001b[0m' }],
        live: 'terminal'
      },
      {
        id: 'k3',
        name: 'p',
        parts: [
          { type: 'diff', text: 'update_file a\n+x', role: 'call' },
          { type: 'text', text: 'Done' }
        ]
      },
      {
        id: 'k4',
        name: 'c',
        parts: [{ type: 'code', text: 'print(1)', role: 'call', language: 'python' }],
        live: 'terminal'
      },
      { id: 't:1', kind: 'text', text: 'hello' }
    ]);
  });

  it('leave a card without version-1 fields as it was, with no parts', () => {
    assert.deepEqual(upgradeV1Block({ id: 'k1', name: 't', status: 'rejected' }), {
      id: 'k1',
      name: 't',
      status: 'rejected',
      parts: []
    });
  });

  it('drop blocks that are not objects', async () => {
    const doc = { header: {}, blocks: [{ id: 'k1' }, 'text', null, [1]] };
    assert.deepEqual((await decodeRunDocument(encode(doc))).blocks, [{ id: 'k1' }]);
  });

  it('stop inflating a document larger than the bound (a gzip bomb)', async () => {
    // Half a megabyte of gzip that inflates to 400 MB: refused after the first 8 MB.
    const zeros = Buffer.alloc(4 * 1024 * 1024, 0x20);
    const chunk = gzipSync(zeros, { level: 9 });
    const parts = [chunk];
    const member = chunk; // concatenated gzip members inflate to their concatenation
    for (let i = 1; i < 100; i++) {
      parts.push(member);
    }
    const data = Buffer.concat(parts).toString('base64');
    assert.ok(data.length < 1024 * 1024, `bomb is ${data.length} bytes of base64`);
    const started = Date.now();
    await assert.rejects(
      decodeRunDocument({ version: 1, encoding: 'gzip+base64', data }),
      RunDocumentTooLarge
    );
    assert.ok(Date.now() - started < 5000, 'refused while inflating, not after');
  });

  it('decode a large document under the bound', async () => {
    const output = 'x'.repeat(MAX_DECODED_BYTES - 1024);
    const doc = { header: {}, blocks: [{ id: 'k1', parts: [{ type: 'text', text: output }] }] };
    const [card] = (await decodeRunDocument(encode(doc))).blocks;
    assert.equal(card.kind === undefined && card.parts?.[0].text, output);
  });

  it('refuse anything else', async () => {
    for (const bad of [
      null,
      { version: 3, encoding: 'gzip+base64', data: '' },
      { version: 1, encoding: 'plain', data: '{}' },
      encode({ header: {} }),
      encode([1, 2])
    ]) {
      await assert.rejects(decodeRunDocument(bad));
    }
  });
});
