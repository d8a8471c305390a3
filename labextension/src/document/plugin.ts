/**
 * The notebook document for the kernel's notebook tools: answers the `jupyter_agents.document`
 * comm from the notebook model this page holds, so the agent reads what the person sees,
 * unsaved typing included, and its approved changes land in the live notebook (every open
 * view sees them) (protocol: jupyter_agents/notebook/workspace/document_comm.py).
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import type { ICodeCellModel } from '@jupyterlab/cells';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Kernel, KernelMessage } from '@jupyterlab/services';

import { applyChange, Reply } from './changes';
import { recordings } from './recordings';
import { Runs } from './runs';

export const TARGET = 'jupyter_agents.document';

/** One cell as the protocol sends it: nbformat's fields, and whether it runs now. */
interface CellData {
  id: string;
  cell_type: string;
  source: string;
  execution_count: number | null;
  outputs: unknown[];
  executing: boolean;
}

/** The cells of `panel`'s notebook as they are now. */
export function cellsOf(panel: NotebookPanel): CellData[] {
  const model = panel.content.model;
  if (!model) {
    return [];
  }
  const cells: CellData[] = [];
  for (let i = 0; i < model.cells.length; i++) {
    const cell = model.cells.get(i);
    const json = cell.toJSON() as Record<string, unknown>;
    const source = Array.isArray(json.source) ? json.source.join('') : String(json.source ?? '');
    const state = (cell as unknown as { executionState?: string }).executionState;
    cells.push({
      id: cell.id,
      cell_type: cell.type,
      source,
      execution_count: typeof json.execution_count === 'number' ? json.execution_count : null,
      outputs: Array.isArray(json.outputs) ? json.outputs : [],
      executing: state === 'running'
    });
  }
  return cells;
}

/** Answers one kernel's document comms from the panel that shows its notebook. */
class Responder {
  private readonly runs = new Runs();

  constructor(
    private readonly kernel: Kernel.IKernelConnection,
    private readonly panels: () => NotebookPanel[]
  ) {
    // The kernel opens a comm when `%load_ext jupyter_agents` runs...
    kernel.registerCommTarget(TARGET, (comm: Kernel.IComm, _msg: KernelMessage.ICommOpenMsg) =>
      this.adopt(comm)
    );
    // ... and a kernel that loaded it before this page connected gets one from here (a kernel
    // without the extension closes it at once).
    try {
      const comm = kernel.createComm(TARGET);
      comm.open({ type: 'open' });
      this.adopt(comm);
    } catch (e) {
      console.debug('jupyter-agents: could not open the document comm', e);
    }
  }

  private panel(): NotebookPanel | undefined {
    return this.panels().find(p => p.sessionContext.session?.kernel === this.kernel);
  }

  /** Restart the kernel once cell `after` (the agent's, running) ends: the person approved
   * it on the card; the run's record is kept in the cell. */
  private restartAfter(panel: NotebookPanel, after: unknown): Reply {
    const cells = panel.content.model?.cells;
    let cell: ICodeCellModel | undefined;
    for (let i = 0; cells && i < cells.length; i++) {
      const candidate = cells.get(i);
      if (candidate.id === after && candidate.type === 'code') {
        cell = candidate as ICodeCellModel;
      }
    }
    if (!cell || cell.executionState !== 'running') {
      return { refused: "the agent's cell is not running here." };
    }
    const running = cell;
    const ended = (_: unknown, change: { name: string; newValue: unknown }) => {
      if (change.name === 'executionState' && change.newValue !== 'running') {
        running.stateChanged.disconnect(ended);
        void this.kernel.restart();
      }
    };
    running.stateChanged.connect(ended);
    return { done: true };
  }

  private adopt(comm: Kernel.IComm): void {
    const panel = this.panel();
    comm.send({ type: 'hello', frontend: 'jupyterlab', notebook: panel?.context.path ?? '' });
    comm.onMsg = msg => {
      const data = msg.content.data as Record<string, unknown> | undefined;
      if (data?.type === 'output') {
        this.runs.output(data.run, data.msg_type, data.content);
        return;
      }
      if (!data || data.type !== 'request' || typeof data.id !== 'number') {
        return;
      }
      let reply: Reply;
      try {
        reply = this.answer(data);
      } catch (e) {
        // Whatever went wrong, the kernel gets an answer (it would wait out its timeout).
        console.error('jupyter-agents: a document request failed', e);
        reply = { error: `the page could not do it: ${String(e).slice(0, 300)}` };
      }
      comm.send({ type: 'reply', id: data.id, ...reply } as never);
    };
  }

  /** The reply to one request from the kernel. */
  private answer(data: Record<string, unknown>): Reply {
    const shown = this.panel();
    const args = typeof data.args === 'object' && data.args !== null ? data.args : undefined;
    const fields = args as Record<string, unknown>;
    if (!shown) {
      return { error: 'the notebook is not open' };
    }
    if (data.op === 'ping') {
      return { done: true };
    }
    if (data.op === 'cells') {
      return { cells: cellsOf(shown) };
    }
    if (!args) {
      return { error: 'unknown request' };
    }
    if (data.op === 'cassette' || data.op === 'set_cassette') {
      return recordings(shown, String(data.op), fields);
    }
    if (data.op === 'restart') {
      return this.restartAfter(shown, fields.after);
    }
    if (data.op === 'run') {
      return this.runs.start(shown, fields);
    }
    if (data.op === 'ran') {
      return this.runs.end(fields);
    }
    return applyChange(shown, String(data.op), fields);
  }
}

export const documentPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agents:document',
  description: "The notebook document for the kernel's notebook tools.",
  autoStart: true,
  requires: [INotebookTracker],
  activate: (_app: JupyterFrontEnd, notebooks: INotebookTracker): void => {
    const seen = new WeakSet<Kernel.IKernelConnection>();
    const panels = () => {
      const all: NotebookPanel[] = [];
      notebooks.forEach(p => all.push(p));
      return all;
    };
    const follow = (panel: NotebookPanel) => {
      const attach = () => {
        const kernel = panel.sessionContext.session?.kernel;
        if (kernel && !seen.has(kernel)) {
          seen.add(kernel);
          new Responder(kernel, panels);
        }
      };
      panel.sessionContext.kernelChanged.connect(attach);
      void panel.sessionContext.ready.then(attach);
      attach();
    };
    notebooks.forEach(follow);
    notebooks.widgetAdded.connect((_t, panel) => follow(panel));
  }
};
