/**
 * The notebook document for the kernel's notebook tools: answers the `jupyter_agents.document`
 * comm from the notebook model this page holds, so the agent reads what the person sees,
 * unsaved typing included, and its approved changes land in the live notebook (every open
 * view sees them) (protocol: jupyter_agents/notebook/workspace/document_comm.py; its messages are typed in
 * ./contract, the requests answered in ./requests).
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import type { ICodeCellModel } from '@jupyterlab/cells';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Kernel, KernelMessage } from '@jupyterlab/services';

import { isObject, Untrusted } from '../untrusted';
import {
  Answer,
  Done,
  Hello,
  Open,
  Output,
  Refused,
  ReplyHead,
  RequestHead,
  RestartArgs,
  TARGET
} from './contract';
import { answer, Page } from './requests';
import { Runs } from './runs';

/** Answers one kernel's document comms from the panel that shows its notebook. */
class Responder implements Page {
  readonly runs = new Runs();

  constructor(
    private readonly kernel: Kernel.IKernelConnection,
    private readonly panels: () => NotebookPanel[],
    private readonly app: JupyterFrontEnd
  ) {
    // The kernel opens a comm when `%load_ext jupyter_agents` runs...
    kernel.registerCommTarget(TARGET, (comm: Kernel.IComm, _msg: KernelMessage.ICommOpenMsg) =>
      this.adopt(comm)
    );
    // ... and a kernel that loaded it before this page connected gets one from here (a kernel
    // without the extension closes it at once).
    try {
      const comm = kernel.createComm(TARGET);
      const opening: Open = { type: 'open' };
      comm.open(opening);
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
  restartAfter(panel: NotebookPanel, args: Untrusted<RestartArgs>): Done | Refused {
    const after = args.after;
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

  openNotebook(path: string): Done | Refused {
    void this.app.commands.execute('docmanager:open', { path, factory: 'Notebook' });
    return { done: true };
  }

  private adopt(comm: Kernel.IComm): void {
    const panel = this.panel();
    const notebook = panel?.context.path ?? '';
    const hello: Hello = { type: 'hello', frontend: 'jupyterlab', notebook };
    comm.send(hello);
    comm.onMsg = msg => {
      const data: unknown = msg.content.data;
      if (!isObject(data)) {
        return;
      }
      if (data.type === 'output') {
        const output: Untrusted<Output> = data;
        this.runs.output(output.run, output.msg_type, output.content);
        return;
      }
      const request: Untrusted<RequestHead & { op: unknown; args: unknown }> = data;
      if (request.type !== 'request' || typeof request.id !== 'number') {
        return;
      }
      let reply: Answer;
      try {
        reply = answer(this, this.panel(), request.op, request.args);
      } catch (e) {
        // Whatever went wrong, the kernel gets an answer (it would wait out its timeout).
        console.error('jupyter-agents: a document request failed', e);
        reply = { error: `the page could not do it: ${String(e).slice(0, 300)}` };
      }
      const head: ReplyHead = { type: 'reply', id: request.id };
      comm.send({ ...head, ...reply });
    };
  }
}

export const documentPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agents:document',
  description: "The notebook document for the kernel's notebook tools.",
  autoStart: true,
  requires: [INotebookTracker],
  activate: (app: JupyterFrontEnd, notebooks: INotebookTracker): void => {
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
          new Responder(kernel, panels, app);
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
