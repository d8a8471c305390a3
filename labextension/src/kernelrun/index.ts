/**
 * Running code of ours in a notebook's kernel and showing what it displays in an `OutputArea`
 * drawn with that notebook's own rendermime (which holds the widget renderer the notebook's
 * widget manager registered), so an agent run's live card renders exactly as in a cell: the
 * same approvals, plan, questions and costs. The chat panel uses it; so can any feature that
 * runs a turn beside the notebook (the Fix and Ctrl+I assists).
 *
 * Modelled on `OutputArea.execute` of `@jupyterlab/outputarea`, with `store_history: false`:
 * the person's `In[n]`, `_` and history stay theirs.
 */
import { ISessionContext } from '@jupyterlab/apputils';
import type { IOutput } from '@jupyterlab/nbformat';
import { OutputArea, OutputAreaModel } from '@jupyterlab/outputarea';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { KernelMessage } from '@jupyterlab/services';
import type { JSONObject } from '@lumino/coreutils';

export { asciiJson, awaitCall, pythonString } from './code';

/**
 * An output area drawn with `rendermime` (a notebook's: `panel.content.rendermime`). `trusted`:
 * outputs that the kernel sends now, for the person (a live run); false for outputs read from a
 * document (which then render as a received notebook's do: sanitised, no widget, no script).
 */
export function outputArea(
  rendermime: IRenderMimeRegistry,
  trusted: boolean,
  outputs: IOutput[] = []
): OutputArea {
  const model = new OutputAreaModel({ trusted, values: outputs });
  const area = new OutputArea({ model, rendermime });
  area.addClass('ja-kernelrun-output');
  return area;
}

/**
 * Execute `code` in the session's kernel (not stored in its history), its outputs going into
 * `area`; resolves with the reply once the kernel is idle again (every output received).
 *
 * @throws when the session has no kernel.
 */
export async function execute(
  code: string,
  area: OutputArea,
  sessionContext: ISessionContext,
  metadata: JSONObject = {}
): Promise<KernelMessage.IExecuteReplyMsg> {
  const kernel = sessionContext.session?.kernel;
  if (!kernel) {
    throw new Error('the notebook has no kernel');
  }
  const content: KernelMessage.IExecuteRequestMsg['content'] = {
    code,
    stop_on_error: true,
    store_history: false
  };
  const future = kernel.requestExecute(content, false, metadata);
  area.future = future;
  return future.done;
}
