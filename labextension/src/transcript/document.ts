/**
 * The finished run's data in a saved notebook (`jupyter_agents/notebook/run_document.py`):
 * the widget's final header and blocks, gzip-compressed and base64-encoded.
 */

export const MIME_TYPE = 'application/vnd.jupyter-agents.run+json';

export interface RunDocument {
  header: Record<string, unknown>;
  blocks: Record<string, unknown>[];
}

/** The header and blocks of a version-1 run document; throws when it is not one. */
export async function decodeRunDocument(value: unknown): Promise<RunDocument> {
  const v = value as { version?: unknown; encoding?: unknown; data?: unknown } | null;
  if (!v || v.version !== 1 || v.encoding !== 'gzip+base64' || typeof v.data !== 'string') {
    throw new Error('not a version-1 jupyter-agents run document');
  }
  const bytes = Uint8Array.from(atob(v.data), c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  const doc = JSON.parse(await new Response(stream).text()) as unknown;
  const d = doc as Partial<RunDocument> | null;
  if (!d || typeof d !== 'object' || !Array.isArray(d.blocks) || typeof d.header !== 'object') {
    throw new Error('a run document needs a header and blocks');
  }
  const blocks = d.blocks.filter(
    (b): b is Record<string, unknown> => typeof b === 'object' && b !== null && !Array.isArray(b)
  );
  return { header: { ...(d.header ?? {}) }, blocks };
}
