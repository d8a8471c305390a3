/**
 * The saved forms of an evaluation report (or comparison) and of a batch's progress
 * (`jupyter_agents/notebook/saved/saved_forms.py`): the widget's state, gzip-compressed and
 * base64-encoded, bounded like a saved run. The values are as untrusted as the notebook: the
 * views put text in text nodes and map the values that pick CSS classes to known ones.
 */

export const EVAL_MIME_TYPE = 'application/vnd.jupyter-agents.eval+json';
export const BATCH_MIME_TYPE = 'application/vnd.jupyter-agents.batch+json';
export const WIDGET_VIEW_MIME_TYPE = 'application/vnd.jupyter.widget-view+json';

/** The document versions this reader draws. */
export const READABLE_VERSIONS = [1];

/**
 * The most a saved form may inflate to (bytes of JSON), as `MAX_DECODED_BYTES` in
 * `saved_forms.py`: the kernel writes no larger document, and a crafted one stops here.
 */
export const MAX_DECODED_BYTES = 8 * 1024 * 1024;

/** A saved form larger than {@link MAX_DECODED_BYTES} once inflated. */
export class SavedFormTooLarge extends Error {}

/** The state a saved form holds (a JSON object); throws when it is not one. */
export async function decodeSavedForm(value: unknown): Promise<Record<string, unknown>> {
  const v = value as { version?: unknown; encoding?: unknown; data?: unknown } | null;
  if (
    !v ||
    typeof v.version !== 'number' ||
    !READABLE_VERSIONS.includes(v.version) ||
    v.encoding !== 'gzip+base64' ||
    typeof v.data !== 'string'
  ) {
    throw new Error('not a jupyter-agents saved form of version 1');
  }
  const bytes = Uint8Array.from(atob(v.data), c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  const state = JSON.parse(await inflated(stream)) as unknown;
  if (!state || typeof state !== 'object' || Array.isArray(state)) {
    throw new Error('a saved form holds a JSON object');
  }
  return state as Record<string, unknown>;
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
      throw new SavedFormTooLarge(
        `the saved form inflates to more than ${MAX_DECODED_BYTES / 1024 / 1024} MB`
      );
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(await new Blob(chunks).arrayBuffer());
}
