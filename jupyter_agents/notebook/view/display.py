"""Displaying a ``RunResultStreaming`` in a cell shows the live widget."""

from __future__ import annotations

import asyncio
from typing import Any

from ...runtime.result import RunResultStreaming

__all__ = ["show_streaming"]


def show_streaming(result: RunResultStreaming) -> None:
    """Show a live view of ``result`` and drive it on the kernel's loop."""
    from .run_view import RunView

    view = RunView(agent=result.current_agent.name, model=str(result.current_agent.model or ""))
    view.on_stop = result.cancel
    view.display()
    view.set_status("running")

    async def drive() -> None:
        try:
            async for event in result.stream_events():
                view.on_event(event)
        except asyncio.CancelledError:
            view.finish("cancelled")
            raise
        except Exception as e:
            view.finish("failed", f"{type(e).__name__}: {e}")
            return
        view.set_usage(result.context_wrapper.usage)
        view.finish("cancelled" if result.is_cancelled else "done")

    task = asyncio.ensure_future(drive())
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


_tasks: set[asyncio.Task[Any]] = set()
