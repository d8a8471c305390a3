/**
 * Feature: "Run live" on a replayed agent run. A cell that replayed its recording shows the
 * button (labextension/src/widget); its event lands here: the cell's next run is marked live
 * (the kernel reads that with the cell's recordings) and the cell runs again, asking the model.
 * In a kernel that has not loaded the extension yet (a saved notebook just opened, a restarted
 * kernel), the cells above run first, as Run All Above would: they load it and define the
 * cell's tools, so the live run is the cell's own and not "%%agent not found".
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ISessionContext } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookActions } from '@jupyterlab/notebook';

import { liveNext } from '../document/recordings';

export const RUN_LIVE_EVENT = 'jupyter-agents:run-live';

export const runLivePlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agents:run-live',
  description: 'Runs a replayed agent cell again, asking the model.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (app: JupyterFrontEnd, notebooks: INotebookTracker): void => {
    document.body.dataset.jupyterAgentsLab = '1';
    document.body.addEventListener(RUN_LIVE_EVENT, event => {
      const target = event.target;
      if (!(target instanceof Node)) {
        return;
      }
      const panel = notebooks.find(p => p.node.contains(target));
      if (!panel) {
        return;
      }
      const notebook = panel.content;
      const index = notebook.widgets.findIndex(cell => cell.node.contains(target));
      const cell = index < 0 ? undefined : notebook.widgets[index];
      if (!cell || cell.model.type !== 'code') {
        return;
      }
      event.preventDefault(); // taken: the button says so
      event.stopPropagation();
      const id = cell.model.id;
      app.shell.activateById(panel.id);
      void (async () => {
        notebook.deselectAll();
        notebook.activeCellIndex = index;
        if (!(await extensionLoaded(panel.sessionContext))) {
          if (!(await NotebookActions.runAllAbove(notebook, panel.sessionContext))) {
            return; // a cell above failed: it shows why, and the agent cell would too
          }
          const now = notebook.widgets.findIndex(c => c.model.id === id);
          if (now < 0) {
            return;
          }
          notebook.deselectAll();
          notebook.activeCellIndex = now;
        }
        liveNext.add(id);
        await NotebookActions.run(notebook, panel.sessionContext);
      })();
    });
  }
};

/** Whether the session's kernel has loaded jupyter_agents (asked silently; unknown: no). */
export async function extensionLoaded(session: ISessionContext): Promise<boolean> {
  const kernel = session.session?.kernel;
  if (!kernel) {
    return false;
  }
  const expression = "'jupyter_agents' in get_ipython().extension_manager.loaded";
  try {
    const reply = await kernel.requestExecute({
      code: '',
      silent: true,
      store_history: false,
      user_expressions: { loaded: expression }
    }).done;
    const content = reply.content as {
      status: string;
      user_expressions?: Record<string, { status?: string; data?: Record<string, unknown> }>;
    };
    const loaded = content.user_expressions?.loaded;
    return loaded?.status === 'ok' && loaded.data?.['text/plain'] === 'True';
  } catch {
    return false;
  }
}
