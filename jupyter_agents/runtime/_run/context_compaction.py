"""The run's side of compaction (``runtime/compaction.py``): before a model call, compact the
conversation the run sends when it would pass its share of the model's context window."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..compaction import (
    SUMMARY_PREFIX,
    Compacted,
    Compaction,
    estimate_tokens,
    known_window,
    split_point,
    summarize,
)

if TYPE_CHECKING:
    from ..models.interface import Model
    from .progress import RunProgress

__all__ = ["compact_if_needed"]


async def compact_if_needed(
    progress: RunProgress,
    compaction: Compaction,
    model: Model,
    model_name: str,
    instructions: str | None,
    tools: list[Any],
    summarizer: Callable[[], Model],
) -> Compacted | None:
    """Compact ``progress.model_input`` when the request it makes would pass the threshold;
    what was done (None: nothing was: under the threshold, a window nobody knows, or nothing
    older than the recent items to compact)."""
    window = compaction.window or known_window(model_name)
    if window is None:
        return None
    items = progress.model_input
    before = estimate_tokens(instructions, items, tools)
    if before <= compaction.threshold * window:
        return None
    cut = split_point(items, compaction.keep_recent)
    if cut == 0:
        return None
    summary = await summarize(
        summarizer() if compaction.model is not None else model, compaction, items[:cut]
    )
    progress.model_input = [{"role": "user", "content": SUMMARY_PREFIX + summary}, *items[cut:]]
    after = estimate_tokens(instructions, progress.model_input, tools)
    return Compacted(len(items), len(progress.model_input), before, after, window, summary)
