"""A run's session: its history before the run, its new items after a finished run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._util import call_maybe_async
from ..errors import UserError

if TYPE_CHECKING:
    from ..sessions import Session
    from .loop import RunLoop

__all__ = ["load_session", "save_session"]


async def load_session(loop: RunLoop, session: Session) -> None:
    """Put the session's history in front of the new input. A resumed run already has it:
    only what it must save is worked out."""
    if loop.resumed:
        original = loop.progress.original_input
        items = [] if isinstance(original, str) else original
        loop.new_input = list(items[loop.progress.history_length :])
        return
    history = await session.get_items()
    merge = loop.run_config.session_input_callback
    if merge is not None:
        merged = await call_maybe_async(merge, list(history), list(loop.new_input))
        if not isinstance(merged, list):
            raise UserError("session_input_callback must return a list of input items.")
    else:
        merged = [*history, *loop.new_input]
    loop.progress.original_input = merged
    loop.progress.model_input = list(merged)
    if merge is None:
        loop.progress.history_length = len(history)
    else:  # the callback decided: what is not the new input counts as history
        loop.progress.history_length = max(0, len(merged) - len(loop.new_input))


async def save_session(loop: RunLoop) -> None:
    """Save the new input and the run's items: all at once, and only for a finished run."""
    if loop.session is None or loop.cancelled or loop.interruptions:
        return
    items = [*loop.new_input, *(item.to_input_item() for item in loop.progress.new_items)]
    await loop.session.add_items(items)
