"""The current trace and span (ContextVars, so asyncio tasks and threads inherit them) and ids."""

from __future__ import annotations

import os
import random
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .spans import Span
    from .traces import Trace

__all__ = ["current_span", "current_trace", "gen_span_id", "gen_trace_id"]

current_trace: ContextVar[Trace | None] = ContextVar("jupyter_agents_trace", default=None)
current_span: ContextVar[Span[Any] | None] = ContextVar("jupyter_agents_span", default=None)

# Span ids come from a private generator: cheaper than os.urandom (a system call per span) and,
# unlike the shared `random` module, untouched by a notebook's `random.seed(42)`, which would
# otherwise repeat ids on every re-run. Reseeded in forked children so they do not repeat ours.
_ids = random.Random(os.urandom(32))
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: _ids.seed(os.urandom(32)))


def gen_trace_id() -> str:
    """A new trace id: ``trace_`` and 32 hex digits."""
    return "trace_" + os.urandom(16).hex()


def gen_span_id() -> str:
    """A new span id: ``span_`` and 24 hex digits."""
    return f"span_{_ids.getrandbits(96):024x}"
