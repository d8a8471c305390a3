"""The SDK's ``agents.result``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.result import RunResult, RunResultBase, RunResultStreaming

__all__ = ["RunResult", "RunResultBase", "RunResultStreaming"]
