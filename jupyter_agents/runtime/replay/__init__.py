"""Recorded runs and their replay: ``RunConfig(replay=Cassette(path, mode=...))`` records
every run, and replays a recording instead of calling the model when a run's inputs are the
same (see ``.cassette``). ``RunReplay`` and ``ReplayModel`` (the run's side) load on first
use: they need the OpenAI types, which the runtime does not import until a model runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cassette import Cassette, ReplayMismatch, ReplayMode
from .recorded import RecordedOutput

if TYPE_CHECKING:
    from .run_replay import ReplayModel, RunReplay

__all__ = ["Cassette", "RecordedOutput", "ReplayMismatch", "ReplayMode", "ReplayModel", "RunReplay"]


def __getattr__(name: str) -> Any:
    if name in ("ReplayModel", "RunReplay"):
        from . import run_replay

        return getattr(run_replay, name)
    raise AttributeError(name)
