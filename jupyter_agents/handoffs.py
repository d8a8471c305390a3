"""The SDK's ``agents.handoffs``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.handoffs import Handoff, HandoffInputData, HandoffInputFilter, handoff

__all__ = ["Handoff", "HandoffInputData", "HandoffInputFilter", "handoff"]
