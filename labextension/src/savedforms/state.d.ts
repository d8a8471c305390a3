// The saved form of a batch's progress: written by jupyter_agents/notebook/saved/saved_forms.py
// (`BatchState`, made by batch_view.py); a test checks the Python TypedDicts against these
// names. Every string in it is untrusted text (a row's label, output or error).

export interface BatchRow {
  label: string;
  /** "ok", "failed", "rejected", "waiting" or "pending". */
  status: string;
  /** The row's output, or its error (short, on one line). */
  text: string;
}

export interface BatchError {
  label: string;
  text: string;
}

export interface BatchState {
  /** The progress line ("120/300 rows · 2 failed · ..."). */
  line: string;
  /** Rows finished (the bar's value). */
  finished: number;
  /** Rows in the batch. */
  total: number;
  /** "running", "done", "failed" (done with failed rows) or "stopped". */
  outcome: string;
  /** The latest rows, newest first. */
  latest: BatchRow[];
  /** The latest errors, newest first. */
  errors: BatchError[];
}
