/**
 * The box an assist shows in a cell: for Ctrl/Cmd+I a prompt (Enter runs, Shift+Enter a new
 * line, Escape closes), for Fix a title; a close button; and the run's output, drawn by
 * `kernelrun` with the notebook's own rendermime so the run's card (its diff, its approvals)
 * renders exactly as in a `%%agent` cell. What the person types is sent as text.
 */
import { OutputArea } from '@jupyterlab/outputarea';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { Panel, Widget } from '@lumino/widgets';

import { button, el } from '../dom';
import { outputArea } from '../kernelrun';
import { AssistKind } from './contract';

/** What the box asks of whoever placed it. */
export interface AssistHost {
  /** Run the assist with `prompt` into `area`; resolves when the kernel has finished. */
  run(prompt: string, area: OutputArea): Promise<void>;
  /** Stop the run going on (the kernel's interrupt). */
  stop(): void;
  /** The box was closed: put the focus back in the cell. */
  closed(): void;
}

export class AssistPanel extends Panel {
  readonly area: OutputArea;
  private readonly _bar = new Widget();
  private readonly _input = el('textarea', 'jp-mod-styled ja-assist-input');
  private readonly _run = button('Run', 'jp-mod-accept ja-assist-run', 'Run the prompt');
  private readonly _close = button('×', 'jp-mod-minimal ja-assist-close', 'Close');
  private readonly _status = el('span', 'ja-assist-status');
  private _running = false;

  constructor(
    readonly kind: AssistKind,
    rendermime: IRenderMimeRegistry,
    private readonly _host: AssistHost
  ) {
    super();
    this.addClass('ja-assist');
    this.addClass(`ja-assist-${kind}`);
    this.node.setAttribute('role', 'region');
    this.node.setAttribute(
      'aria-label',
      kind === 'fix' ? "The agent's fix of this cell" : "The agent's prompt for this cell"
    );
    const bar = this._bar.node;
    bar.className = 'ja-assist-bar';
    if (kind === 'generate') {
      this._input.rows = 1;
      this._input.placeholder = 'Ask the agent to write or change this cell (Enter to run)';
      this._input.setAttribute('aria-label', 'What should this cell do?');
      this._input.onkeydown = e => this._onKey(e);
      this._run.onclick = () => void this.start();
      bar.append(this._input, this._run);
    } else {
      bar.append(el('span', 'ja-assist-title', 'The agent is fixing this cell'));
    }
    this._status.setAttribute('role', 'status');
    bar.append(this._status, this._close);
    this._close.onclick = () => this.close();
    this._close.onkeydown = e => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        this.close();
      }
    };
    this.area = outputArea(rendermime, true);
    this.area.addClass('ja-assist-output');
    this.addWidget(this._bar);
    this.addWidget(this.area);
    this._show();
  }

  /** Whether a run is going on. */
  get running(): boolean {
    return this._running;
  }

  /** Put the focus in the box (the prompt, or the close button). */
  focus(): void {
    (this.kind === 'generate' && !this._running ? this._input : this._close).focus();
  }

  /** Run the assist (the prompt's text for Ctrl/Cmd+I). */
  async start(): Promise<void> {
    const prompt = this._input.value;
    if (this._running || (this.kind === 'generate' && !prompt.trim())) {
      return;
    }
    this._running = true;
    this._show();
    this.area.model.clear();
    try {
      await this._host.run(prompt, this.area);
    } catch (e) {
      this.area.model.add({ output_type: 'stream', name: 'stderr', text: `${e}\n` });
    } finally {
      this._running = false;
      if (!this.isDisposed) {
        this._show();
      }
    }
  }

  /** Close the box; a run going on is stopped first. */
  close(): void {
    if (this._running) {
      this._host.stop();
    }
    this.dispose();
    this._host.closed();
  }

  private _show(): void {
    this._input.disabled = this._run.disabled = this._running;
    this._status.textContent = this._running ? 'running…' : '';
    const what = this._running ? 'Stop the agent and close' : 'Close';
    this._close.setAttribute('aria-label', what);
    this._close.title = what;
  }

  private _onKey(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      event.stopPropagation();
      void this.start();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.close();
    }
  }
}

/** The Fix button under a cell's error output. */
export class FixButton extends Widget {
  readonly button = button('Fix', 'jp-mod-accept ja-assist-fixbutton', 'Ask the agent to fix this cell');

  constructor(fix: () => void) {
    super();
    this.addClass('ja-assist-fixbar');
    this.button.onclick = () => fix();
    this.node.append(this.button);
  }
}
