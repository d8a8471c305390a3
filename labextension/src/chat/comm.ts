/**
 * The page side of the `jupyter_agents.chat` comm (jupyter_agents/notebook/chat/comm.py): asks a
 * kernel for names (variables, files, MCP prompts). One comm per kernel, opened on first use; a
 * kernel without the target (the extension not loaded yet) closes it, and every answer is then
 * empty until the next try.
 */
import { Kernel } from '@jupyterlab/services';

import { isObject } from '../untrusted';
import { Complete, Completion, CompletionKind, PromptArgument, TARGET } from './contract';

/** How long an answer may take before the list is shown empty. */
export const ANSWER_MS = 4000;

const MAX_ITEMS = 50;

/** One completion item as received, checked (null: malformed). */
export function readCompletion(x: unknown): Completion | null {
  if (!isObject(x) || typeof x.label !== 'string' || typeof x.detail !== 'string') {
    return null;
  }
  const item: Completion = { label: x.label.slice(0, 200), detail: x.detail.slice(0, 200) };
  if (Array.isArray(x.arguments)) {
    item.arguments = x.arguments
      .filter(
        (a): a is PromptArgument =>
          isObject(a) && typeof a.name === 'string' && typeof a.required === 'boolean'
      )
      .slice(0, 20)
      .map(a => ({ name: a.name.slice(0, 100), required: a.required }));
  }
  return item;
}

export class ChatComm {
  private _comm: Kernel.IComm | null = null;
  private _kernel: Kernel.IKernelConnection | null = null;
  private _next = 1;
  private readonly _waiting = new Map<number, (items: Completion[]) => void>();

  /** The names of `kind` starting with `prefix` in `kernel` ([] when it cannot answer). */
  complete(
    kernel: Kernel.IKernelConnection,
    kind: CompletionKind,
    prefix: string
  ): Promise<Completion[]> {
    const comm = this._open(kernel);
    if (!comm) {
      return Promise.resolve([]);
    }
    const id = this._next++;
    const request: Complete = { type: 'complete', id, kind, prefix };
    return new Promise(resolve => {
      const timer = window.setTimeout(() => {
        this._waiting.delete(id);
        resolve([]);
      }, ANSWER_MS);
      this._waiting.set(id, items => {
        window.clearTimeout(timer);
        resolve(items);
      });
      try {
        comm.send(request);
      } catch {
        this._drop();
      }
    });
  }

  private _open(kernel: Kernel.IKernelConnection): Kernel.IComm | null {
    if (this._comm && this._kernel === kernel && !this._comm.isDisposed) {
      return this._comm;
    }
    this._drop();
    try {
      const comm = kernel.createComm(TARGET);
      comm.onMsg = msg => this._onMsg(msg.content.data);
      comm.onClose = () => {
        if (this._comm === comm) {
          this._drop();
        }
      };
      comm.open({});
      this._comm = comm;
      this._kernel = kernel;
      return comm;
    } catch {
      return null;
    }
  }

  private _drop(): void {
    const comm = this._comm;
    this._comm = null;
    this._kernel = null;
    for (const answer of this._waiting.values()) {
      answer([]);
    }
    this._waiting.clear();
    if (comm && !comm.isDisposed) {
      try {
        comm.close();
      } catch {
        // already gone with its kernel
      }
    }
  }

  private _onMsg(data: unknown): void {
    if (!isObject(data) || data.type !== 'completions' || typeof data.id !== 'number') {
      return;
    }
    const answer = this._waiting.get(data.id);
    if (!answer) {
      return;
    }
    this._waiting.delete(data.id);
    const items = Array.isArray(data.items) ? data.items.slice(0, MAX_ITEMS) : [];
    answer(items.map(readCompletion).filter((i): i is Completion => i !== null));
  }

  dispose(): void {
    this._drop();
  }
}
