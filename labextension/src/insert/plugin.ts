/**
 * Feature: code back into the notebook. The run widget puts an "Insert as new cell" button under
 * each code block of a finished answer (when this extension marks the page); its event lands
 * here, and the code becomes a new code cell below the run's cell. Nothing runs.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';

export const INSERT_EVENT = 'jupyter-agents:insert-cell';

export const insertPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agents:insert-cell',
  description: 'Inserts code from an agent run as a new cell below it.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (app: JupyterFrontEnd, notebooks: INotebookTracker): void => {
    document.body.dataset.jupyterAgentsLab = '1';
    document.body.addEventListener(INSERT_EVENT, event => {
      const code = (event as CustomEvent<{ code?: unknown }>).detail?.code;
      const target = event.target;
      if (typeof code !== 'string' || !(target instanceof Node)) {
        return;
      }
      const panel = notebooks.find(p => p.node.contains(target));
      const model = panel?.content.model;
      if (!panel || !model) {
        return;
      }
      const index = panel.content.widgets.findIndex(cell => cell.node.contains(target));
      if (index < 0) {
        return;
      }
      model.sharedModel.insertCell(index + 1, { cell_type: 'code', source: code });
      panel.content.activeCellIndex = index + 1;
      app.shell.activateById(panel.id);
      event.stopPropagation();
    });
  }
};
