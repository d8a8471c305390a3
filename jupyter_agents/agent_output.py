"""The SDK's ``agents.agent_output``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.agent_output import AgentOutputSchema, AgentOutputSchemaBase

__all__ = ["AgentOutputSchema", "AgentOutputSchemaBase"]
