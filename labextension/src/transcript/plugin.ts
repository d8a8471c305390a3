/**
 * Feature: rich saved transcripts. A finished run's output carries its final widget state
 * (`application/vnd.jupyter-agents.run+json`); this renders it with the live widget's own code,
 * so a notebook reopened without a kernel shows the same cards (arguments, outputs, errors,
 * decisions) as the live view. The HTML and Markdown transcripts stay for other frontends.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

// The widget's own bundle (labextension/src/widget, built by esbuild): the very code of the live view.
import runWidget from '../../../jupyter_agents/notebook/static/run_view.js';
import { decodeRunDocument, MIME_TYPE } from './document';

/** Draws one saved run. */
export class RunRenderer extends Widget implements IRenderMime.IRenderer {
  private _cleanup: (() => void) | null = null;

  constructor() {
    super();
    this.addClass('ja-saved-run');
    this.node.dataset.mimeType = MIME_TYPE; // as JupyterLab's own renderers mark their output
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this._cleanup?.();
    this._cleanup = null;
    try {
      const doc = await decodeRunDocument(model.data[MIME_TYPE]);
      const header = { ...doc.header, live: false };
      const state: Record<string, unknown> = { header, blocks: doc.blocks };
      const fake = {
        get: (key: string) => state[key],
        on: () => undefined,
        off: () => undefined,
        send: () => undefined
      };
      this.node.replaceChildren();
      this._cleanup = runWidget.render({ model: fake, el: this.node });
    } catch (e) {
      this.node.textContent =
        `This agent run could not be drawn (${String(e)}); ` +
        'the notebook file still holds its HTML transcript.';
    }
  }

  dispose(): void {
    this._cleanup?.();
    this._cleanup = null;
    super.dispose();
  }
}

export const transcriptPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agents:saved-runs',
  description: 'Draws saved agent runs with the live widget\'s cards.',
  autoStart: true,
  requires: [IRenderMimeRegistry],
  activate: (_app: JupyterFrontEnd, rendermime: IRenderMimeRegistry): void => {
    rendermime.addFactory(
      {
        safe: true, // it sanitises like the live widget: markdown-it, then DOMPurify
        mimeTypes: [MIME_TYPE],
        defaultRank: 10,
        createRenderer: () => new RunRenderer()
      },
      10
    );
  }
};
