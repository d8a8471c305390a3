/**
 * The runs of every open notebook's kernel, kept up to date through the `jupyter_agents.runs`
 * comm, and the requests this frontend sends back (decisions, Stop).
 */
import { NotebookPanel } from '@jupyterlab/notebook';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { Hello, Mode, MODES, SetMode, Settings, TARGET, ToKernel } from './contract';
import { parseMessage, RunInfo } from './protocol';

/** A run, with where it runs. */
export interface Run extends RunInfo {
  /** The kernel's id. */
  kernel: string;
}

/** What a kernel asks of every frontend when a setting changes. */
export type KernelSettings = Omit<Settings, 'type'>;

interface KernelEntry {
  kernel: Kernel.IKernelConnection;
  comms: Kernel.IComm[];
  runs: Map<string, Run>;
  panels: Set<NotebookPanel>;
  /** The notebook's mode, once the kernel said it (only a kernel with the extension does). */
  mode: Mode | null;
}

/** Every run this frontend knows of, by kernel. */
export class RunsModel {
  private readonly _kernels = new Map<string, KernelEntry>();
  private readonly _changed = new Signal<this, void>(this);
  private readonly _decided = new Signal<this, { request: string; ok: boolean }>(this);
  private _settings: KernelSettings | null = null;

  /** Emitted whenever a run, or the set of kernels, changes. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** Emitted when a kernel answers a decision (ok is false for a stale one). */
  get decided(): ISignal<this, { request: string; ok: boolean }> {
    return this._decided;
  }

  /** Every known run, newest first. */
  runs(): Run[] {
    const all: Run[] = [];
    for (const entry of this._kernels.values()) {
      all.push(...entry.runs.values());
    }
    return all.sort((a, b) => b.started - a.started);
  }

  /** The runs of the kernel behind `panel`. */
  runsOf(panel: NotebookPanel): Run[] {
    const kernel = panel.sessionContext.session?.kernel;
    const entry = kernel ? this._kernels.get(kernel.id) : undefined;
    return entry ? [...entry.runs.values()] : [];
  }

  /** The mode of the kernel behind `panel` (`%agent mode`), or null when that kernel has not
   * loaded the extension (or `panel` is null). */
  modeOf(panel: NotebookPanel | null | undefined): Mode | null {
    const kernel = panel?.sessionContext.session?.kernel;
    return (kernel && this._kernels.get(kernel.id)?.mode) || null;
  }

  /** Ask the kernel behind `panel` to switch to `mode`, as `%agent mode` does; the status bar
   * changes when the kernel says it did (`modeOf`). False when nothing was sent. */
  setMode(panel: NotebookPanel | null | undefined, mode: Mode): boolean {
    const kernel = panel?.sessionContext.session?.kernel;
    if (!kernel || !MODES.includes(mode)) {
      return false;
    }
    const message: SetMode = { type: 'set_mode', mode };
    return this._send(kernel.id, message);
  }

  /** The notebook panels showing `run`'s kernel. */
  panelsOf(run: Run): NotebookPanel[] {
    return [...(this._kernels.get(run.kernel)?.panels ?? [])];
  }

  /** Follow `panel`'s kernel, now and after every kernel change. */
  track(panel: NotebookPanel): void {
    const context = panel.sessionContext;
    const attach = () => {
      for (const entry of this._kernels.values()) {
        entry.panels.delete(panel);
      }
      const kernel = context.session?.kernel;
      if (kernel) {
        this._attach(kernel).panels.add(panel);
      }
      this._changed.emit();
    };
    context.kernelChanged.connect(attach);
    panel.disposed.connect(() => {
      context.kernelChanged.disconnect(attach);
      for (const entry of this._kernels.values()) {
        entry.panels.delete(panel);
      }
      this._changed.emit();
    });
    attach();
  }

  /** Settings every kernel gets (now, and each kernel that connects later). */
  setKernelSettings(settings: KernelSettings): void {
    this._settings = settings;
    for (const entry of this._kernels.values()) {
      this._sendSettings(entry);
    }
  }

