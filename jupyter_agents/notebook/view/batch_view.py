"""A batch in a notebook: a live progress widget (counts, tokens, throughput, ETA, the latest
rows and errors, Stop) and, when rows wait for review, a review table (approve or reject per row
or for a selection, then resume them).

Built from ipywidgets' own widgets. Every text from a row (its output, its error, a tool's
arguments) is escaped before it reaches an HTML widget: it stays text. The progress widget's
output also holds its saved form (``saved_forms.py``), written when the batch starts, every
``SAVED_EVERY`` seconds while it runs and when it ends: the lab extension draws it when the
widget's model is gone (a notebook reopened without its kernel), other frontends show its HTML.
"""

from __future__ import annotations

import collections
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from ..._render import escape_html
from ...runtime.batch.progress import Tally
from ...runtime.batch.result import BatchResult, RowResult
from ...runtime.batch.run_batch import BatchControl
from ..saved import saved_forms
from ..saved.saved_forms import BatchState

__all__ = ["BatchView", "ReviewView"]

LATEST = 8
"""Rows shown in the table of the latest rows."""
SAVED_EVERY = 30.0
"""Seconds between two updates of the saved form while a batch runs (each update redraws the
output, and frontends without the lab extension draw the widget's view again)."""


class BatchView:
    """The progress widget; a ``jupyter_agents.runtime.batch.BatchProgress``."""

    def __init__(self, total: int, control: BatchControl | None = None, every: float = 0.2) -> None:
        import ipywidgets as w

        self.control = control or BatchControl()
        self.tally = Tally()
        self.every = every
        self._latest: collections.deque[tuple[Any, RowResult]] = collections.deque(maxlen=LATEST)
        self._errors: collections.deque[tuple[Any, str]] = collections.deque(maxlen=3)
        self._shown = 0.0
        self._saved = time.monotonic()
        self._final = False
        self._outcome = "running"
        self._lock = threading.Lock()
        self.bar = w.IntProgress(min=0, max=max(total, 1), description="", bar_style="info")
        self.summary = w.HTML(layout=w.Layout(flex="1 1 auto", margin="0 8px"))
        self.stop_button = w.Button(
            description="Stop", icon="stop", tooltip="Finish the rows in flight and start no more"
        )
        self.stop_button.on_click(lambda _b: self._stop())
        self.table = w.HTML()
        self.widget = w.VBox([w.HBox([self.bar, self.summary, self.stop_button]), self.table])
        self.widget.add_class("ja-batch")
        self.text = "batch: starting"
        """What a frontend without widgets shows (a headless run, a saved notebook)."""
        self._handle: Any = None

    def display(self) -> None:
        from IPython.display import display

        self._handle = display(_Bundle(self), display_id=True)

    # -- BatchProgress -------------------------------------------------------------------

    def start(self, total: int, done: list[RowResult]) -> None:
        if self._handle is None:  # shown once the batch starts (its arguments were checked)
            self.display()
        self.tally.begin(total, done)
        self.bar.max = max(total, 1)
        self._render(force=True)

    def row_started(self, index: int) -> None:
        pass

    def row_done(self, index: int, row: RowResult) -> None:
        with self._lock:
            self.tally.add(row)
            self._latest.appendleft((row.label, row))
            if row.error:
                self._errors.appendleft((row.label, row.error))
        self._render()

    def finish(self, seconds: float, stopped: bool) -> None:
        self.stop_button.disabled = True
        self.stop_button.description = "Stopped" if stopped else "Done"
        self._final = True
        failed = bool(self.tally.counts.get("failed"))
        self._outcome = "stopped" if stopped else ("failed" if failed else "done")
        self.bar.bar_style = {"stopped": "warning", "failed": "danger"}.get(
            self._outcome, "success"
        )
        note = "stopped: run the cell again to go on" if stopped else f"done in {seconds:.1f} s"
        self._render(force=True, note=note)
        if self._handle is not None:
            self._handle.update(_Bundle(self))

    # -- drawing -------------------------------------------------------------------------

    def _stop(self) -> None:
        self.control.stop()
        self.stop_button.disabled = True
        self.stop_button.description = "Stopping…"

    def _render(self, force: bool = False, note: str = "") -> None:
        now = time.monotonic()
        if not force and now - self._shown < self.every:
            return
        self._shown = now
        with self._lock:
            self.bar.value = self.tally.finished
            line = self.tally.line(final=self._final) + (f" · {note}" if note else "")
            self.text = f"batch: {line}"
            self.summary.value = f"<span>{escape_html(line)}</span>"
            rows = "".join(
                f"<tr><td>{escape_html(str(label))}</td><td>{escape_html(row.status)}</td>"
                f"<td>{escape_html(_short(row.output if row.error is None else row.error))}"
                "</td></tr>"
                for label, row in self._latest
            )
            errors = "".join(
                f"<li>{escape_html(str(label))}: {escape_html(_short(text, 160))}</li>"
                for label, text in self._errors
            )
        table = (
            '<table style="border-collapse: collapse; line-height: 1.3">'
            f"<tr><th>row</th><th>status</th><th>output</th></tr>{rows}</table>"
        )
        self.table.value = table + (f"<p>Latest errors:</p><ul>{errors}</ul>" if errors else "")
        if not self._final and self._handle is not None and now - self._saved >= SAVED_EVERY:
            self._saved = now
            self._handle.update(_Bundle(self))

    def saved_state(self) -> BatchState:
        """What the widget shows now, for the saved form."""
        with self._lock:
            return {
                "line": self.text.removeprefix("batch: "),
                "finished": self.tally.finished,
                "total": self.tally.total,
                "outcome": self._outcome,
                "latest": [
                    {
                        "label": str(label),
                        "status": row.status,
                        "text": _short(row.output if row.error is None else row.error),
                    }
                    for label, row in self._latest
                ],
                "errors": [
                    {"label": str(label), "text": _short(text, 160)} for label, text in self._errors
                ],
            }


