"""The process-wide trace provider (the SDK's ``agents.tracing.setup``).

``get_trace_provider()`` gives the provider every tracing helper goes through: a
``DefaultTraceProvider`` with no processor until one is added (nothing is exported by default),
made on first use. ``set_trace_provider`` replaces it. At interpreter exit the provider is shut
down (its processors flush and stop).
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .provider import TraceProvider

__all__ = ["get_trace_provider", "set_trace_provider"]

GLOBAL_TRACE_PROVIDER: TraceProvider | None = None
"""The provider in use, or ``None`` before the first ``get_trace_provider()``."""

CLOCK: Callable[[], str] | None = None
"""The provider's ``time_iso`` (bound), read by ``util.time_iso`` without a lookup."""
SPAN_IDS: Callable[[], str] | None = None
"""The provider's ``gen_span_id`` (bound), read by ``util.gen_span_id``."""

_lock = threading.Lock()
_atexit_registered = False


def _use(provider: TraceProvider) -> None:
    global GLOBAL_TRACE_PROVIDER, CLOCK, SPAN_IDS
    GLOBAL_TRACE_PROVIDER = provider
    CLOCK = provider.time_iso
    SPAN_IDS = provider.gen_span_id


def _shutdown_at_exit() -> None:
    provider = GLOBAL_TRACE_PROVIDER
    if provider is not None:
        provider.shutdown()


def _register_atexit() -> None:
    global _atexit_registered
    if not _atexit_registered:
        atexit.register(_shutdown_at_exit)
        _atexit_registered = True


def set_trace_provider(provider: TraceProvider) -> None:
    """Use ``provider`` for every trace and span created from now on."""
    with _lock:
        _use(provider)
        _register_atexit()


def get_trace_provider() -> TraceProvider:
    """The provider in use (a ``DefaultTraceProvider`` with no processors, made on first use)."""
    provider = GLOBAL_TRACE_PROVIDER
    if provider is not None:
        return provider
    with _lock:
        if GLOBAL_TRACE_PROVIDER is None:
            from .provider import DefaultTraceProvider

            _use(DefaultTraceProvider())
            _register_atexit()
        assert GLOBAL_TRACE_PROVIDER is not None
        return GLOBAL_TRACE_PROVIDER
