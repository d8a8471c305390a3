/**
 * The assists' pure rules: which outputs are an error (a cell that can be fixed), and the code
 * that asks the kernel for an assist (`assist` of jupyter_agents/notebook/assists/run.py), its
 * request carried as an ASCII JSON string literal by `kernelrun`, never spliced into Python.
 */
import { awaitCall } from '../kernelrun/code';
import { AssistKind, AssistRequest } from './contract';

/** The kernel module whose `assist` runs one. */
export const ASSIST_MODULE = 'jupyter_agents.notebook.assists.run';

/** Characters of an instruction (the kernel refuses a longer one). */
export const MAX_PROMPT = 100_000;

/** A cell id the kernel accepts (nbformat 4.5's). */
const CELL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether `outputs` (nbformat output objects, as a cell's output model gives them) hold an error. */
export function hasError(outputs: readonly unknown[]): boolean {
  return outputs.some(
    o => typeof o === 'object' && o !== null && (o as { output_type?: unknown }).output_type === 'error'
  );
}

/**
 * The request of an assist of `kind` on cell `cell` (`prompt`: what the person asked). The
 * mode is left out: the run takes the notebook's.
 *
 * @throws when the cell id is not one the kernel accepts, or a `generate` has no instruction.
 */
export function assistRequest(kind: AssistKind, cell: string, prompt = ''): AssistRequest {
  if (!CELL_ID.test(cell)) {
    throw new Error(`not a cell id: ${JSON.stringify(cell.slice(0, 80))}`);
  }
  const text = prompt.trim().slice(0, MAX_PROMPT);
  if (kind === 'generate' && !text) {
    throw new Error('say what the cell should do');
  }
  const request: AssistRequest = { kind, cell };
  if (text) {
    request.prompt = text;
  }
  return request;
}

/** The code the kernel executes for `request`. */
export function assistCode(request: AssistRequest): string {
  return awaitCall(ASSIST_MODULE, 'assist', request);
}
