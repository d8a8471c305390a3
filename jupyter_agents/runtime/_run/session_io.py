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
    """Put the session's history in front of the new input."""
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


async def save_session(loop: RunLoop) -> None:
    """Save the new input and the run's items: all at once, and only for a finished run."""
    if loop.session is None or loop.cancelled or loop.interruptions:
        return
    items = [*loop.new_input, *(item.to_input_item() for item in loop.progress.new_items)]
    await loop.session.add_items(items)
