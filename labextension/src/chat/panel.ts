/**
 * The Agent chat panel: threads with the active notebook's agent, run on its kernel.
 *
 * Each turn executes `chat_turn` (jupyter_agents/notebook/chat/turn.py) through `kernelrun`, so
 * the run's card renders in the panel with the notebook's own rendermime, exactly as in a cell.
 * What the person typed is shown as text, never as HTML. Threads are saved in the notebook's
 * metadata (`threads.ts`); read back, they are untrusted: user text as text, run outputs drawn as
 * a received notebook's outputs are.
 */
import type { IOutput } from '@jupyterlab/nbformat';
import { NotebookPanel } from '@jupyterlab/notebook';
import { OutputArea } from '@jupyterlab/outputarea';
import { Panel, Widget } from '@lumino/widgets';

import { button, el } from '../dom';
import { awaitCall, execute, outputArea } from '../kernelrun';
import { ChatComm } from './comm';
import { Completion, MODES, Mode, TurnRequest } from './contract';
import {
  agentCellSource,
  completing,
  historyOf,
  mentionsIn,
  METADATA_KEY,
  newThreadId,
  Output,
  readThreads,
  RunMessage,
  savedOutputs,
  metadataWith,
  slashCommand,
  Thread,
  titleOf
} from './threads';

const TURN_MODULE = 'jupyter_agents.notebook.chat.turn';

const MODE_HELP: Record<Mode, string> = {
  ask: 'Ask: the agent reads and answers; it changes nothing',
  plan: 'Plan: the agent proposes a plan for you to approve before it acts',
  agent: 'Agent: the agent acts, asking where its tools need approval'
};

/** What the panel asks of the rest of the extension. */
export interface ChatActions {
  /** The answer texts of a run's saved outputs (for a thread's history). */
  answers(outputs: Output[]): Promise<string>;
  /** Insert `source` as a code cell below the active cell of `panel`. */
  insertCell(panel: NotebookPanel, source: string): void;
}

/** One notebook's chat: its threads and the output areas drawn for them in this page. */
class NotebookChat {
  threads: Thread[] = [];
  active: string | null = null;
  running = false;
  readonly areas = new WeakMap<RunMessage, OutputArea>();
  readonly shown = new Set<OutputArea>();
  saveTimer = 0;
  writing = false;
}

export class ChatPanel extends Panel {
  private _nb: NotebookPanel | null = null;
  private readonly _chats = new Map<NotebookPanel, NotebookChat>();
  private readonly _messages = new Panel();
  private readonly _header = new Widget();
  private readonly _footer = new Widget();
  private readonly _notebookName = el('span', 'ja-chat-notebook');
  private readonly _mode = el('select', 'jp-mod-styled ja-chat-mode');
  private readonly _threadSelect = el('select', 'jp-mod-styled ja-chat-thread');
  private readonly _newThread = button('New thread', 'ja-chat-new', 'Start a new chat thread');
  private readonly _toCell = button(
    'Turn into a cell',
    'ja-chat-to-cell',
    "Insert a %%agent cell below the active cell holding this thread's last message"
  );
  private readonly _empty = el('p', 'ja-chat-empty');
  private readonly _context = el('div', 'ja-chat-context');
  private readonly _input = el('textarea', 'jp-mod-styled ja-chat-input');
  private readonly _send = button('Send', 'jp-mod-accept ja-chat-send', 'Send the message');
  private readonly _list = el('ul', 'ja-chat-completions');
  private _items: { insert: string; label: string; detail: string; again: boolean }[] = [];
  private _selected = 0;
  private _asked = 0;

  constructor(
    private readonly _comm: ChatComm,
    private readonly _actions: ChatActions
  ) {
    super();
    this.id = 'jupyter-agents-chat';
    this.addClass('ja-chat-panel');
    this.title.caption = 'Agent chat';
    this._buildHeader();
    this._messages.addClass('ja-chat-messages');
    this._messages.node.setAttribute('role', 'log');
    this._messages.node.setAttribute('aria-label', 'Chat messages');
    this._messages.node.setAttribute('aria-live', 'polite');
    this._buildFooter();
    this.addWidget(this._header);
    this.addWidget(this._messages);
    this.addWidget(this._footer);
    this._render();
  }

