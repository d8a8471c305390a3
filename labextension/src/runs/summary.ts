/** Words and numbers shown for runs: the status bar texts, elapsed times, the modes. */
import { Mode } from './contract';
import { ACTIVE, RunInfo } from './protocol';

export interface Counts {
  running: number;
  waiting: number;
}

/** How many runs are going, and how many of them wait for a decision. */
export function countRuns(runs: Iterable<RunInfo>): Counts {
  const counts = { running: 0, waiting: 0 };
  for (const run of runs) {
    if (!ACTIVE.has(run.status)) {
      continue;
    }
    counts.running += 1;
    if (run.pending.length > 0) {
      counts.waiting += 1;
    }
  }
  return counts;
}

/** "2 running · 1 waiting", "1 running", or "" when nothing runs. */
export function statusText(counts: Counts): string {
  if (counts.running === 0) {
    return '';
  }
  const running = `${counts.running} running`;
  return counts.waiting > 0 ? `${running} · ${counts.waiting} waiting` : running;
}

/** "3/7" (completed of all steps) when the run has a plan with steps, else "". */
export function planText(run: RunInfo): string {
  const plan = run.plan;
  return plan && plan.total > 0 ? `${plan.completed}/${plan.total}` : '';
}

/** "0.4 s", "12 s", "3 min 04 s", "2 h 05 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s < 10) {
    return `${s.toFixed(1)} s`;
  }
  if (s < 60) {
    return `${Math.floor(s)} s`;
  }
  if (s < 3600) {
    const rest = String(Math.floor(s % 60)).padStart(2, '0');
    return `${Math.floor(s / 60)} min ${rest} s`;
  }
  const minutes = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  return `${Math.floor(s / 3600)} h ${minutes} min`;
}

/** The run's elapsed time at `now` (seconds since the epoch). */
export function elapsed(run: RunInfo, now: number): string {
  return duration((run.ended ?? now) - run.started);
}

/** "waiting for the model at api.openai.com · 12 s": what a run waits for, and for how long at
 * `now` (seconds since the epoch). */
export function waitText(wait: { text: string; since: number }, now: number): string {
  const seconds = Math.max(0, Math.floor(now - wait.since / 1000));
  return `${wait.text} · ${seconds < 60 ? `${seconds} s` : duration(seconds)}`;
}

/** Words for a status. */
export const STATUS_LABELS: Record<string, string> = {
  running: 'running',
  waiting: 'waiting for approval',
  background: 'in background',
  done: 'done',
  failed: 'failed',
  cancelled: 'stopped',
  'cut off': 'cut off by a restart',
  resumed: 'resumed'
};

/** What each mode lets the notebook's agent do (the status bar item's and commands' captions;
 * the run widget's mode badge says the same). */
export const MODE_CAPTIONS: Record<Mode, string> = {
  ask: 'Ask mode: the agent only reads; tools that change something are refused',
  plan: 'Plan mode: the agent reads, then proposes a plan for you to approve before it acts',
  agent: 'Agent mode: the agent acts, under the approval and sandbox policies'
};

/** "Mode: plan", or "" when the notebook's kernel has no agent (no mode). */
export function modeText(mode: Mode | null): string {
  return mode ? `Mode: ${mode}` : '';
}
