/**
 * The finished run's data in a saved notebook (`jupyter_agents/notebook/run_document.py`):
 * the widget's final header and blocks, gzip-compressed and base64-encoded.
 */

export const MIME_TYPE = 'application/vnd.jupyter-agents.run+json';

export interface RunDocument {
  header: Record<string, unknown>;
  blocks: Record<string, unknown>[];
}

/**
 * The most a saved run may inflate to (bytes of JSON), as `MAX_DECODED_BYTES` in
 * `run_document.py`: the kernel writes no larger document, and a crafted one (half a megabyte of
 * gzip can inflate to hundreds) stops here, so the cell shows its HTML transcript instead.
 */
export const MAX_DECODED_BYTES = 8 * 1024 * 1024;

/** A saved run larger than {@link MAX_DECODED_BYTES} once inflated. */
export class RunDocumentTooLarge extends Error {}

/** The header and blocks of a version-1 run document; throws when it is not one. */
export async function decodeRunDocument(value: unknown): Promise<RunDocument> {
  const v = value as { version?: unknown; encoding?: unknown; data?: unknown } | null;
  if (!v || v.version !== 1 || v.encoding !== 'gzip+base64' || typeof v.data !== 'string') {
    throw new Error('not a version-1 jupyter-agents run document');
  }
  const bytes = Uint8Array.from(atob(v.data), c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  const doc = JSON.parse(await inflated(stream)) as unknown;
  const d = doc as Partial<RunDocument> | null;
  if (!d || typeof d !== 'object' || !Array.isArray(d.blocks) || typeof d.header !== 'object') {
    throw new Error('a run document needs a header and blocks');
  }
  const blocks = d.blocks.filter(
    (b): b is Record<string, unknown> => typeof b === 'object' && b !== null && !Array.isArray(b)
  );
  return { header: { ...(d.header ?? {}) }, blocks };
}

/** The stream's text, read until {@link MAX_DECODED_BYTES} at most. */
async function inflated(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    size += value.byteLength;
    if (size > MAX_DECODED_BYTES) {
      await reader.cancel();
      throw new RunDocumentTooLarge(
        `the saved run inflates to more than ${MAX_DECODED_BYTES / 1024 / 1024} MB`
      );
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(await new Blob(chunks).arrayBuffer());
}
