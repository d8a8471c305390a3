"""Batch runs: one agent over every row of a table (see ``run_batch``).

Names are imported from their modules on first use: the notebook extension sets the progress
widget (``progress.set_notebook_progress``) when it loads, without importing the batch driver.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._ray_pool import release_ray_actors, warm_ray_actors
    from .budget import CostProjection
    from .limits import AdaptiveConcurrency, RateLimiter
    from .progress import BatchProgress, NoProgress, TextProgress
    from .result import BatchResult, RowResult, RowStatus
    from .run_batch import BatchControl, arun_batch, run_batch
    from .store import ResultsStore

__all__ = [
    "AdaptiveConcurrency",
    "BatchControl",
    "BatchProgress",
    "BatchResult",
    "CostProjection",
    "NoProgress",
    "RateLimiter",
    "ResultsStore",
    "RowResult",
    "RowStatus",
    "TextProgress",
    "arun_batch",
    "release_ray_actors",
    "run_batch",
    "warm_ray_actors",
]

_HOME = {
    "release_ray_actors": "_ray_pool",
    "warm_ray_actors": "_ray_pool",
    "CostProjection": "budget",
    "AdaptiveConcurrency": "limits",
    "RateLimiter": "limits",
    "BatchProgress": "progress",
    "NoProgress": "progress",
    "TextProgress": "progress",
    "BatchResult": "result",
    "RowResult": "result",
    "RowStatus": "result",
    "BatchControl": "run_batch",
    "arun_batch": "run_batch",
    "run_batch": "run_batch",
    "ResultsStore": "store",
}
"""Each name -> the module of this package that defines it."""


class _Package(types.ModuleType):
    """This package, whose function ``run_batch`` shares its name with a submodule: importing
    the submodule (``from .batch.run_batch import ...``) makes it an attribute of its package,
    which would hide the function; the function stays."""

    def __setattr__(self, name: str, value: Any) -> None:
        if not (name in _HOME and isinstance(value, types.ModuleType)):
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    if name not in _HOME:  # a submodule not imported yet: ``from .batch import store`` imports it
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
