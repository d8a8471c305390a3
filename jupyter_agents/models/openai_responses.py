"""The SDK's ``agents.models.openai_responses``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s): the model, and ``Converter``, the conversion of tools, tool
choices and output formats that the model uses.
"""

from __future__ import annotations

from ..runtime.models.openai_responses import ConvertedTools, Converter, OpenAIResponsesModel

__all__ = ["ConvertedTools", "Converter", "OpenAIResponsesModel"]
