/**
 * A batch's progress as it was saved (`BatchState`, ./state.d.ts): the bar, the progress line,
 * the latest rows and the latest errors, as the live widget showed them last. Every text goes
 * into text nodes; the outcome and each row's status pick one of the known classes below.
 */
import type { BatchError, BatchRow, BatchState } from './state';

/** Outcomes and row statuses that become classes; anything else is "unknown". */
export const OUTCOMES = ['running', 'done', 'failed', 'stopped'];
export const STATUSES = ['ok', 'failed', 'rejected', 'waiting', 'pending'];

const OUTCOME_WORDS: Record<string, string> = {
  running: 'running when saved',
  done: 'done',
  failed: 'done, with failed rows',
  stopped: 'stopped'
};

/** `value` if it is one of `list`, else "unknown". */
export function known(list: string[], value: unknown): string {
  return typeof value === 'string' && list.includes(value) ? value : 'unknown';
}

const text = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;

const records = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value)
    ? value.filter(
        (v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
      )
    : [];

/** The saved state read defensively: every field of the right type, whatever the file held. */
export function batchState(raw: Record<string, unknown>): BatchState {
  const latest: BatchRow[] = records(raw.latest).map(r => ({
    label: text(r.label),
    status: text(r.status),
    text: text(r.text)
  }));
  const errors: BatchError[] = records(raw.errors).map(e => ({
    label: text(e.label),
    text: text(e.text)
  }));
  return {
    line: text(raw.line),
    finished: count(raw.finished),
    total: count(raw.total),
    outcome: text(raw.outcome),
    latest,
    errors
  };
}

function h(tag: string, cls?: string, content?: string): HTMLElement {
  const e = document.createElement(tag);
  if (cls) {
    e.className = cls;
  }
  if (content !== undefined) {
    e.textContent = content;
  }
  return e;
}

/** Draws `raw` (a saved `BatchState`) into `el`. */
export function drawBatch(raw: Record<string, unknown>, el: HTMLElement): void {
  const state = batchState(raw);
  const outcome = known(OUTCOMES, state.outcome);
  const root = el.appendChild(h('div', `ja-bp ja-bp-${outcome}`));
  const head = root.appendChild(h('div', 'ja-bp-head'));
  const bar = head.appendChild(h('div', 'ja-bp-bar'));
  const share = state.total ? Math.min(1, state.finished / state.total) : 0;
  bar.appendChild(h('div', 'ja-bp-fill')).style.width = `${(share * 100).toFixed(1)}%`;
  head.appendChild(h('span', 'ja-bp-line', state.line));
  head.appendChild(h('span', 'ja-bp-outcome', OUTCOME_WORDS[outcome] ?? ''));
  if (state.latest.length) {
    const table = root.appendChild(h('table', 'ja-bp-table'));
    const hr = table.appendChild(h('thead')).appendChild(h('tr'));
    for (const name of ['row', 'status', 'output']) {
      hr.appendChild(h('th', '', name));
    }
    const body = table.appendChild(h('tbody'));
    for (const row of state.latest) {
      const tr = body.appendChild(h('tr', 'ja-bp-row'));
      tr.appendChild(h('td', 'ja-bp-label', row.label));
      tr.appendChild(h('td', `ja-bp-status ja-bp-st-${known(STATUSES, row.status)}`, row.status));
      tr.appendChild(h('td', 'ja-bp-text', row.text));
    }
  }
  if (state.errors.length) {
    const box = root.appendChild(h('div', 'ja-bp-errors'));
    box.appendChild(h('div', 'ja-bp-errors-head', 'Latest errors:'));
    const list = box.appendChild(h('ul'));
    for (const error of state.errors) {
      list.appendChild(h('li', '', `${error.label}: ${error.text}`));
    }
  }
}
