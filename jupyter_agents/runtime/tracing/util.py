"""Clock and ids for traces and spans (the SDK's ``agents.tracing.util``).

Each function asks the current trace provider (``setup.get_trace_provider()``), so a custom
provider's clock and ids are the ones used; the default provider's are below
(``iso_now``, ``new_trace_id``, ``new_span_id``, ``new_group_id``). Spans and traces read
the clock through this module (``util.time_iso()``), so a test may replace it here.
"""

from __future__ import annotations

import os
import random
import time
import uuid
from datetime import datetime, timezone

from . import setup as _setup

__all__ = [
    "gen_group_id",
    "gen_span_id",
    "gen_trace_id",
    "iso_now",
    "new_group_id",
    "new_span_id",
    "new_trace_id",
    "time_iso",
]

# Span ids come from a private generator: cheaper than os.urandom (a system call per span) and,
# unlike the shared `random` module, untouched by a notebook's `random.seed(42)`, which would
# otherwise repeat ids on every re-run. Reseeded in forked children so they do not repeat ours.
_ids = random.Random(os.urandom(32))
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: _ids.seed(os.urandom(32)))


_current_second: tuple[int, str] = (-1, "")
"""The second last formatted, and its date and time (one tuple: threads read it whole)."""


def iso_now() -> str:
    """Now, in UTC, as an ISO 8601 string (``2026-01-01T12:00:00.123456+00:00``): what
    ``datetime.now(timezone.utc).isoformat()`` gives, microseconds always written, at a
    fraction of its cost (the date and time of the current second are formatted once)."""
    global _current_second
    now = time.time()
    second = int(now)
    cached, prefix = _current_second
    if second != cached:
        prefix = datetime.fromtimestamp(second, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
        _current_second = (second, prefix)
    return f"{prefix}.{int((now - second) * 1_000_000):06d}+00:00"


def new_trace_id() -> str:
    """A new trace id: ``trace_`` and 32 hex digits."""
    return "trace_" + os.urandom(16).hex()


def new_span_id() -> str:
    """A new span id: ``span_`` and 24 hex digits."""
    return f"span_{_ids.getrandbits(96):024x}"


def new_group_id() -> str:
    """A new group id: ``group_`` and 24 hex digits."""
    return f"group_{uuid.uuid4().hex[:24]}"


def time_iso() -> str:
    """Now, as an ISO 8601 string, from the current trace provider."""
    clock = _setup.CLOCK
    return clock() if clock is not None else _setup.get_trace_provider().time_iso()


def gen_trace_id() -> str:
    """A new trace id from the current trace provider (``trace_`` and 32 hex digits)."""
    return _setup.get_trace_provider().gen_trace_id()


def gen_span_id() -> str:
    """A new span id from the current trace provider (``span_`` and 24 hex digits)."""
    ids = _setup.SPAN_IDS
    return ids() if ids is not None else _setup.get_trace_provider().gen_span_id()


def gen_group_id() -> str:
    """A new group id from the current trace provider (``group_`` and 24 hex digits)."""
    return _setup.get_trace_provider().gen_group_id()