class ReviewView:
    """The calls waiting for review: approve / reject per row or for a selection, then resume
    the decided rows (``on_result`` gets the new result)."""

    def __init__(self, result: BatchResult, on_result: Callable[[BatchResult], None]) -> None:
        import ipywidgets as w

        self.result = result
        self.on_result = on_result
        self.checks: dict[str, Any] = {}
        self.states: dict[str, Any] = {}
        lines = []
        for row in result.waiting:
            check = w.Checkbox(value=False, indent=False, layout=w.Layout(width="28px"))
            calls = "; ".join(
                f"asks: {c['question']}"
                if "question" in c
                else f"{c['tool']}({json.dumps(c['arguments'], ensure_ascii=False)})"
                for c in row.waiting or ()
            )
            label = w.HTML(
                f"<b>{escape_html(str(row.label))}</b> {escape_html(_short(calls, 200))}"
            )
            state = w.HTML("waiting")
            approve = w.Button(description="Approve", button_style="primary")
            reject = w.Button(description="Reject")
            approve.on_click(lambda _b, key=row.key: self._decide([key], True))
            reject.on_click(lambda _b, key=row.key: self._decide([key], False))
            self.checks[row.key], self.states[row.key] = check, state
            lines.append(w.HBox([check, approve, reject, state, label]))
        approve_all = w.Button(description="Approve selected", button_style="primary")
        reject_all = w.Button(description="Reject selected")
        self.resume_button = w.Button(description="Resume decided rows", button_style="success")
        approve_all.on_click(lambda _b: self._decide(self._selected(), True))
        reject_all.on_click(lambda _b: self._decide(self._selected(), False))
        self.resume_button.on_click(lambda _b: self._resume())
        self.note = w.HTML(f"{len(lines)} row(s) wait for review.")
        self.out = w.Output()
        self.widget = w.VBox(
            [self.note, *lines, w.HBox([approve_all, reject_all, self.resume_button]), self.out]
        )

    def display(self) -> None:
        from IPython.display import display

        display(self.widget)

    def _selected(self) -> list[str]:
        return [key for key, check in self.checks.items() if check.value]

    def _decide(self, keys: list[str], approved: bool) -> None:
        if not keys:
            self.note.value = "Select rows first (the boxes on the left)."
            return
        if approved:
            self.result.approve(keys)
        else:
            self.result.reject(keys, message="rejected in review")
        for key in keys:
            self.states[key].value = "approved" if approved else "rejected"

    def _resume(self) -> None:
        if not self.result.decisions:
            self.note.value = "Approve or reject some rows first."
            return
        self.resume_button.disabled = True
        self.note.value = f"Resuming {len(self.result.decisions)} row(s)…"
        new = self.result.resume()
        self.note.value = f"Resumed: {escape_html(repr(new))}"
        with self.out:  # the new table shows here, under the review
            self.on_result(new)


class _Bundle:
    """The progress widget with its saved form (``saved_forms.py``) and text."""

    def __init__(self, view: BatchView) -> None:
        self.view = view

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        view = self.view
        return saved_forms.batch_bundle(view.saved_state(), view.text, view.widget.model_id)


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
