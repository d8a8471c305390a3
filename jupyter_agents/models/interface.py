"""The SDK's ``agents.models.interface``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ..runtime.models.interface import Model, ModelProvider, ModelTracing

__all__ = ["Model", "ModelProvider", "ModelTracing"]