  /** The mode the next turn runs in. */
  get mode(): Mode {
    return MODES.find(m => m === this._mode.value) ?? 'agent';
  }

  private _buildHeader(): void {
    const node = this._header.node;
    node.className = 'ja-chat-header';
    const top = node.appendChild(el('div', 'ja-chat-top'));
    top.appendChild(el('h2', 'ja-chat-title', 'Agent chat'));
    top.appendChild(this._notebookName);
    const modeLabel = top.appendChild(el('label', 'ja-chat-mode-label', 'Mode'));
    for (const mode of MODES) {
      const option = this._mode.appendChild(el('option', undefined, mode));
      option.value = mode;
      option.title = MODE_HELP[mode];
    }
    this._mode.value = 'agent';
    this._mode.setAttribute('aria-label', 'Mode of the next turn: ask, plan or agent');
    this._mode.onchange = () => this._showMode();
    modeLabel.appendChild(this._mode);
    const bar = node.appendChild(el('div', 'ja-chat-threadbar'));
    this._threadSelect.setAttribute('aria-label', 'Thread');
    this._threadSelect.onchange = () => {
      const chat = this._chat();
      if (chat) {
        chat.active = this._threadSelect.value || null;
        this._render();
      }
    };
    bar.append(this._threadSelect, this._newThread, this._toCell);
    this._newThread.onclick = () => this.newThread();
    this._toCell.onclick = () => this.turnIntoCell();
    this._showMode();
  }

  private _buildFooter(): void {
    const node = this._footer.node;
    node.className = 'ja-chat-footer';
    this._list.id = 'ja-chat-completions';
    this._list.setAttribute('role', 'listbox');
    this._list.setAttribute('aria-label', 'Completions');
    this._list.hidden = true;
    this._input.rows = 3;
    this._input.setAttribute('aria-label', 'Message to the agent');
    this._input.setAttribute('aria-autocomplete', 'list');
    this._input.setAttribute('aria-controls', this._list.id);
    this._input.addEventListener('keydown', e => this._onKey(e));
    this._input.addEventListener('input', () => void this._complete());
    this._input.addEventListener('focus', () => this._showContext());
    this._input.addEventListener('blur', () => {
      window.setTimeout(() => this._closeList(), 150); // after a click on an item
    });
    const row = el('div', 'ja-chat-send-row');
    row.append(this._input, this._send);
    this._send.onclick = () => void this.send();
    node.append(this._context, this._list, row);
  }

  private _showMode(): void {
    const mode = this.mode;
    this.node.dataset.mode = mode;
    this._mode.title = MODE_HELP[mode];
    this._input.placeholder = `Ask about this notebook (${mode} mode)…`;
    this._input.title =
      'Enter sends, Shift+Enter starts a new line; @ mentions a cell, a variable or a file; ' +
      '/ runs an MCP prompt.';
  }

  // -- the notebook --------------------------------------------------------------------------

  /** Follow `panel` (the active notebook; null: none). */
  setNotebook(panel: NotebookPanel | null): void {
    if (panel === this._nb) {
      return;
    }
    this._nb = panel;
    if (panel && !this._chats.has(panel)) {
      const chat = new NotebookChat();
      this._chats.set(panel, chat);
      void panel.context.ready.then(() => {
        this._load(panel, chat);
        panel.model?.metadataChanged.connect((_m, change) => {
          if (change.key === METADATA_KEY && !chat.writing) {
            this._load(panel, chat); // reverted, or changed by someone else
          }
        });
      });
      panel.disposed.connect(() => {
        this._forget(chat);
        this._chats.delete(panel);
        if (this._nb === panel) {
          this.setNotebook(null);
        }
      });
    }
    this._render();
  }

  private _chat(): NotebookChat | null {
    return this._nb ? (this._chats.get(this._nb) ?? null) : null;
  }

  private _load(panel: NotebookPanel, chat: NotebookChat): void {
    if (chat.running) {
      return; // what this page runs now wins over a reload of the same file
    }
    this._forget(chat);
    chat.threads = readThreads(panel.model?.getMetadata(METADATA_KEY));
    if (!chat.threads.some(t => t.id === chat.active)) {
      chat.active = chat.threads.length ? chat.threads[chat.threads.length - 1].id : null;
    }
    if (this._nb === panel) {
      this._render();
    }
  }

