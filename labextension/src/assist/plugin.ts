/**
 * Feature: assists where the person is. **Fix** under a cell's error output runs the notebook's
 * agent on that cell (its source, error and the variables its traceback names), which proposes
 * an `edit_cell` diff and, approved, runs the cell again; **Ctrl/Cmd+I** in a code cell opens a
 * prompt above it whose run proposes the cell's new source as an `edit_cell` diff. Both run in
 * the notebook's mode, on its kernel, through `kernelrun` (jupyter_agents/notebook/assists/),
 * and their run (its cards and approvals) shows in a box inside the cell (`panel.ts`). An
 * approved edit is one undo step of the cell (the document plugin applies it).
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import type { Cell, CodeCell } from '@jupyterlab/cells';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { CommandRegistry } from '@lumino/commands';
import { PanelLayout } from '@lumino/widgets';

import { execute } from '../kernelrun';
import { AssistKind } from './contract';
import { AssistPanel, FixButton } from './panel';
import { assistCode, assistRequest, hasError } from './rules';

export const ASSIST_COMMANDS = {
  fix: 'jupyter-agents:fix-cell',
  inline: 'jupyter-agents:inline-prompt'
};

function isCode(cell: Cell | null | undefined): cell is CodeCell {
  return !!cell && !cell.isDisposed && cell.model.type === 'code';
}

/**
 * Whether `event`, on `target`, is a key `command` is bound to there (Ctrl+I, Cmd+I on a Mac,
 * unless the person changed it in Settings ▸ Keyboard Shortcuts: the bindings come from this
 * plugin's schema).
 */
function isBoundTo(
  commands: CommandRegistry,
  command: string,
  event: KeyboardEvent,
  target: Element
): boolean {
  const pressed = CommandRegistry.keystrokeForKeydownEvent(event);
  return commands.keyBindings.some(
    binding =>
      binding.command === command &&
      binding.keys.length === 1 &&
      binding.keys[0] === pressed &&
      target.closest(binding.selector) !== null
  );
}

function cellOutputs(cell: CodeCell): unknown[] {
  return cell.model.outputs.toJSON();
}

/** The boxes and Fix buttons of every open notebook's cells. */
class Assists {
  private readonly _boxes = new WeakMap<Cell, AssistPanel>();
  private readonly _fixes = new WeakMap<Cell, FixButton>();
  private readonly _watched = new WeakSet<Cell>();
  /** Cells an assist runs on now. */
  private readonly _working = new WeakSet<Cell>();

  /**
   * Watch `nb`'s code cells for error outputs (a Fix button under each); the inline prompt's key
   * in a cell's editor runs it (CodeMirror's own Mod-i, select the syntax around, would take
   * Ctrl/Cmd+I before JupyterLab's shortcuts see it, so the key is caught on the way down).
   */
  watch(nb: NotebookPanel, commands: CommandRegistry): void {
    nb.content.node.addEventListener(
      'keydown',
      event => {
        const target = event.target as HTMLElement | null;
        const inline = ASSIST_COMMANDS.inline;
        if (target?.closest('.jp-Cell .cm-editor') && isBoundTo(commands, inline, event, target)) {
          event.preventDefault();
          event.stopPropagation();
          void commands.execute(inline);
        }
      },
      true
    );
    const scan = () => {
      for (const cell of nb.content.widgets) {
        if (isCode(cell) && !this._watched.has(cell)) {
          this._watched.add(cell);
          cell.model.outputs.changed.connect(() => this._refresh(nb, cell));
          void cell.ready.then(() => this._refresh(nb, cell));
        }
      }
    };
    void nb.context.ready.then(() => {
      nb.content.model?.cells.changed.connect(() => requestAnimationFrame(scan));
      scan();
    });
  }

  private _refresh(nb: NotebookPanel, cell: CodeCell): void {
    if (cell.isDisposed || cell.isPlaceholder()) {
      return;
    }
    const error = hasError(cellOutputs(cell));
    let fix = this._fixes.get(cell);
    if (error && !fix) {
      fix = new FixButton(() => this.open(nb, cell, 'fix'));
      const layout = cell.layout as PanelLayout;
      layout.insertWidget(layout.widgets.length - 1, fix); // under the outputs, above the footer
      this._fixes.set(cell, fix);
    }
    fix?.setHidden(!error || this._working.has(cell));
  }

