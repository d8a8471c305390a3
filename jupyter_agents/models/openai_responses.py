"""The SDK's ``agents.models.openai_responses``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ..runtime.models.openai_responses import OpenAIResponsesModel

__all__ = ["OpenAIResponsesModel"]