  private _forget(chat: NotebookChat): void {
    for (const area of chat.shown) {
      area.dispose();
    }
    chat.shown.clear();
  }

  private _save(panel: NotebookPanel, chat: NotebookChat): void {
    window.clearTimeout(chat.saveTimer);
    chat.saveTimer = 0;
    const model = panel.model;
    if (!model || panel.isDisposed) {
      return;
    }
    for (const thread of chat.threads) {
      for (const message of thread.messages) {
        const area = message.role === 'run' ? chat.areas.get(message) : undefined;
        if (message.role === 'run' && area && !area.isDisposed) {
          message.outputs = savedOutputs(area.model.toJSON() as unknown as Output[]);
        }
      }
    }
    chat.writing = true;
    try {
      model.setMetadata(METADATA_KEY, metadataWith(model.getMetadata(METADATA_KEY), chat.threads));
    } finally {
      chat.writing = false;
    }
  }

  private _saveSoon(panel: NotebookPanel, chat: NotebookChat): void {
    if (!chat.saveTimer) {
      chat.saveTimer = window.setTimeout(() => this._save(panel, chat), 300);
    }
  }

  // -- drawing -------------------------------------------------------------------------------

  private _render(): void {
    const chat = this._chat();
    const nb = this._nb;
    for (const child of [...this._messages.widgets]) {
      child.parent = null; // output areas are kept (a live run goes on); user texts are redrawn
      if (!(child instanceof OutputArea)) {
        child.dispose();
      }
    }
    this._notebookName.textContent = nb ? nb.title.label : 'no notebook';
    this._threadSelect.replaceChildren();
    const threads = chat?.threads ?? [];
    for (const thread of threads) {
      const option = this._threadSelect.appendChild(el('option', undefined, thread.title));
      option.value = thread.id;
    }
    const thread = threads.find(t => t.id === chat?.active);
    if (!thread) {
      const option = this._threadSelect.appendChild(el('option', undefined, 'New thread'));
      option.value = '';
    }
    this._threadSelect.value = thread?.id ?? '';
    this._threadSelect.disabled = !chat;
    this._newThread.disabled = !chat;
    this._toCell.disabled = !thread || !thread.messages.some(m => m.role === 'user');
    this._input.disabled = this._send.disabled = !nb;
    this._send.disabled = !nb || !!chat?.running;
    this._empty.textContent = nb
      ? 'Ask the notebook\'s agent about this notebook. It sees the active cell and what you select.'
      : 'Open a notebook to chat with its agent.';
    const emptyWidget = new Widget({ node: this._empty });
    if (!thread || !thread.messages.length) {
      this._messages.addWidget(emptyWidget);
    }
    if (thread && nb && chat) {
      for (const message of thread.messages) {
        if (message.role === 'user') {
          this._messages.addWidget(this._userNode(message.text, message.mode));
        } else {
          this._messages.addWidget(this._runArea(nb, chat, message, false));
        }
      }
    }
    this._showContext();
    this._scrollDown();
  }

  private _userNode(text: string, mode?: Mode): Widget {
    const node = el('div', 'ja-chat-user');
    node.appendChild(el('div', 'ja-chat-who', mode ? `You · ${mode}` : 'You'));
    node.appendChild(el('div', 'ja-chat-text', text)); // text, never HTML
    return new Widget({ node });
  }

  private _runArea(
    nb: NotebookPanel,
    chat: NotebookChat,
    message: RunMessage,
    live: boolean
  ): OutputArea {
    let area = chat.areas.get(message);
    if (!area || area.isDisposed) {
      // Saved outputs are drawn as a received notebook's: untrusted.
      area = outputArea(nb.content.rendermime, live, live ? [] : (message.outputs as IOutput[]));
      area.addClass('ja-chat-run');
      chat.areas.set(message, area);
      chat.shown.add(area);
      const drawn = area;
      area.model.changed.connect(() => {
        if (live) {
          this._saveSoon(nb, chat);
        }
        if (this._messages.contains(drawn)) {
          this._scrollDown();
        }
      });
    }
    return area;
  }

  private _scrollDown(): void {
    const node = this._messages.node;
    requestAnimationFrame(() => (node.scrollTop = node.scrollHeight));
  }

