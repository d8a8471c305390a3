"""Batch runs: one agent over every row of a table (see ``run_batch``)."""

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
