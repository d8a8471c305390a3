"""The SDK's ``agents.tracing.scope``: ``Scope``, the current span and trace of this context."""

from __future__ import annotations

from ..runtime.tracing.scope import Scope

__all__ = ["Scope"]
