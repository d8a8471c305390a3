/**
 * Features: the Agent runs panel, the status bar items (what runs; the notebook's mode),
 * approval notifications, and the commands (insert a %%agent cell, stop this notebook's runs,
 * approve or reject the call waiting in the active cell, switch the notebook's mode). Settings:
 * notifications on or off, and the default approval mode and headless grace period the kernels
 * get. The site's locks (locks.ts) bound the default approval mode in the Settings editor and
 * disable the modes looser than a locked one.
 */
import {
  ILabShell,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';

import { isOneOf } from '../untrusted';
import { APPROVE_MODES, Mode, MODES } from './contract';
import { allows, fetchLocks, lockedPlugin, lockNote, NO_LOCKS, SiteLocks } from './locks';
import { Run, RunsModel } from './model';
import { ModeStatus } from './modestatus';
import { ApprovalNotifier } from './notifications';
import { RunsPanel } from './panel';
import { CardReattacher } from './reattach';
import { RunsStatus } from './statusbar';
import { MODE_CAPTIONS } from './summary';

const PLUGIN_ID = 'jupyter-agents:runs';

export const COMMANDS = {
  insert: 'jupyter-agents:insert-agent-cell',
  stopAll: 'jupyter-agents:stop-notebook-runs',
  approve: 'jupyter-agents:approve-pending',
  reject: 'jupyter-agents:reject-pending',
  panel: 'jupyter-agents:show-runs',
  modeAsk: 'jupyter-agents:mode-ask',
  modePlan: 'jupyter-agents:mode-plan',
  modeAgent: 'jupyter-agents:mode-agent'
};

/** The command that switches the current notebook to each mode. */
export const MODE_COMMANDS: Record<Mode, string> = {
  ask: COMMANDS.modeAsk,
  plan: COMMANDS.modePlan,
  agent: COMMANDS.modeAgent
};

/** The cell of `run` in `panel`, with its index. */
function findCell(panel: NotebookPanel, run: Run) {
  const widgets = panel.content.widgets;
  const index = widgets.findIndex(cell => cell.model.id === run.cell);
  return index < 0 ? null : { index, cell: widgets[index] };
}

export const runsPlugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'Agent runs panel, status bar item, approval notifications and commands.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ILabShell, IStatusBar, ICommandPalette, ISettingRegistry],
  activate: (
    app: JupyterFrontEnd,
    notebooks: INotebookTracker,
    labShell: ILabShell | null,
    statusBar: IStatusBar | null,
    palette: ICommandPalette | null,
    settings: ISettingRegistry | null
  ): void => {
    const model = new RunsModel();
    notebooks.forEach(panel => model.track(panel));
    notebooks.widgetAdded.connect((_t, panel) => model.track(panel));
    document.body.dataset.jupyterAgentsLab = '1'; // the run widget offers "Insert as new cell"

    const panelOf = (run: Run) =>
      model.panelsOf(run).find(p => findCell(p, run)) ?? model.panelsOf(run)[0];

    const show = (run: Run) => {
      const panel = panelOf(run);
      if (!panel) {
        return;
      }
      app.shell.activateById(panel.id);
      const found = findCell(panel, run);
      if (found) {
        panel.content.activeCellIndex = found.index;
        void panel.content.scrollToCell(found.cell, 'center');
      }
    };

    const visible = (run: Run) => {
      const panel = panelOf(run);
      if (!panel || notebooks.currentWidget !== panel || !panel.isVisible) {
        return false;
      }
      const found = findCell(panel, run);
      if (!found) {
        return false;
      }
      const cell = found.cell.node.getBoundingClientRect();
      const view = panel.content.node.getBoundingClientRect();
      return cell.bottom > view.top && cell.top < view.bottom && cell.height > 0;
    };

    const resume = (run: Run) => {
      const panel = panelOf(run);
      if (!panel || !run.resume) {
        return;
      }
      app.shell.activateById(panel.id);
      const found = findCell(panel, run);
      panel.content.activeCellIndex = found ? found.index : panel.content.widgets.length - 1;
      NotebookActions.insertBelow(panel.content);
      const cell = panel.content.activeCell;
      if (cell && cell.model.type === 'code') {
        cell.model.sharedModel.setSource(`%agent resume ${run.resume.slice(0, 8)}`);
        void NotebookActions.run(panel.content, panel.sessionContext);
      }
    };

    new CardReattacher(model, resume); // cards of live runs started elsewhere; Resume bars

    const runsPanel = new RunsPanel(model, {
      show,
      resume,
      notebookName: run => panelOf(run)?.title.label ?? 'a notebook'
    });
    runsPanel.title.label = 'Agents';
    if (labShell) {
      labShell.add(runsPanel, 'right', { rank: 600 });
    }
    const openPanel = () => app.shell.activateById(runsPanel.id);

    const notifier = new ApprovalNotifier(model, { visible, show });
    notebooks.currentChanged.connect(() => notifier.refresh());
    labShell?.currentChanged.connect(() => notifier.refresh());
    // A notification goes once its card comes into view: look again as a notebook scrolls.
    let frame = 0;
    const scrolled = () => {
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        notifier.refresh();
      });
    };
    const follow = (panel: NotebookPanel) =>
      panel.node.addEventListener('scroll', scrolled, { capture: true, passive: true });
    notebooks.forEach(follow);
    notebooks.widgetAdded.connect((_t, panel) => follow(panel));

    if (statusBar) {
      const item = new RunsStatus(model, openPanel);
      statusBar.registerStatusItem(PLUGIN_ID, {
        item,
        align: 'left',
        rank: 50,
        isActive: () => item.active,
        activeStateChanged: model.changed
      });
    }

    const current = () => notebooks.currentWidget;
    let locks: SiteLocks = NO_LOCKS; // until the server answered

    const modeItem = statusBar
      ? new ModeStatus(model, current, app.commands, MODE_COMMANDS)
      : null;
    if (statusBar && modeItem) {
      const item = modeItem;
      notebooks.currentChanged.connect(() => item.refresh());
      statusBar.registerStatusItem(`${PLUGIN_ID}:mode`, {
        item,
        align: 'left',
        rank: 40,
        isActive: () => item.active,
        activeStateChanged: item.activeChanged
      });
    }
    for (const mode of MODES) {
      app.commands.addCommand(MODE_COMMANDS[mode], {
        label: () =>
          `Agent Mode: ${mode[0].toUpperCase()}${mode.slice(1)}` +
          (allows(locks.mode, mode) ? '' : ' (locked)'),
        caption: () => {
          const lock = locks.mode;
          return lock && !allows(lock, mode)
            ? `${MODE_CAPTIONS[mode]}. ${lockNote(lock, 'strict')}`
            : MODE_CAPTIONS[mode];
        },
        isEnabled: () => model.modeOf(current()) !== null && allows(locks.mode, mode),
        isToggled: () => model.modeOf(current()) === mode,
        execute: () => {
          model.setMode(current(), mode);
        }
      });
    }
    let shownMode: Mode | null = null; // menus and the palette redraw the checks on a change
    const modeMaybeChanged = () => {
      const mode = model.modeOf(current());
      if (mode !== shownMode) {
        shownMode = mode;
        MODES.forEach(m => app.commands.notifyCommandChanged(MODE_COMMANDS[m]));
      }
    };
    model.changed.connect(modeMaybeChanged);
    notebooks.currentChanged.connect(modeMaybeChanged);

    const pendingInActiveCell = () => {
      const panel = current();
      const cell = panel?.content.activeCell;
      if (!panel || !cell) {
        return null;
      }
      for (const run of model.runsOf(panel)) {
        if (run.cell === cell.model.id && run.pending.length > 0) {
          return { run, call: run.pending[0] };
        }
      }
      return null;
    };

    app.commands.addCommand(COMMANDS.insert, {
      label: 'Insert %%agent Cell Below',
      caption: 'Insert a %%agent cell below the active cell',
      isEnabled: () => !!current(),
      execute: () => {
        const panel = current();
        if (!panel) {
          return;
        }
        NotebookActions.insertBelow(panel.content);
        const cell = panel.content.activeCell;
        if (cell && cell.model.type === 'code') {
          cell.model.sharedModel.setSource('%%agent\n');
          panel.content.mode = 'edit';
          cell.editor?.setCursorPosition({ line: 1, column: 0 });
        }
      }
    });
    app.commands.addCommand(COMMANDS.stopAll, {
      label: 'Stop All Agent Runs of This Notebook',
      isEnabled: () => !!current() && model.runsOf(current()!).some(r => r.ended === null),
      execute: () => {
        const panel = current();
        if (panel) {
          model.stopAll(panel);
        }
      }
    });
    app.commands.addCommand(COMMANDS.approve, {
      label: 'Approve the Agent Call Waiting in the Active Cell',
      // a call whose card alone shows what it does is approved on the card
      isEnabled: () => {
        const found = pendingInActiveCell();
        return found !== null && !found.call.on_card && found.call.question === undefined;
      },
      execute: () => {
        const found = pendingInActiveCell();
        if (found) {
          model.decide(found.run, found.call.request, true);
        }
      }
    });
    app.commands.addCommand(COMMANDS.reject, {
      label: 'Reject the Agent Call Waiting in the Active Cell',
      isEnabled: () => pendingInActiveCell() !== null,
      execute: () => {
        const found = pendingInActiveCell();
        if (found) {
          model.decide(found.run, found.call.request, false);
        }
      }
    });
    app.commands.addCommand(COMMANDS.panel, {
      label: 'Show Agent Runs',
      execute: openPanel
    });
    if (palette) {
      for (const command of Object.values(COMMANDS)) {
        palette.addItem({ command, category: 'Agents' });
      }
    }
    app.contextMenu.addItem({
      command: COMMANDS.insert,
      selector: '.jp-Notebook .jp-Cell',
      rank: 20
    });

    const loadSettings = (registry: ISettingRegistry) => {
      void registry.load(PLUGIN_ID).then(loaded => {
        const apply = () => {
          notifier.enabled = loaded.get('notifications').composite !== false;
          notifier.refresh();
          const approve = loaded.get('defaultApproval').composite;
          model.setKernelSettings({
            approve: isOneOf(APPROVE_MODES, approve) ? approve : 'ask', // (the schema's enum)
            grace: Number(loaded.get('headlessGrace').composite ?? 5)
          });
        };
        loaded.changed.connect(apply);
        apply();
      });
    };

    // The schema asks for a transform (jupyter.lab.transform), so the registry loads these
    // settings only once it is registered: after the locks came (or did not).
    void fetchLocks(app.serviceManager.serverSettings).then(found => {
      locks = found;
      if (modeItem) {
        modeItem.lock = found.mode;
      }
      MODES.forEach(m => app.commands.notifyCommandChanged(MODE_COMMANDS[m]));
      if (settings) {
        settings.transform(PLUGIN_ID, { compose: plugin => lockedPlugin(plugin, found) });
        loadSettings(settings);
      }
    });
  }
};
