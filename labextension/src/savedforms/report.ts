/**
 * A saved evaluation report or comparison (`ReportState`, ../evalreport/state.d.ts), read
 * defensively before the report widget's own code draws it: a field of the wrong type (a crafted
 * or damaged file, or another version's) becomes an empty value of the right type, so the
 * report still draws. The widget maps the values that pick classes (a case's status and change)
 * to known ones itself.
 */
import type {
  CaseRow,
  ReportState,
  ScoreCell,
  ScorerRow,
  ToolRow
} from '../evalreport/state';

const text = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';

const number = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const records = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter(isRecord) : [];

function cells(value: unknown): Record<string, ScoreCell> {
  const found: Record<string, ScoreCell> = {};
  if (!isRecord(value)) {
    return found;
  }
  for (const [name, cell] of Object.entries(value)) {
    if (isRecord(cell)) {
      const ok = typeof cell.ok === 'boolean' ? cell.ok : null;
      found[name] = { shown: text(cell.shown), ok, reason: text(cell.reason) };
    }
  }
  return found;
}

function caseRow(raw: Record<string, unknown>, index: number): CaseRow {
  const tools: ToolRow[] = records(raw.tools).map(t => ({
    name: text(t.name),
    arguments: text(t.arguments),
    status: text(t.status)
  }));
  return {
    key: text(raw.key) || `case-${index}`,
    name: text(raw.name),
    status: text(raw.status),
    change: text(raw.change),
    input: text(raw.input),
    expected: text(raw.expected),
    output: text(raw.output),
    scores: cells(raw.scores),
    scores_b: cells(raw.scores_b),
    output_b: text(raw.output_b),
    seconds: number(raw.seconds) ?? 0,
    cost: number(raw.cost),
    error: text(raw.error),
    tools
  };
}

/** The saved state with every field of the type the report widget reads. */
export function reportState(raw: Record<string, unknown>): ReportState {
  const scorers: ScorerRow[] = records(raw.scorers).map(s => ({
    name: text(s.name),
    kind: text(s.kind),
    a: number(s.a),
    b: number(s.b),
    delta: number(s.delta)
  }));
  const cases = records(raw.cases).map(caseRow);
  return {
    mode: raw.mode === 'compare' ? 'compare' : 'report',
    title: text(raw.title),
    summary: text(raw.summary),
    scorers,
    cases,
    total: Math.max(number(raw.total) ?? 0, cases.length)
  };
}
