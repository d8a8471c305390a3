/**
 * The `jupyter_agents.runs` comm between a kernel and this extension (the kernel side is
 * `jupyter_agents/notebook/runs_comm.py`; the messages are typed in `./contract`, generated from
 * `jupyter_agents/notebook/runs_contract.py`). Everything a kernel sends is checked here before
 * use: a field of the wrong type drops the message.
 */

import { isObject, isOneOf, Untrusted } from '../untrusted';
import {
  ACTIVE as ACTIVE_STATUSES,
  BackgroundCall,
  Decided,
  ModeChanged,
  MODES,
  PendingCall,
  PlanProgress,
  RunChanged,
  RunReport,
  Snapshot,
  ViewRef,
  Wait,
  WAITS_FOR
} from './contract';

/** One `%%agent` run as the kernel reports it (`RunReport`), as this extension keeps it. */
export interface RunInfo extends Omit<RunReport, 'plan' | 'wait' | 'background_calls' | 'resume'> {
  /** A run a kernel restart or crash cut off: the id `%agent resume` takes (32 hex). */
  resume?: string;
  /** Left out until the run has a plan. */
  plan?: PlanProgress;
  /** What the run waits for, from 5 s into a wait until it ends; left out otherwise. */
  wait?: Wait;
  /** Tool calls still running in the background after the run stopped waiting for them (a
   * plain function's thread cannot be stopped); left out when there are none. */
  background?: BackgroundCall[];
}

export type KernelMessage =
  | { type: Snapshot['type']; runs: RunInfo[] }
  | { type: RunChanged['type']; run: RunInfo }
  | Decided
  | ModeChanged;

const isString = (x: unknown): x is string => typeof x === 'string';
const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function parsePending(received: unknown): PendingCall | null {
  if (!isObject(received)) {
    return null;
  }
  const x: Untrusted<PendingCall> = received;
  const { request, call, tool } = x;
  if (!isString(request) || !isString(call) || !isString(tool)) {
    return null;
  }
  const args = isString(x.arguments) ? x.arguments : '';
  const pending: PendingCall = { request, call, tool, arguments: args };
  if (isString(x.question)) {
    pending.question = x.question;
  }
  if (x.on_card === true) {
    pending.on_card = true;
  }
  if (x.plan === true) {
    pending.on_card = pending.plan = true; // a plan is approved on its card, never elsewhere
  }
  return pending;
}

/** A plan's progress, or null when there is none (or it is malformed). */
function parsePlan(received: unknown): PlanProgress | null {
  if (!isObject(received)) {
    return null;
  }
  const x: Untrusted<PlanProgress> = received;
  if (!isNumber(x.completed) || !isNumber(x.total)) {
    return null;
  }
  const current = isString(x.current) ? x.current : null;
  return { completed: x.completed, total: x.total, current };
}

/** What a run waits for, or null when it waits for nothing (or the field is malformed). */
function parseWait(received: unknown): Wait | null {
  if (!isObject(received)) {
    return null;
  }
  const x: Untrusted<Wait> = received;
  if (!isString(x.text) || !isNumber(x.since)) {
    return null;
  }
  const on = x.on;
  return isOneOf(WAITS_FOR, on) ? { on, text: x.text, since: x.since } : null;
}

const ID = /^[0-9a-f]{32}$/; // a widget model id or a display id: uuid4().hex

/** Where a run's card is, or null when it has none (or the field is malformed). */
function parseView(received: unknown): ViewRef | null {
  if (!isObject(received)) {
    return null;
  }
  const x: Untrusted<ViewRef> = received;
  const { model, display, client } = x;
  if (!isString(model) || !ID.test(model) || !isString(display) || !ID.test(display)) {
    return null;
  }
  return { model, display, client: isString(client) ? client.slice(0, 200) : '' };
}

/** A run reported by a kernel, or null when it is malformed. */
export function parseRun(received: unknown): RunInfo | null {
  if (!isObject(received)) {
    return null;
  }
  const x: Untrusted<RunReport> = received;
  const { id, cell, agent, model, status, started } = x;
  if (
    !isString(id) ||
    !isString(cell) ||
    !isString(agent) ||
    !isString(model) ||
    !isString(status) ||
    !isNumber(started)
  ) {
    return null;
  }
  const pending = Array.isArray(x.pending) ? x.pending.map(parsePending) : [];
  if (pending.some(p => p === null)) {
    return null;
  }
  const run: RunInfo = {
    id,
    cell,
    agent,
    model,
    status,
    started,
    ended: isNumber(x.ended) ? x.ended : null,
    tokens: isNumber(x.tokens) ? x.tokens : 0,
    cost: typeof x.cost === 'string' ? x.cost : null,
    tool_calls: isNumber(x.tool_calls) ? x.tool_calls : 0,
    pending: pending.filter((p): p is PendingCall => p !== null),
    view: parseView(x.view)
  };
  const plan = parsePlan(x.plan);
  if (plan) {
    run.plan = plan;
  }
  const wait = parseWait(x.wait);
  if (wait) {
    run.wait = wait;
  }
  if (isString(x.resume) && ID.test(x.resume)) {
    run.resume = x.resume;
  }
  const background = Array.isArray(x.background_calls)
    ? x.background_calls.filter(
        (c): c is BackgroundCall => isObject(c) && isString(c.call) && isString(c.tool)
      )
    : [];
  if (background.length > 0) {
    run.background = background.map(({ call, tool }) => ({ call, tool }));
  }
  return run;
}

/** A message from a kernel, or null when it is unknown or malformed. */
export function parseMessage(received: unknown): KernelMessage | null {
  if (!isObject(received)) {
    return null;
  }
  const data: Untrusted<Snapshot> &
    Untrusted<RunChanged> &
    Untrusted<Decided> &
    Untrusted<ModeChanged> = received;
  if (data.type === 'snapshot' && Array.isArray(data.runs)) {
    const runs = data.runs.map(parseRun);
    const kept = runs.filter((r): r is RunInfo => r !== null);
    return kept.length === runs.length ? { type: 'snapshot', runs: kept } : null;
  }
  if (data.type === 'run') {
    const run = parseRun(data.run);
    return run && { type: 'run', run };
  }
  if (data.type === 'decided' && isString(data.run) && isString(data.request)) {
    return { type: 'decided', run: data.run, request: data.request, ok: data.ok === true };
  }
  if (data.type === 'mode') {
    const mode = data.mode;
    return isOneOf(MODES, mode) ? { type: 'mode', mode } : null;
  }
  return null;
}

/** Runs that have not ended. */
export const ACTIVE = new Set<string>(ACTIVE_STATUSES);