  /** Decide a waiting call; the kernel answers through `decided`. */
  decide(run: Run, request: string, approved: boolean, message?: string): boolean {
    return this._send(run.kernel, {
      type: 'decide',
      run: run.id,
      request,
      approved,
      message: message?.trim() || null
    });
  }

  /** Ask the kernel to stop `run`. */
  stop(run: Run): boolean {
    return this._send(run.kernel, { type: 'stop', run: run.id });
  }

  /** Ask the kernel behind `panel` to stop all its runs. */
  stopAll(panel: NotebookPanel): boolean {
    const kernel = panel.sessionContext.session?.kernel;
    return kernel ? this._send(kernel.id, { type: 'stop_all' }) : false;
  }

  // -- kernels and comms --------------------------------------------------------------------

  private _attach(kernel: Kernel.IKernelConnection): KernelEntry {
    let entry = this._kernels.get(kernel.id);
    if (entry) {
      return entry;
    }
    const created: KernelEntry = {
      kernel,
      comms: [],
      runs: new Map(),
      panels: new Set(),
      mode: null
    };
    entry = created;
    this._kernels.set(kernel.id, created);
    // The kernel opens a comm when `%load_ext jupyter_agents` runs...
    kernel.registerCommTarget(TARGET, (comm: Kernel.IComm, msg: KernelMessage.ICommOpenMsg) => {
      this._adopt(created, comm);
      this._onData(created, msg.content.data);
    });
    // ... and a kernel that loaded it before this page connected gets one from here (a
    // kernel without the extension closes it at once).
    if (!kernel.isDisposed) {
      try {
        const comm = kernel.createComm(TARGET);
        const hello: Hello = { type: 'hello' };
        comm.open(hello);
        this._adopt(created, comm);
      } catch (e) {
        console.debug('jupyter-agents: could not open the runs comm', e);
      }
    }
    kernel.statusChanged.connect((_k, status) => {
      if (status === 'restarting' || status === 'autorestarting' || status === 'dead') {
        created.runs.clear();
        created.comms = [];
        created.mode = null; // a restarted kernel has no extension until `%load_ext` again
        this._changed.emit();
      }
    });
    kernel.disposed.connect(() => {
      this._kernels.delete(kernel.id);
      this._changed.emit();
    });
    return created;
  }

  private _adopt(entry: KernelEntry, comm: Kernel.IComm): void {
    entry.comms.push(comm);
    comm.onMsg = msg => this._onData(entry, msg.content.data);
    comm.onClose = () => {
      entry.comms = entry.comms.filter(c => c !== comm);
    };
    this._sendSettings(entry);
  }

  private _onData(entry: KernelEntry, data: unknown): void {
    const message = parseMessage(data);
    if (!message) {
      return;
    }
    const kernel = entry.kernel.id;
    if (message.type === 'snapshot') {
      for (const run of message.runs) {
        entry.runs.set(run.id, { ...run, kernel });
      }
    } else if (message.type === 'run') {
      entry.runs.set(message.run.id, { ...message.run, kernel });
    } else if (message.type === 'mode') {
      if (entry.mode === message.mode) {
        return;
      }
      entry.mode = message.mode;
    } else {
      this._decided.emit({ request: message.request, ok: message.ok });
      return;
    }
    this._changed.emit();
  }

  private _send(kernelId: string, data: ToKernel): boolean {
    const entry = this._kernels.get(kernelId);
    for (const comm of entry?.comms ?? []) {
      if (!comm.isDisposed) {
        comm.send(data);
        return true;
      }
    }
    return false;
  }

  private _sendSettings(entry: KernelEntry): void {
    if (this._settings) {
      const settings: Settings = { type: 'settings', ...this._settings };
      for (const comm of entry.comms) {
        if (!comm.isDisposed) {
          comm.send(settings);
        }
      }
    }
  }
}
