"""Durable runs: a run's journal saved after every step, and resuming a run cut off by a crash
(see ``journal``)."""

from .journal import DEFAULT_JOURNAL, CutOffRun, JournalRun, RunJournal

__all__ = ["DEFAULT_JOURNAL", "CutOffRun", "JournalRun", "RunJournal"]
