"""The SDK's ``agents.model_settings``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.model_settings import MCPToolChoice, ModelSettings, ToolChoice

__all__ = ["MCPToolChoice", "ModelSettings", "ToolChoice"]
