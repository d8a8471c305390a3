"""The SDK's ``agents.lifecycle``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.lifecycle import AgentHooks, RunHooks

__all__ = ["AgentHooks", "RunHooks"]
