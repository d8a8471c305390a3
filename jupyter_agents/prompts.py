"""The SDK's ``agents.prompts``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.prompts import DynamicPromptFunction, GenerateDynamicPromptData, Prompt

__all__ = ["DynamicPromptFunction", "GenerateDynamicPromptData", "Prompt"]
