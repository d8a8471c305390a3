/**
 * Feature: the Agent chat panel (right sidebar), bound to the active notebook and running on its
 * kernel; commands to open it, start a thread, turn a thread into a %%agent cell and open a
 * %%agent cell's run as a thread. See panel.ts.
 */
import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';

import { decodeRunDocument, MIME_TYPE } from '../transcript/document';
import { ChatComm } from './comm';
import { ChatPanel } from './panel';
import { agentCellPrompt, Output } from './threads';

export const CHAT_COMMANDS = {
  open: 'jupyter-agents:open-chat',
  newThread: 'jupyter-agents:new-chat-thread',
  toCell: 'jupyter-agents:chat-thread-to-cell',
  openAsThread: 'jupyter-agents:open-cell-run-as-thread'
};

/** The text blocks of the finished runs among `outputs` (a thread's history). */
async function answers(outputs: Output[]): Promise<string> {
  const texts: string[] = [];
  for (const output of outputs) {
    const data = output.data as Record<string, unknown> | undefined;
    if (!data || data[MIME_TYPE] === undefined) {
      continue;
    }
    const doc = await decodeRunDocument(data[MIME_TYPE]);
    for (const block of doc.blocks) {
      if (block.kind === 'text' && typeof block.text === 'string') {
        texts.push(block.text);
      }
    }
  }
  return texts.join('\n\n');
}

function insertBelow(panel: NotebookPanel, source: string): void {
  NotebookActions.insertBelow(panel.content);
  const cell = panel.content.activeCell;
  if (cell && cell.model.type === 'code') {
    cell.model.sharedModel.setSource(source);
  }
}

export const chatPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agents:chat',
  description: "A chat with the active notebook's agent, on its kernel.",
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ILabShell, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    notebooks: INotebookTracker,
    labShell: ILabShell | null,
    palette: ICommandPalette | null
  ): void => {
    const panel = new ChatPanel(new ChatComm(), {
      answers,
      insertCell: (nb, source) => {
        app.shell.activateById(nb.id);
        insertBelow(nb, source);
      }
    });
    panel.title.label = 'Chat';
    if (labShell) {
      labShell.add(panel, 'right', { rank: 650 });
    } else {
      app.shell.add(panel, 'right', { rank: 650 });
    }
    panel.setNotebook(notebooks.currentWidget);
    notebooks.currentChanged.connect((_t, nb) => {
      if (nb) {
        panel.setNotebook(nb); // the chat stays with the last notebook while another tab shows
      }
    });
    notebooks.activeCellChanged.connect(() => panel.update());

    const current = () => notebooks.currentWidget;
    const activeAgentCell = () => {
      const cell = current()?.content.activeCell;
      if (!cell || cell.model.type !== 'code') {
        return null;
      }
      const prompt = agentCellPrompt(cell.model.sharedModel.getSource());
      return prompt === null ? null : { cell, prompt };
    };
    app.commands.addCommand(CHAT_COMMANDS.open, {
      label: 'Open Agent Chat',
      caption: "Chat with the active notebook's agent",
      execute: () => {
        app.shell.activateById(panel.id);
        panel.focusInput();
      }
    });
    app.commands.addCommand(CHAT_COMMANDS.newThread, {
      label: 'New Agent Chat Thread',
      isEnabled: () => !!current(),
      execute: () => {
        app.shell.activateById(panel.id);
        panel.newThread();
      }
    });
    app.commands.addCommand(CHAT_COMMANDS.toCell, {
      label: 'Turn the Chat Thread into a %%agent Cell',
      isEnabled: () => !!current(),
      execute: () => panel.turnIntoCell()
    });
    app.commands.addCommand(CHAT_COMMANDS.openAsThread, {
      label: "Open This Cell's Agent Run as a Chat Thread",
      isEnabled: () => activeAgentCell() !== null,
      execute: () => {
        const nb = current();
        const found = activeAgentCell();
        if (!nb || !found) {
          return;
        }
        const outputs = (found.cell.model as unknown as { outputs?: { toJSON(): unknown[] } })
          .outputs;
        panel.openAsThread(nb, found.prompt, (outputs?.toJSON() ?? []) as Output[]);
        app.shell.activateById(panel.id);
      }
    });
    if (palette) {
      for (const command of Object.values(CHAT_COMMANDS)) {
        palette.addItem({ command, category: 'Agents' });
      }
    }
    app.contextMenu.addItem({
      command: CHAT_COMMANDS.openAsThread,
      selector: '.jp-Notebook .jp-CodeCell',
      rank: 21
    });
  }
};
