"""How a batch shows its progress: a text line (a terminal, a headless run), nothing, or a
notebook widget (the notebook layer registers it: the runtime imports no notebook code)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, Protocol, TextIO

from ..errors import UserError
from .result import RowResult

__all__ = [
    "BatchProgress",
    "NoProgress",
    "TextProgress",
    "progress_for",
    "set_notebook_progress",
]


class BatchProgress(Protocol):
    """What a batch tells whoever shows it (called on the batch's loop)."""

    def start(self, total: int, done: list[RowResult]) -> None:
        """The batch begins; ``done`` are rows the store already had."""

    def row_started(self, index: int) -> None:
        """Row ``index`` began."""

    def row_done(self, index: int, row: RowResult) -> None:
        """Row ``index`` finished (any status)."""

    def finish(self, seconds: float, stopped: bool) -> None:
        """The batch ended (``stopped``: before every row ran)."""


class NoProgress:
    """Shows nothing."""

    def start(self, total: int, done: list[RowResult]) -> None:
        pass

    def row_started(self, index: int) -> None:
        pass

    def row_done(self, index: int, row: RowResult) -> None:
        pass

    def finish(self, seconds: float, stopped: bool) -> None:
        pass


class Tally:
    """Counts, tokens, throughput and ETA, shared by every way of showing progress."""

    def __init__(self) -> None:
        self.total = 0
        self.counts: dict[str, int] = {}
        self.tokens = 0
        self.ran = 0
        self.started = time.monotonic()

    def begin(self, total: int, done: list[RowResult]) -> None:
        self.total = total
        self.started = time.monotonic()
        for row in done:
            self.add(row, ran=False)

    def add(self, row: RowResult, ran: bool = True) -> None:
        self.counts[row.status] = self.counts.get(row.status, 0) + 1
        self.tokens += row.tokens
        self.ran += ran

    @property
    def finished(self) -> int:
        return sum(self.counts.values())

    def rate(self) -> float:
        """Rows per second this run."""
        elapsed = time.monotonic() - self.started
        return self.ran / elapsed if elapsed > 0 else 0.0

    def eta(self) -> float | None:
        """Seconds left at the current rate (None before any row ran)."""
        rate = self.rate()
        return (self.total - self.finished) / rate if rate > 0 else None

    def line(self, final: bool = False) -> str:
        eta = None if final else self.eta()
        parts = [f"{self.finished}/{self.total} rows"]
        parts += [f"{n} {s}" for s, n in sorted(self.counts.items()) if s != "ok"]
        stored = self.finished - self.ran
        if stored:
            parts.append(f"{stored} from the store")
        parts.append(f"{self.tokens:,} tokens")
        if self.ran or not stored:
            parts.append(f"{self.rate():.1f} rows/s")
        if eta is not None and self.finished < self.total:
            parts.append(f"ETA {_duration(eta)}")
        return " · ".join(parts)


class TextProgress:
    """A ``tqdm``-style line, rewritten in place on a terminal and printed now and then
    elsewhere (a log, a headless run)."""

    def __init__(self, stream: TextIO | None = None, every: float = 1.0) -> None:
        self.stream = stream or sys.stderr
        self.every = every
        self.tally = Tally()
        self._shown = 0.0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def start(self, total: int, done: list[RowResult]) -> None:
        self.tally.begin(total, done)
        self._show(force=True)

    def row_started(self, index: int) -> None:
        pass

    def row_done(self, index: int, row: RowResult) -> None:
        self.tally.add(row)
        self._show()

    def finish(self, seconds: float, stopped: bool) -> None:
        end = " (stopped)" if stopped else ""
        self._show(force=True, end=f" · {_duration(seconds)}{end}\n")

    def _show(self, force: bool = False, end: str = "") -> None:
        now = time.monotonic()
        if not force and now - self._shown < self.every:
            return
        self._shown = now
        text = "batch: " + self.tally.line() + end
        if self._tty:
            self.stream.write("\r\x1b[2K" + text)
        else:
            self.stream.write(text + ("" if end else "\n"))
        self.stream.flush()


_notebook_factory: Callable[[int, Any], BatchProgress] | None = None


def set_notebook_progress(factory: Callable[[int, Any], BatchProgress] | None) -> None:
    """The notebook layer's progress widget, used by ``progress="auto"`` in a kernel."""
    global _notebook_factory
    _notebook_factory = factory


def progress_for(progress: Any, total: int, control: Any = None) -> BatchProgress:
    """The progress display ``run_batch(progress=...)`` asks for."""
    if progress is None or progress is False:
        return NoProgress()
    if progress == "text":
        return TextProgress()
    if progress == "auto":
        if _notebook_factory is not None and "ipykernel" in sys.modules:
            return _notebook_factory(total, control)
        return TextProgress()
    if all(hasattr(progress, m) for m in ("start", "row_started", "row_done", "finish")):
        return progress  # type: ignore[no-any-return]
    raise UserError(
        f"run_batch: progress must be 'auto', 'text', None or a BatchProgress, got {progress!r}."
    )


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