  /** Whether `cell` has an error to fix. */
  canFix(cell: Cell | null | undefined): boolean {
    return isCode(cell) && hasError(cellOutputs(cell));
  }

  /**
   * Open an assist of `kind` in `cell` (a Fix runs at once; Ctrl/Cmd+I waits for the prompt):
   * a Fix's box goes under the cell's input, a prompt above it. An open box is reused.
   */
  open(nb: NotebookPanel, cell: CodeCell, kind: AssistKind): AssistPanel {
    let box = this._boxes.get(cell);
    if (box && !box.isDisposed && (box.kind === kind || box.running)) {
      box.focus();
      return box;
    }
    box?.close();
    box = new AssistPanel(kind, nb.content.rendermime, {
      run: (prompt, area) => this._run(nb, cell, kind, prompt, area),
      stop: () => void nb.sessionContext.session?.kernel?.interrupt(),
      closed: () => {
        if (!cell.isDisposed) {
          nb.content.activeCellIndex = nb.content.widgets.indexOf(cell);
          if (kind === 'generate') {
            nb.content.mode = 'edit';
          }
          cell.node.focus();
        }
      }
    });
    const layout = cell.layout as PanelLayout;
    const input = cell.inputArea?.parent ?? null;
    const at = input ? layout.widgets.indexOf(input) : 1;
    layout.insertWidget(kind === 'fix' ? at + 1 : at, box);
    this._boxes.set(cell, box);
    box.focus();
    if (kind === 'fix') {
      void box.start();
    }
    return box;
  }

  private async _run(
    nb: NotebookPanel,
    cell: CodeCell,
    kind: AssistKind,
    prompt: string,
    area: AssistPanel['area']
  ): Promise<void> {
    const code = assistCode(assistRequest(kind, cell.model.id, prompt));
    this._working.add(cell);
    this._refresh(nb, cell); // no Fix button while the agent works on the cell
    try {
      await execute(code, area, nb.sessionContext);
    } finally {
      this._working.delete(cell);
      this._refresh(nb, cell);
    }
  }
}

export const assistPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agents:assist',
  description: 'Fix a cell with the agent from its error, and Ctrl/Cmd+I to write a cell.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ICommandPalette],
  activate: (app: JupyterFrontEnd, notebooks: INotebookTracker, palette: ICommandPalette | null) => {
    const assists = new Assists();
    notebooks.forEach(nb => assists.watch(nb, app.commands));
    notebooks.widgetAdded.connect((_t, nb) => assists.watch(nb, app.commands));
    const active = () => {
      const nb = notebooks.currentWidget;
      const cell = nb?.content.activeCell;
      return nb && isCode(cell) ? { nb, cell } : null;
    };
    app.commands.addCommand(ASSIST_COMMANDS.fix, {
      label: 'Fix This Cell with the Agent',
      caption: "Ask the agent to fix the active cell's error (you approve the diff)",
      isEnabled: () => assists.canFix(active()?.cell),
      execute: () => {
        const found = active();
        if (found && assists.canFix(found.cell)) {
          assists.open(found.nb, found.cell, 'fix');
        }
      }
    });
    app.commands.addCommand(ASSIST_COMMANDS.inline, {
      label: 'Ask the Agent to Write This Cell',
      caption: 'Open a prompt above the active code cell (you approve the diff)',
      isEnabled: () => active() !== null,
      execute: () => {
        const found = active();
        if (found) {
          assists.open(found.nb, found.cell, 'generate');
        }
      }
    });
    // Its key (Accel I) is in schema/assist.json, so Settings ▸ Keyboard Shortcuts can change
    // it; in edit mode `watch` catches the bound key before CodeMirror does.
    if (palette) {
      for (const command of Object.values(ASSIST_COMMANDS)) {
        palette.addItem({ command, category: 'Agents' });
      }
    }
    app.contextMenu.addItem({
      command: ASSIST_COMMANDS.fix,
      selector: '.jp-Notebook .jp-CodeCell',
      rank: 22
    });
  }
};
