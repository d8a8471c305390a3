"""Batch runs: one agent over every row of a table (see ``run_batch``)."""

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
    "run_batch",
]
