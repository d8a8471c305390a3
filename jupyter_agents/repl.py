"""The SDK's ``agents.repl``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.repl import run_demo_loop

__all__ = ["run_demo_loop"]
