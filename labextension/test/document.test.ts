// Unit tests of the saved run's data (src/transcript/document.ts): made the way the kernel makes
// it (gzip, then base64), decoded with the browser's DecompressionStream (Node has it too).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';

import { decodeRunDocument } from '../src/transcript/document';

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
