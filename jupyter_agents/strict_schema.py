"""The SDK's ``agents.strict_schema``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.tools.function.strict_schema import ensure_strict_json_schema

__all__ = ["ensure_strict_json_schema"]
