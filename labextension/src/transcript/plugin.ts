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
  private _html: IRenderMime.IRenderer | null = null;

  /** @param rendermime draws the HTML transcript when the saved run cannot be drawn. */
  constructor(private readonly _rendermime?: IRenderMimeRegistry) {
    super();
    this.addClass('ja-saved-run');
    this.node.dataset.mimeType = MIME_TYPE; // as JupyterLab's own renderers mark their output
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this._cleanup?.();
    this._cleanup = null;
    this._html?.dispose();
    this._html = null;
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
      await this._showTranscript(model, String(e));
    }
  }

  /** The run's HTML transcript (drawn, and sanitised unless trusted, as any HTML output). */
  private async _showTranscript(model: IRenderMime.IMimeModel, why: string): Promise<void> {
    const note = document.createElement('div');
    note.className = 'ja-saved-note';
    const html = this._rendermime && model.data['text/html'] !== undefined;
    note.textContent = html
      ? `The cards of this agent run could not be drawn (${why}); its transcript follows.`
      : `This agent run could not be drawn (${why}); the notebook file still holds its ` +
        'HTML transcript.';
    this.node.replaceChildren(note);
    if (!html) {
      return;
    }
    this._html = this._rendermime!.createRenderer('text/html');
    await this._html.renderModel(model);
    this.node.append(this._html.node);
  }

  dispose(): void {
    this._cleanup?.();
    this._cleanup = null;
    this._html?.dispose();
    this._html = null;
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
        createRenderer: () => new RunRenderer(rendermime)
      },
      10
    );
  }
};
