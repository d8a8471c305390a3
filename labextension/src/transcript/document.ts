/**
 * The finished run's data in a saved notebook (`jupyter_agents/notebook/saved/run_document.py`):
 * the widget's final header and blocks, gzip-compressed and base64-encoded. Version 2 cards
 * carry typed `parts`; version-1 cards (saved before) are upgraded here, so old notebooks still
 * draw. The values are as untrusted as the notebook: the widget maps the ones that pick CSS
 * classes to known values.
 */
import type { Block, Header, Part } from '../widget/state';

export const MIME_TYPE = 'application/vnd.jupyter-agents.run+json';

/** The document versions this reader draws. */
export const READABLE_VERSIONS = [1, 2];

export interface RunDocument {
  header: Partial<Header>;
  blocks: Block[];
}

/**
 * The most a saved run may inflate to (bytes of JSON), as `MAX_DECODED_BYTES` in
 * `run_document.py`: the kernel writes no larger document, and a crafted one (half a megabyte of
 * gzip can inflate to hundreds) stops here, so the cell shows its HTML transcript instead.
 */
export const MAX_DECODED_BYTES = 8 * 1024 * 1024;

/** A saved run larger than {@link MAX_DECODED_BYTES} once inflated. */
export class RunDocumentTooLarge extends Error {}

/** The header and blocks of a run document (version 1 or 2, its cards in the version-2 shape);
 * throws when it is not one. */
export async function decodeRunDocument(value: unknown): Promise<RunDocument> {
  const v = value as { version?: unknown; encoding?: unknown; data?: unknown } | null;
  const version = v?.version;
  if (
    !v ||
    typeof version !== 'number' ||
    !READABLE_VERSIONS.includes(version) ||
    v.encoding !== 'gzip+base64' ||
    typeof v.data !== 'string'
  ) {
    throw new Error('not a jupyter-agents run document of version 1 or 2');
  }
  const bytes = Uint8Array.from(atob(v.data), c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  const doc = JSON.parse(await inflated(stream)) as unknown;
  const d = doc as { header?: unknown; blocks?: unknown[] } | null;
  if (!d || typeof d !== 'object' || !Array.isArray(d.blocks) || typeof d.header !== 'object') {
    throw new Error('a run document needs a header and blocks');
  }
  const blocks = d.blocks
    .filter(
      (b): b is Record<string, unknown> => typeof b === 'object' && b !== null && !Array.isArray(b)
    )
    .map(b => (version === 1 ? upgradeV1Block(b) : b) as unknown as Block);
  return { header: { ...(d.header as Partial<Header>) }, blocks };
}

/**
 * A version-1 block in the version-2 shape: a tool card's `diff` and `code` become parts that
 * show the call, its `output` (terminal output when the card was a terminal) and `image` parts
 * of the output. Other blocks, and fields it does not know, stay as they are.
 */
export function upgradeV1Block(block: Record<string, unknown>): Record<string, unknown> {
  if ((block.kind ?? 'tool') !== 'tool') {
    return block;
  }
  const { output, output_cut, diff, code, code_language, image, terminal, ...card } = block;
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const parts: Part[] = [];
  if (text(diff)) {
    parts.push({ type: 'diff', text: text(diff), role: 'call' });
  }
  if (text(code)) {
    const language = text(code_language);
    parts.push({ type: 'code', text: text(code), role: 'call', ...(language && { language }) });
  }
  if (text(output)) {
    const cut = typeof output_cut === 'number' ? { cut: output_cut } : {};
    parts.push({ type: terminal === true ? 'terminal' : 'text', text: text(output), ...cut });
  }
  if (text(image)) {
    parts.push({ type: 'image', text: text(image) });
  }
  return { ...card, parts, ...(terminal === true && { live: 'terminal' }) };
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
