/**
 * The chat's threads as the notebook saves them (`metadata.jupyter_agents.threads`), and the
 * pure rules around them: reading received metadata as untrusted, the texts a thread sends as
 * history, mentions and slash commands in a message, and a message as a `%%agent` cell.
 *
 * No JupyterLab imports: Node's test runner checks these (labextension/test/chat.test.ts).
 */
import type { HistoryEntry, Mention, Mode, SlashCommand } from './contract';
import { MODES } from './contract';

/** The notebook metadata key (its `threads` field holds the threads). */
export const METADATA_KEY = 'jupyter_agents';

export const THREAD_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_THREADS = 50;
export const MAX_MESSAGES = 500;
export const MAX_TEXT = 100_000;
export const MAX_TITLE = 200;
/** Characters of one run's outputs as JSON: a larger run is saved as a note instead. */
export const MAX_RUN_JSON = 2_000_000;
export const MAX_OUTPUTS = 50;

/** An nbformat output, as JSON (checked by `readOutput`). */
export type Output = { output_type: string; [key: string]: unknown };

export interface UserMessage {
  role: 'user';
  text: string;
  mode?: Mode;
}

export interface RunMessage {
  role: 'run';
  outputs: Output[];
}

export type Message = UserMessage | RunMessage;

export interface Thread {
  id: string;
  title: string;
  messages: Message[];
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** A new thread id (random, valid by `THREAD_ID`). */
export function newThreadId(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return 't' + Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');
}

/** A thread's title: its first message's first line, cut. */
export function titleOf(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return (line.length > 60 ? line.slice(0, 59) + '…' : line) || 'New thread';
}

const textOk = (x: unknown, max = MAX_TEXT): x is string =>
  typeof x === 'string' && x.length <= max;

const isText = (x: unknown): boolean =>
  textOk(x) || (Array.isArray(x) && x.length <= 10_000 && x.every(line => textOk(line)));

/** A mime bundle: each value text, a list of texts, or (for `+json` types) JSON. */
function bundleOk(data: unknown): boolean {
  if (!isObject(data)) {
    return false;
  }
  return Object.entries(data).every(
    ([mime, value]) => mime.length <= 200 && (isText(value) || mime.endsWith('json'))
  );
}

/** One saved output, checked field by field (null: it does not validate). */
export function readOutput(x: unknown): Output | null {
  if (!isObject(x)) {
    return null;
  }
  switch (x.output_type) {
    case 'stream':
      return (x.name === 'stdout' || x.name === 'stderr') && isText(x.text)
        ? { output_type: 'stream', name: x.name, text: x.text }
        : null;
    case 'display_data':
    case 'execute_result': {
      if (!bundleOk(x.data)) {
        return null;
      }
      const out: Output = {
        output_type: x.output_type,
        data: x.data,
        metadata: isObject(x.metadata) ? x.metadata : {}
      };
      if (x.output_type === 'execute_result') {
        out.execution_count = typeof x.execution_count === 'number' ? x.execution_count : null;
      }
      return out;
    }
    case 'error':
      return textOk(x.ename, 1000) &&
        textOk(x.evalue) &&
        Array.isArray(x.traceback) &&
        x.traceback.length <= 1000 &&
        x.traceback.every(line => textOk(line))
        ? { output_type: 'error', ename: x.ename, evalue: x.evalue, traceback: x.traceback }
        : null;
    default:
      return null;
  }
}

function readMessage(x: unknown): Message | null {
  if (!isObject(x)) {
    return null;
  }
  if (x.role === 'user' && textOk(x.text)) {
    const mode = MODES.find(m => m === x.mode);
    return mode ? { role: 'user', text: x.text, mode } : { role: 'user', text: x.text };
  }
  if (x.role === 'run' && Array.isArray(x.outputs) && x.outputs.length <= MAX_OUTPUTS) {
    if (JSON.stringify(x.outputs).length > MAX_RUN_JSON) {
      return null;
    }
    const outputs = x.outputs.map(readOutput).filter((o): o is Output => o !== null);
    return { role: 'run', outputs };
  }
  return null;
}

/**
 * The threads in a notebook's `jupyter_agents` metadata, read as untrusted: anything that does
 * not validate (a thread, a message, an output) is left out; sizes are capped.
 */
export function readThreads(metadata: unknown): Thread[] {
  const threads = isObject(metadata) ? metadata.threads : undefined;
  if (!Array.isArray(threads)) {
    return [];
  }
  const read: Thread[] = [];
  const seen = new Set<string>();
  for (const t of threads.slice(0, MAX_THREADS)) {
    if (!isObject(t) || typeof t.id !== 'string' || !THREAD_ID.test(t.id) || seen.has(t.id)) {
      continue;
    }
    if (!Array.isArray(t.messages)) {
      continue;
    }
    const messages = t.messages
      .slice(0, MAX_MESSAGES)
      .map(readMessage)
      .filter((m): m is Message => m !== null);
    const title = textOk(t.title, MAX_TITLE) ? t.title : titleOf(firstText(messages));
    seen.add(t.id);
    read.push({ id: t.id, title, messages });
  }
  return read;
}

function firstText(messages: Message[]): string {
  const first = messages.find((m): m is UserMessage => m.role === 'user');
  return first?.text ?? '';
}

/** A run's outputs as saved: the whole list, or a note when it is too large to keep. */
export function savedOutputs(outputs: Output[]): Output[] {
  const kept = outputs.slice(0, MAX_OUTPUTS);
  if (JSON.stringify(kept).length <= MAX_RUN_JSON) {
    return kept;
  }
  const note = 'This run was too large to save with the thread.';
  return [{ output_type: 'stream', name: 'stdout', text: note }];
}

/** The threads as the metadata value (beside what else `jupyter_agents` holds). */
export function metadataWith(existing: unknown, threads: Thread[]): Record<string, unknown> {
  const base = isObject(existing) ? { ...existing } : {};
  base.threads = threads.slice(-MAX_THREADS).map(t => ({
    id: t.id,
    title: t.title.slice(0, MAX_TITLE),
    messages: t.messages.slice(-MAX_MESSAGES)
  }));
  return base;
}

/**
 * The texts a thread sends as its history (used by a kernel that does not know the thread):
 * the person's messages, and each run's answer as `answers` finds it. Never a tool call, an
 * approval or a recording.
 */
export async function historyOf(
  thread: Thread,
  answers: (outputs: Output[]) => Promise<string>
): Promise<HistoryEntry[]> {
  const history: HistoryEntry[] = [];
  for (const message of thread.messages) {
    if (message.role === 'user') {
      history.push({ role: 'user', text: message.text.slice(0, MAX_TEXT) });
    } else {
      const text = await answers(message.outputs).catch(() => '');
      if (text.trim()) {
        history.push({ role: 'assistant', text: text.slice(0, MAX_TEXT) });
      }
    }
  }
  return history.slice(-200);
}

const MENTION = /(^|\s)@(cell|var|file):(\S+)/g;

/**
 * The mentions in `text`: `@cell:N` (the Nth cell, 1-based, named by `cellIds`' id), `@var:NAME`,
 * `@file:PATH`. A cell number out of range is left out (the model sees the text as written).
 */
export function mentionsIn(text: string, cellIds: readonly string[]): Mention[] {
  const found: Mention[] = [];
  for (const match of text.matchAll(MENTION)) {
    const [, , kind, raw] = match;
    const name = raw.replace(/[.,;:!?)]+$/, ''); // trailing punctuation is the sentence's
    if (kind === 'cell') {
      const id = cellIds[Number(name) - 1];
      if (/^\d+$/.test(name) && id !== undefined) {
        found.push({ kind: 'cell', name: id });
      }
    } else if (name) {
      found.push({ kind: kind as 'var' | 'file', name });
    }
    if (found.length >= 20) {
      break;
    }
  }
  return found;
}

