/**
 * Feature: evaluation reports, comparisons and batch progress that survive save and reopen.
 *
 * Their outputs hold the widget's view and a saved form (`saved_forms.py`). JupyterLab's own
 * renderer of a widget view shows "Error displaying widget: model not found" once the kernel
 * that held the model is gone, and never falls back to the output's other formats; this
 * renderer, ranked before it, decides instead:
 *
 * - the output is trusted and names a widget model: the widget view is rendered (by the
 *   notebook's own widget renderer, once the notebook's widget manager has registered it, so
 *   exactly as JupyterLab would) and shown as soon as it draws something; if it says the model
 *   is not found, or draws nothing within {@link LIVE_WAIT_MS}, the saved form shows, and a
 *   view that draws later (the kernel that holds the model was slow to connect) takes over;
 * - otherwise (a notebook someone sent, a frontend without a kernel's widgets) the saved form
 *   shows: the report with the report widget's own code, the batch as its last progress.
 *
 * The node says which it shows: `data-ja-shown` is `live`, `saved` or `pending`.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Message } from '@lumino/messaging';
import { Panel, Widget } from '@lumino/widgets';

// The report widget's own bundle (labextension/src/evalreport, built by esbuild).
import evalReport from '../../../jupyter_agents/notebook/static/eval_report.js';
import { drawBatch } from './batch';
import {
  BATCH_MIME_TYPE,
  decodeSavedForm,
  EVAL_MIME_TYPE,
  WIDGET_VIEW_MIME_TYPE
} from './document';
import { reportState } from './report';

/** How long a widget view may take to draw before the saved form shows instead. */
export const LIVE_WAIT_MS = 1500;

/** Before JupyterLab's widget renderer (rank -10), which it hands trusted outputs to. */
export const RANK = -20;

/** How long to wait for a notebook's widget manager (it registers once the kernel is ready). */
export const WIDGET_MANAGER_WAIT_MS = 60_000;

type Shown = 'pending' | 'live' | 'saved';

const managers = new WeakMap<NotebookPanel, Promise<boolean>>();

/**
 * Whether `panel`'s widget manager has put its renderer of widget views in the notebook's
 * registry (JupyterLab's widgets extension does so once the notebook's kernel is ready; until
 * then the notebook holds the global renderer, which never draws). Waits for it, up to
 * {@link WIDGET_MANAGER_WAIT_MS}; false when it does not come (no kernel, no widgets).
 */
export function widgetManagerReady(
  panel: NotebookPanel,
  global: IRenderMimeRegistry
): Promise<boolean> {
  const registered = (): boolean => {
    const factory = panel.content.rendermime.getFactory(WIDGET_VIEW_MIME_TYPE);
    return factory !== undefined && factory !== global.getFactory(WIDGET_VIEW_MIME_TYPE);
  };
  let wait = managers.get(panel);
  if (!wait) {
    wait = (async () => {
      if (registered()) {
        return true;
      }
      await panel.sessionContext.ready.catch(() => undefined);
      const until = Date.now() + WIDGET_MANAGER_WAIT_MS;
      while (!registered() && Date.now() < until && !panel.isDisposed) {
        await new Promise(resolve => window.setTimeout(resolve, 100));
      }
      const done = registered();
      if (!done) {
        managers.delete(panel); // ask again later (a kernel may be chosen)
      }
      return done;
    })();
    managers.set(panel, wait);
  }
  return wait;
}

/** The widget model a trusted output's view names, or "" (none, or untrusted). */
export function liveModelId(model: IRenderMime.IMimeModel): string {
  if (!model.trusted) {
    return ''; // a view JupyterLab itself would not render for an untrusted output
  }
  const view = model.data[WIDGET_VIEW_MIME_TYPE] as { model_id?: unknown } | undefined;
  return typeof view?.model_id === 'string' ? view.model_id : '';
}

/** Draws one saved form, or hands the output to its widget's view. */
export class SavedFormRenderer extends Panel implements IRenderMime.IRenderer {
  private readonly _saved = new Widget();
  private readonly _liveBox = new Panel();
  private _live: IRenderMime.IRenderer | null = null;
  private _liveId = '';
  private _liveModel: IRenderMime.IMimeModel | null = null;
  private _starting = false;
  private _model: IRenderMime.IMimeModel | null = null;
  private _drawn: IRenderMime.IMimeModel | null = null;
  private _observer: MutationObserver | null = null;
  private _timer: number | undefined;
  private _cleanup: (() => void) | null = null;
  private _html: IRenderMime.IRenderer | null = null;
  private _shown: Shown = 'pending';

  constructor(
    private readonly _mimeType: string,
    private readonly _rendermime: IRenderMimeRegistry,
    private readonly _notebooks: INotebookTracker | null
  ) {
    super();
    this.addClass('ja-saved-form');
    this.node.dataset.mimeType = _mimeType; // as JupyterLab's own renderers mark their output
    this._saved.addClass('ja-saved-form-static');
    this._liveBox.addClass('ja-saved-form-live');
    this.addWidget(this._saved);
    this.addWidget(this._liveBox);
    this._show('pending');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this._model = model;
    const id = liveModelId(model);
    if (!id) {
      this._dropLive();
      await this._showSaved();
      return;
    }
    if (id === this._liveId) {
      // The same widget, its saved form updated: keep its view (the form is drawn if shown).
      if (this._shown === 'saved') {
        await this._showSaved();
      }
      return;
    }
    this._dropLive();
    this._liveId = id;
    this._liveModel = model;
    this._show('pending');
    this._timer = window.setTimeout(() => this._settle(true), LIVE_WAIT_MS);
    if (this.isAttached) {
      void this._startLive();
    }
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    if (this._liveModel && !this._live && !this._starting) {
      void this._startLive();
    }
  }

