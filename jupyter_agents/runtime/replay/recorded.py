"""A tool call answered from a recording (kept apart so the run loop need not import the
model side of replay)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["RecordedOutput"]


@dataclass(frozen=True)
class RecordedOutput:
    """A tool call answered from the recording: the output item the model got, and what its
    card showed."""

    item: dict[str, Any]
    shown: Any
