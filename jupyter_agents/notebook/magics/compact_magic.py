"""``%agent compact [AGENT]``: compact a conversation of this notebook now. Its older part
becomes a summary the notebook's model writes (``runtime/compaction.py``), which later turns are
given instead; the most recent items stay as they are, and the original items stay in the
conversation's session. Runs also compact on their own when they near the model's window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.error import UsageError

if TYPE_CHECKING:
    from ..host import NotebookHost

__all__ = ["compact_magic"]

KEEP = 8
"""Items kept as they are at the end of the conversation."""


def compact_magic(host: NotebookHost, words: list[str]) -> None:
    """Compact the conversation of ``words[0]`` (default: the notebook agent's)."""
    from ...runtime.blocking import run_blocking
    from ...runtime.compaction import Compaction, split_point, summarize
    from ...runtime.errors import UserError
    from ...runtime.models.interface import Model
    from ...runtime.models.multi_provider import MultiProvider

    if len(words) > 1:
        raise UsageError("Usage: %agent compact [AGENT]")
    name = words[0] if words else "notebook"
    conversation = host.conversation(name)
    items = run_blocking(conversation.items())
    start = conversation.summary[0] if conversation.summary is not None else 0
    cut = split_point(items, KEEP)
    if cut <= start:
        print(f"jupyter_agents: the {name!r} conversation is too short to compact.")
        return
    chosen = host.model
    model = chosen if isinstance(chosen, Model) else MultiProvider().get_model(chosen)
    older = items[:cut]
    if conversation.summary is not None:  # the summary so far stands for the items before it
        older = [{"role": "user", "content": conversation.summary[1]}, *items[start:cut]]
    try:
        text = run_blocking(summarize(model, Compaction(), older))
    except UserError as e:
        raise UsageError(f"%agent compact: {e}") from None
    conversation.summary = (cut, text)
    print(
        f"jupyter_agents: compacted the {name!r} conversation: its first {cut} items are now a "
        f"summary, the last {len(items) - cut} stay as they are (the originals stay in the "
        "conversation's session)."
    )
