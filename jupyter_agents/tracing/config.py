"""The SDK's ``agents.tracing.config``: ``TracingConfig``."""

from __future__ import annotations

from ..runtime.tracing.config import TracingConfig

__all__ = ["TracingConfig"]
