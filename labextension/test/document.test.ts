// Unit tests of the saved run's data (src/transcript/document.ts): made the way the kernel makes
// it (gzip, then base64), decoded with the browser's DecompressionStream (Node has it too).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';

import {
  decodeRunDocument,
  MAX_DECODED_BYTES,
  RunDocumentTooLarge
} from '../src/transcript/document';

function encode(doc: unknown): unknown {
  const data = gzipSync(Buffer.from(JSON.stringify(doc))).toString('base64');
  return { version: 1, encoding: 'gzip+base64', data };
}

describe('saved run documents', () => {
  it('decode to the header and blocks', async () => {
    const doc = {
      header: { agent: 'a', status: 'done', live: false },
      blocks: [{ id: 'k1', name: 't', output: '<script>x</script> é' }]
    };
    assert.deepEqual(await decodeRunDocument(encode(doc)), doc);
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
    const doc = { header: {}, blocks: [{ id: 'k1', output }] };
    assert.equal((await decodeRunDocument(encode(doc))).blocks[0].output, output);
  });

  it('refuse anything else', async () => {
    for (const bad of [
      null,
      { version: 2, encoding: 'gzip+base64', data: '' },
      { version: 1, encoding: 'plain', data: '{}' },
      encode({ header: {} }),
      encode([1, 2])
    ]) {
      await assert.rejects(decodeRunDocument(bad));
    }
  });
});
