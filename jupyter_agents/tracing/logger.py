"""The SDK's ``agents.tracing.logger``: the tracing logger (``jupyter_agents.tracing`` here)."""

from __future__ import annotations

from ..runtime.tracing.logger import logger

__all__ = ["logger"]
