"""The SDK's ``agents.tracing.config``: ``TracingConfig`` and ``include_task_and_turn_spans``."""

from __future__ import annotations

from ..runtime.tracing.config import TracingConfig, include_task_and_turn_spans

__all__ = ["TracingConfig", "include_task_and_turn_spans"]