/** `/name args` at the start of a message (a name of letters, digits, `_`, `.` or `-`). */
export function slashCommand(text: string): SlashCommand | null {
  const match = /^\/([A-Za-z0-9_.-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? { name: match[1], args: (match[2] ?? '').trim() } : null;
}

/**
 * A `%%agent` cell whose prompt is `text` as written: a cell's `{expression}` is evaluated, so
 * braces are doubled, and a first line starting with `%%` would read as the magic line's.
 */
export function agentCellSource(text: string, mode?: Mode): string {
  const body = text.replace(/\{/g, '{{').replace(/\}/g, '}}');
  const magic = mode && mode !== 'agent' ? `%%agent --mode ${mode}` : '%%agent';
  return `${magic}\n${body}`;
}

/** The prompt of a `%%agent` cell (its body), or null for another cell. */
export function agentCellPrompt(source: string): string | null {
  const [first, ...rest] = source.split('\n');
  if (!/^%%agent(\s|$)/.test(first)) {
    return null;
  }
  return rest.join('\n').replace(/\{\{/g, '{').replace(/\}\}/g, '}').trim();
}

/** The current word being completed at `caret`: `@kind:prefix`, `@prefix` or a leading `/`. */
export function completing(
  text: string,
  caret: number
): { kind: 'cell' | 'var' | 'file' | 'mention' | 'prompt'; prefix: string; start: number } | null {
  const before = text.slice(0, caret);
  const slash = /^\/([A-Za-z0-9_.-]*)$/.exec(before);
  if (slash) {
    return { kind: 'prompt', prefix: slash[1], start: 0 };
  }
  const at = /(^|\s)@((cell|var|file):)?(\S*)$/.exec(before);
  if (!at) {
    return null;
  }
  const start = before.length - at[0].length + at[1].length;
  if (at[3]) {
    return { kind: at[3] as 'cell' | 'var' | 'file', prefix: at[4], start };
  }
  return { kind: 'mention', prefix: at[4], start };
}
