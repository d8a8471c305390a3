/**
 * The `jupyter_agents.runs` comm between a kernel and this extension (the kernel side and the
 * message list are in `jupyter_agents/notebook/runs_comm.py`). Everything a kernel sends is
 * checked here before use: a field of the wrong type drops the message.
 */

export const TARGET = 'jupyter_agents.runs';

/** A call waiting for a person's decision. */
export interface PendingCall {
  request: string;
  call: string;
  tool: string;
  arguments: string;
  /** Set for a question (`ask_user`, an MCP server's): it is answered in its cell's form. */
  question?: string;
  /** Set for a call whose card alone shows what it does (the notebook's cell tools: the code
   * that would run is not in its arguments): it is approved on its card, never from here. */
  on_card?: boolean;
}

/** How far a run's plan (the model's `update_plan` checklist) is. */
export interface PlanProgress {
  completed: number;
  total: number;
  /** The step in progress, if one is. */
  current: string | null;
}

/** One `%%agent` run as the kernel reports it. */
export interface RunInfo {
  id: string;
  cell: string;
  agent: string;
  model: string;
  status: string;
  /** Wall-clock start, in seconds since the epoch. */
  started: number;
  ended: number | null;
  tokens: number;
  /** What the run cost so far, as shown ("$0.0123", "price unknown"); null before a call. */
  cost: string | null;
  tool_calls: number;
  pending: PendingCall[];
  /** Left out until the run has a plan. */
  plan?: PlanProgress;
  /** What the run waits for, from 5 s into a wait until it ends; left out otherwise. */
  wait?: RunWait;
  /** Tool calls still running in the background after the run stopped waiting for them (a
   * plain function's thread cannot be stopped); left out when there are none. */
  background?: BackgroundCall[];
}

/** A tool call that goes on in the background until its function really ends. */
export interface BackgroundCall {
  call: string;
  tool: string;
}

/** What a run waits for: the model, a tool or the person (`text` says which and where), since
 * `since` (epoch ms; a view adds the time since then). */
export interface RunWait {
  on: 'model' | 'tool' | 'person';
  text: string;
  since: number;
}

export type KernelMessage =
  | { type: 'snapshot'; runs: RunInfo[] }
  | { type: 'run'; run: RunInfo }
  | { type: 'decided'; run: string; request: string; ok: boolean };

const isString = (x: unknown): x is string => typeof x === 'string';
const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

function parsePending(x: unknown): PendingCall | null {
  if (!isObject(x)) {
    return null;
  }
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
  return pending;
}

/** A plan's progress, or null when there is none (or it is malformed). */
function parsePlan(x: unknown): PlanProgress | null {
  if (!isObject(x) || !isNumber(x.completed) || !isNumber(x.total)) {
    return null;
  }
  const current = isString(x.current) ? x.current : null;
  return { completed: x.completed, total: x.total, current };
}

const WAITS: ReadonlyArray<RunWait['on']> = ['model', 'tool', 'person'];

/** What a run waits for, or null when it waits for nothing (or the field is malformed). */
function parseWait(x: unknown): RunWait | null {
  if (!isObject(x) || !isString(x.text) || !isNumber(x.since)) {
    return null;
  }
  const on = WAITS.find(w => w === x.on);
  return on ? { on, text: x.text, since: x.since } : null;
}

/** A run reported by a kernel, or null when it is malformed. */
export function parseRun(x: unknown): RunInfo | null {
  if (!isObject(x)) {
    return null;
  }
  const { id, cell, agent, model, status, started } = x;
  if (![id, cell, agent, model, status].every(isString) || !isNumber(started)) {
    return null;
  }
  const pending = Array.isArray(x.pending) ? x.pending.map(parsePending) : [];
  if (pending.some(p => p === null)) {
    return null;
  }
  const run: RunInfo = {
    id: id as string,
    cell: cell as string,
    agent: agent as string,
    model: model as string,
    status: status as string,
    started,
    ended: isNumber(x.ended) ? x.ended : null,
    tokens: isNumber(x.tokens) ? x.tokens : 0,
    cost: typeof x.cost === 'string' ? x.cost : null,
    tool_calls: isNumber(x.tool_calls) ? x.tool_calls : 0,
    pending: pending as PendingCall[]
  };
  const plan = parsePlan(x.plan);
  if (plan) {
    run.plan = plan;
  }
  const wait = parseWait(x.wait);
  if (wait) {
    run.wait = wait;
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
export function parseMessage(data: unknown): KernelMessage | null {
  if (!isObject(data)) {
    return null;
  }
  if (data.type === 'snapshot' && Array.isArray(data.runs)) {
    const runs = data.runs.map(parseRun);
    return runs.every(r => r !== null) ? { type: 'snapshot', runs: runs as RunInfo[] } : null;
  }
  if (data.type === 'run') {
    const run = parseRun(data.run);
    return run && { type: 'run', run };
  }
  if (data.type === 'decided' && isString(data.run) && isString(data.request)) {
    return { type: 'decided', run: data.run, request: data.request, ok: data.ok === true };
  }
  return null;
}

/** Runs that have not ended. */
export const ACTIVE = new Set(['running', 'waiting', 'background']);