  /** Render the widget's view with the notebook's widget renderer, hidden until it draws. */
  private async _startLive(): Promise<void> {
    const model = this._liveModel;
    const panel = this._notebooks?.find(p => p.node.contains(this.node));
    this._starting = true;
    const ready = !!panel && (await widgetManagerReady(panel, this._rendermime));
    this._starting = false;
    if (!model || model !== this._liveModel || this.isDisposed) {
      return; // another output came meanwhile
    }
    let live: IRenderMime.IRenderer | undefined;
    try {
      live = ready ? panel?.content.rendermime.createRenderer(WIDGET_VIEW_MIME_TYPE) : undefined;
    } catch {
      live = undefined;
    }
    if (!live) {
      this._settle(true);
      return;
    }
    this._live = live;
    this._liveBox.addWidget(live);
    this._observer = new MutationObserver(() => this._settle(false));
    this._observer.observe(live.node, {
      childList: true,
      attributes: true,
      attributeFilter: ['class']
    });
    live.renderModel(model).then(
      () => this._settle(false),
      () => this._settle(true)
    );
  }

  /** Show the view if it draws; else the saved form, once waiting is over (`final`), the view
   * said it cannot draw, or a view shown before went away (its widget was closed). */
  private _settle(final: boolean): void {
    const live = this._live;
    const drawn =
      !!live && !live.isDisposed && !live.isHidden && live.node.firstElementChild !== null;
    if (drawn) {
      window.clearTimeout(this._timer);
      this._show('live');
      return;
    }
    const failed = !!live && live.hasClass('jupyter-widgets'); // "model not found" and the like
    if (failed) {
      this._observer?.disconnect(); // for good: its manager has no such model
      this._observer = null;
      this._live = null;
      live.dispose();
    }
    if (final || failed || this._shown === 'live') {
      window.clearTimeout(this._timer);
      void this._showSaved();
    }
  }

  /** Show the saved form, drawn once per output model (only when it shows: while the widget's
   * view shows, nothing draws the report a second time). */
  private async _showSaved(): Promise<void> {
    this._show('saved');
    const model = this._model;
    if (model && this._drawn !== model) {
      this._drawn = model;
      await this._drawSaved(model);
    }
  }

  private _show(shown: Shown): void {
    this._shown = shown;
    this.node.dataset.jaShown = shown;
    this._saved.setHidden(shown !== 'saved');
    this._liveBox.setHidden(shown !== 'live');
  }

  private _dropLive(): void {
    window.clearTimeout(this._timer);
    this._observer?.disconnect();
    this._observer = null;
    this._live?.dispose();
    this._live = null;
    this._liveId = '';
    this._liveModel = null;
  }

  private async _drawSaved(model: IRenderMime.IMimeModel): Promise<void> {
    this._cleanup?.();
    this._cleanup = null;
    this._html?.dispose();
    this._html = null;
    const el = this._saved.node;
    try {
      const state = await decodeSavedForm(model.data[this._mimeType]);
      if (model !== this._model) {
        return; // a newer output came while this one was read: it draws itself
      }
      el.replaceChildren();
      if (this._mimeType === EVAL_MIME_TYPE) {
        const report = reportState(state);
        const fake = {
          get: (key: string) => (key === 'report' ? report : undefined),
          on: () => undefined,
          off: () => undefined
        };
        this._cleanup = evalReport.render({ model: fake, el });
      } else {
        drawBatch(state, el);
      }
    } catch (e) {
      await this._showHtml(model, String(e));
    }
  }

  /** The output's HTML form (sanitised unless trusted, as any HTML output), with a note. */
  private async _showHtml(model: IRenderMime.IMimeModel, why: string): Promise<void> {
    const note = document.createElement('div');
    note.className = 'ja-saved-note';
    note.textContent = `This output could not be drawn (${why}); its HTML form follows.`;
    this._saved.node.replaceChildren(note);
    if (model.data['text/html'] === undefined) {
      return;
    }
    this._html = this._rendermime.createRenderer('text/html');
    await this._html.renderModel(model);
    this._saved.node.append(this._html.node);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._dropLive();
    this._cleanup?.();
    this._cleanup = null;
    this._html?.dispose();
    this._html = null;
    super.dispose();
  }
}

export const savedFormsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agents:saved-forms',
  description:
    'Draws saved evaluation reports, comparisons and batch progress when their widgets are gone.',
  autoStart: true,
  requires: [IRenderMimeRegistry],
  optional: [INotebookTracker],
  activate: (
    _app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    notebooks: INotebookTracker | null
  ): void => {
    for (const mimeType of [EVAL_MIME_TYPE, BATCH_MIME_TYPE]) {
      rendermime.addFactory(
        {
          safe: true, // text nodes and known classes only; a widget view only when trusted
          mimeTypes: [mimeType],
          defaultRank: RANK,
          createRenderer: () => new SavedFormRenderer(mimeType, rendermime, notebooks)
        },
        RANK
      );
    }
  }
};
