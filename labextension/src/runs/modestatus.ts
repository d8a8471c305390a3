/**
 * The status bar item "Mode: plan": the current notebook's mode (`%agent mode`), hidden while
 * its kernel has no agent. A click, Enter or Space opens a menu of the three modes (the
 * `jupyter-agents:mode-*` commands, the current one checked; a mode looser than the site's lock
 * disabled, see plugin.ts); the arrow keys move in it, Enter picks, Escape closes it and focus
 * comes back here. A locked mode is said in the item's tooltip.
 */
import { NotebookPanel } from '@jupyterlab/notebook';
import { ISignal, Signal } from '@lumino/signaling';
import { Menu, Widget } from '@lumino/widgets';

import { Mode, MODES } from './contract';
import { Lock, lockNote } from './locks';
import { RunsModel } from './model';
import { MODE_CAPTIONS, modeText } from './summary';

export class ModeStatus extends Widget {
  private readonly _activeChanged = new Signal<this, void>(this);
  private readonly _menu: Menu;
  private _keyboard = false;
  private _lock: Lock<Mode> | null = null;

  /**
   * `current`: the notebook whose mode is shown; call `refresh` when it changes.
   * `commands`: the command that switches to each mode.
   */
  constructor(
    private readonly _model: RunsModel,
    private readonly _current: () => NotebookPanel | null,
    commands: Menu.IOptions['commands'],
    modeCommands: Record<Mode, string>
  ) {
    super({ node: document.createElement('button') });
    this.addClass('ja-mode-status');
    const node = this.node as HTMLButtonElement;
    node.type = 'button';
    node.setAttribute('aria-haspopup', 'menu');
    this._menu = new Menu({ commands });
    this._menu.addClass('ja-mode-menu');
    for (const mode of MODES) {
      this._menu.addItem({ command: modeCommands[mode] });
    }
    this._menu.aboutToClose.connect(() => {
      node.setAttribute('aria-expanded', 'false');
      if (this._keyboard) {
        requestAnimationFrame(() => node.focus());
      }
    });
    node.addEventListener('click', event => {
      // a click from the keyboard (Enter, Space) has no pointer position
      this._keyboard = event.detail === 0;
      this.openMenu();
    });
    _model.changed.connect(this.refresh, this);
    this.refresh();
  }

  /** Emitted when the item may have to be shown or hidden (for the status bar). */
  get activeChanged(): ISignal<this, void> {
    return this._activeChanged;
  }

  /** The mode shown, or null when the current notebook's kernel has no agent. */
  get mode(): Mode | null {
    return this._model.modeOf(this._current());
  }

  /** The site's lock of the mode, if any (its tooltip says so). */
  get lock(): Lock<Mode> | null {
    return this._lock;
  }

  set lock(lock: Lock<Mode> | null) {
    this._lock = lock;
    this.update();
  }

  /** Whether there is anything to show (the item hides itself otherwise). */
  get active(): boolean {
    return this.mode !== null;
  }

  /** Show the current notebook's mode again (it, or the current notebook, changed). */
  refresh(): void {
    this.update();
    this._activeChanged.emit();
  }

  /** Open the menu of modes above the item, the current mode active. */
  openMenu(): void {
    if (!this.active) {
      return;
    }
    const box = this.node.getBoundingClientRect();
    this.node.setAttribute('aria-expanded', 'true');
    this._menu.open(box.left, box.top);
    const mode = this.mode;
    this._menu.activeIndex = mode ? MODES.indexOf(mode) : 0;
  }

  protected onUpdateRequest(): void {
    const mode = this.mode;
    this.node.textContent = modeText(mode);
    this.node.dataset.mode = mode ?? '';
    const locked = this._lock ? ` ${lockNote(this._lock, 'strict')}` : '';
    this.node.title = mode ? `${MODE_CAPTIONS[mode]}.${locked} Click to change the mode.` : '';
    this.node.setAttribute(
      'aria-label',
      mode ? `Agent mode of this notebook: ${mode}. Change the mode` : 'Agent mode'
    );
  }
}
