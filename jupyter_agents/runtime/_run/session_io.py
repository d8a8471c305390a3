"""A run's session: its history before the run, its new items after a finished run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._util import call_maybe_async
from ..errors import UserError
from ..sessions.settings import SessionSettings, history_limit

if TYPE_CHECKING:
    from ..items import TResponseInputItem
    from ..run_config import SessionInputCallback
    from ..sessions import Session
    from .progress import RunProgress

__all__ = ["load_session", "own_input", "save_session"]


async def load_session(
    session: Session,
    progress: RunProgress,
    new_input: list[TResponseInputItem],
    merge: SessionInputCallback | None,
    settings: SessionSettings | None = None,
) -> None:
    """Put the session's history in front of the run's ``new_input`` (``merge``, the run's
    ``session_input_callback``, may combine them otherwise). ``settings`` (the run's
    ``session_settings``) may limit how much history is loaded."""
    limit = history_limit(session, settings)
    history = await (session.get_items() if limit is None else session.get_items(limit))
    if merge is not None:
        merged = await call_maybe_async(merge, list(history), list(new_input))
        if not isinstance(merged, list):
            raise UserError("session_input_callback must return a list of input items.")
    else:
        merged = [*history, *new_input]
    progress.original_input = merged
    progress.model_input = list(merged)
    if merge is None:
        progress.history_length = len(history)
    else:  # the callback decided: what is not the new input counts as history
        progress.history_length = max(0, len(merged) - len(new_input))


def own_input(progress: RunProgress) -> list[TResponseInputItem]:
    """The run's own input, without the session history in front of it (what a resumed run
    saves to its session when it finishes)."""
    original = progress.original_input
    return [] if isinstance(original, str) else list(original[progress.history_length :])


async def save_session(
    session: Session, new_input: list[TResponseInputItem], progress: RunProgress
) -> None:
    """Save the run's new input and items, all at once (for a finished run only)."""
    items = [*new_input, *(item.to_input_item() for item in progress.new_items)]
    await session.add_items(items)
