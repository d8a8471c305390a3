"""The run context, at the path the OpenAI Agents SDK uses (``agents.run_context``).

Everything here is also importable from ``jupyter_agents``.
"""

from __future__ import annotations

from .runtime.context import AgentHookContext, RunContextWrapper, TContext

__all__ = ["AgentHookContext", "RunContextWrapper", "TContext"]
