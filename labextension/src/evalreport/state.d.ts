// The state the eval report widget reads: written by jupyter_agents/notebook/view/eval_view.py
// (`report_state`, `comparison_state`); a test checks a real report's state against these
// names. Every string in it is untrusted text (a model's output, a dataset's input).

export type Mode = "report" | "compare";

export interface ScorerRow {
  name: string;
  /** "assertion" (pass rate), "score" (mean) or "label". */
  kind: string;
  /** Report: the average. Compare: report A's average. */
  a: number | null;
  /** Compare only: report B's average. */
  b: number | null;
  delta: number | null;
}

export interface ScoreCell {
  /** As shown: "✓", "✗", "0.83", or a label. */
  shown: string;
  /** true: pass or better, false: fail or worse, null: neither. */
  ok: boolean | null;
  reason: string;
}

export interface ToolRow {
  name: string;
  arguments: string;
  status: string;
}

export interface CaseRow {
  key: string;
  name: string;
  /** "pass", "fail" (an assertion failed) or "error" (no output). */
  status: string;
  /** Compare only: "worse", "better", "changed" or "same". */
  change: string;
  input: string;
  expected: string;
  output: string;
  /** Report: scores by scorer. Compare: report A's. */
  scores: Record<string, ScoreCell>;
  /** Compare only: report B's scores. */
  scores_b: Record<string, ScoreCell>;
  /** Compare only: report B's output. */
  output_b: string;
  seconds: number;
  cost: number | null;
  error: string;
  tools: ToolRow[];
}

export interface ReportState {
  mode: Mode;
  title: string;
  summary: string;
  scorers: ScorerRow[];
  cases: CaseRow[];
  /** How many cases the report has (the list may be cut to the first ones). */
  total: number;
}
