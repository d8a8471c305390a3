/**
 * Feature: "Run live" on a replayed agent run. A cell that replayed its recording shows the
 * button (labextension/src/widget); its event lands here: the cell's next run is marked live
 * (the kernel reads that with the cell's recordings) and the cell runs again, asking the model.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
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
      liveNext.add(cell.model.id);
      notebook.deselectAll();
      notebook.activeCellIndex = index;
      app.shell.activateById(panel.id);
      void NotebookActions.run(notebook, panel.sessionContext);
    });
  }
};
