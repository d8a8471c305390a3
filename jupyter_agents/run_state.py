"""A paused run, at the path the OpenAI Agents SDK uses (``agents.run_state``): the same
object as ``jupyter_agents``'s."""

from __future__ import annotations

from .runtime.run_state import CURRENT_SCHEMA_VERSION, RunState

__all__ = ["CURRENT_SCHEMA_VERSION", "RunState"]