  /** The context the next turn attaches, said in the panel. */
  private _showContext(): void {
    const cell = this._nb?.content.activeCell;
    if (!this._nb || !cell) {
      this._context.textContent = '';
      return;
    }
    const index = this._nb.content.widgets.indexOf(cell) + 1;
    const selected = this._selection().length;
    this._context.textContent =
      `Context: cell ${index} (the active cell)` +
      (selected ? ` · ${selected.toLocaleString()} characters selected` : '');
  }

  private _selection(): string {
    const editor = this._nb?.content.activeCell?.editor;
    if (!editor) {
      return '';
    }
    const range = editor.getSelection();
    const start = editor.getOffsetAt(range.start);
    const end = editor.getOffsetAt(range.end);
    const source = editor.model.sharedModel.getSource();
    return source.slice(Math.min(start, end), Math.max(start, end));
  }

  // -- actions -------------------------------------------------------------------------------

  /** Start a new thread (the next message opens it). */
  newThread(): void {
    const chat = this._chat();
    if (chat) {
      chat.active = null;
      this._render();
      this._input.focus();
    }
  }

  /** Send the message in the box as the active thread's next turn. */
  async send(): Promise<void> {
    const nb = this._nb;
    const chat = this._chat();
    const text = this._input.value;
    if (!nb || !chat || chat.running || !text.trim()) {
      return;
    }
    this._closeList();
    let thread = chat.threads.find(t => t.id === chat.active);
    if (!thread) {
      thread = { id: newThreadId(), title: titleOf(text), messages: [] };
      chat.threads.push(thread);
      chat.active = thread.id;
    }
    const history = await historyOf(thread, outputs => this._actions.answers(outputs));
    const mode = this.mode;
    const run: RunMessage = { role: 'run', outputs: [] };
    thread.messages.push({ role: 'user', text, mode }, run);
    const area = this._runArea(nb, chat, run, true);
    this._input.value = '';
    chat.running = true;
    this._render();
    const request = this._request(nb, thread.id, text, mode);
    request.history = history;
    try {
      await execute(awaitCall(TURN_MODULE, 'chat_turn', request), area, nb.sessionContext);
    } catch (e) {
      area.model.add({ output_type: 'stream', name: 'stderr', text: `${e}\n` });
    } finally {
      chat.running = false;
      this._save(nb, chat);
      if (this._nb === nb) {
        this._render();
      }
    }
  }

  private _request(nb: NotebookPanel, thread: string, text: string, mode: Mode): TurnRequest {
    const ids = nb.content.widgets.map(cell => cell.model.id);
    const request: TurnRequest = { thread, message: text, mode };
    const command = slashCommand(text);
    if (command) {
      request.command = command;
    }
    const active = nb.content.activeCell;
    if (active) {
      request.active_cell = active.model.id;
      const selection = this._selection();
      if (selection) {
        request.selection = selection;
      }
    }
    const mentions = mentionsIn(text, ids);
    if (mentions.length) {
      request.mentions = mentions;
    }
    return request;
  }

  /** Insert a %%agent cell holding the active thread's last message, below the active cell. */
  turnIntoCell(): void {
    const chat = this._chat();
    const thread = chat?.threads.find(t => t.id === chat.active);
    const last = [...(thread?.messages ?? [])].reverse().find(m => m.role === 'user');
    if (this._nb && last && last.role === 'user') {
      this._actions.insertCell(this._nb, agentCellSource(last.text, last.mode));
    }
  }

  /** A new thread whose first message is `prompt` and first run shows `outputs` (copied). */
  openAsThread(nb: NotebookPanel, prompt: string, outputs: Output[]): void {
    this.setNotebook(nb);
    const chat = this._chats.get(nb);
    if (!chat) {
      return;
    }
    const thread: Thread = {
      id: newThreadId(),
      title: titleOf(prompt),
      messages: [
        { role: 'user', text: prompt },
        { role: 'run', outputs: savedOutputs(outputs) }
      ]
    };
    chat.threads.push(thread);
    chat.active = thread.id;
    this._save(nb, chat);
    this._render();
    this._input.focus();
  }

  // -- completion ----------------------------------------------------------------------------

  private _onKey(event: KeyboardEvent): void {
    const open = !this._list.hidden && this._items.length > 0;
    if (open && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      this._select((this._selected + step + this._items.length) % this._items.length);
    } else if (open && (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey))) {
      event.preventDefault();
      this._accept(this._selected);
    } else if (open && event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this._closeList();
    } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void this.send();
    }
  }

  private async _complete(): Promise<void> {
    const nb = this._nb;
    const at = completing(this._input.value, this._input.selectionStart ?? 0);
    const asked = ++this._asked;
    if (!nb || !at) {
      this._closeList();
      return;
    }
    let items: { insert: string; label: string; detail: string; again: boolean }[] = [];
    if (at.kind === 'mention') {
      items = (['cell', 'var', 'file'] as const)
        .filter(kind => kind.startsWith(at.prefix))
        .map(kind => ({
          insert: `@${kind}:`,
          label: `@${kind}:`,
          detail: { cell: 'a cell', var: 'a variable', file: 'a file in the notebook\'s folder' }[kind],
          again: true
        }));
    } else if (at.kind === 'cell') {
      items = nb.content.widgets
        .map((cell, i) => ({
          insert: `@cell:${i + 1} `,
          label: `@cell:${i + 1}`,
          detail: (cell.model.sharedModel.getSource().split('\n', 1)[0] ?? '').slice(0, 60),
          again: false
        }))
        .filter(item => item.label.startsWith(`@cell:${at.prefix}`))
        .slice(0, 50);
    } else {
      const kernel = nb.sessionContext.session?.kernel;
      const found: Completion[] = kernel ? await this._comm.complete(kernel, at.kind, at.prefix) : [];
      const sign = at.kind === 'prompt' ? '/' : `@${at.kind}:`;
      items = found.map(c => ({
        insert: `${sign}${c.label} `,
        label: `${sign}${c.label}`,
        detail:
          c.detail +
          (c.arguments?.length ? ` (${c.arguments.map(a => a.name).join(', ')})` : ''),
        again: false
      }));
    }
    if (asked !== this._asked) {
      return; // typed on meanwhile
    }
    this._showList(items);
  }

  private _showList(items: { insert: string; label: string; detail: string; again: boolean }[]): void {
    this._items = items;
    this._list.replaceChildren();
    if (!items.length) {
      this._closeList();
      return;
    }
    items.forEach((item, i) => {
      const li = this._list.appendChild(el('li', 'ja-chat-completion'));
      li.id = `ja-chat-completion-${i}`;
      li.setAttribute('role', 'option');
      li.appendChild(el('span', 'ja-chat-completion-label', item.label));
      li.appendChild(el('span', 'ja-chat-completion-detail', item.detail));
      li.onmousedown = e => {
        e.preventDefault(); // keep the focus in the box
        this._accept(i);
      };
    });
    this._list.hidden = false;
    this._input.setAttribute('aria-expanded', 'true');
    this._select(0);
  }

  private _select(index: number): void {
    this._selected = index;
    this._list.querySelectorAll('li').forEach((li, i) => {
      li.setAttribute('aria-selected', String(i === index));
      li.classList.toggle('ja-mod-selected', i === index);
      if (i === index) {
        li.scrollIntoView({ block: 'nearest' });
      }
    });
    this._input.setAttribute('aria-activedescendant', `ja-chat-completion-${index}`);
  }

  private _accept(index: number): void {
    const item = this._items[index];
    const caret = this._input.selectionStart ?? 0;
    const at = completing(this._input.value, caret);
    if (!item || !at) {
      this._closeList();
      return;
    }
    const value = this._input.value;
    this._input.value = value.slice(0, at.start) + item.insert + value.slice(caret);
    const end = at.start + item.insert.length;
    this._input.setSelectionRange(end, end);
    this._closeList();
    if (item.again) {
      void this._complete();
    }
  }

  private _closeList(): void {
    this._list.hidden = true;
    this._items = [];
    this._input.setAttribute('aria-expanded', 'false');
    this._input.removeAttribute('aria-activedescendant');
  }

  protected onUpdateRequest(): void {
    this._showContext();
  }

  /** Put the focus in the message box. */
  focusInput(): void {
    this._input.focus();
  }

  dispose(): void {
    for (const chat of this._chats.values()) {
      this._forget(chat);
    }
    this._comm.dispose();
    super.dispose();
  }
}
