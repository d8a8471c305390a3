"""The SDK's ``agents.usage``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.usage import RequestUsage, Usage, deserialize_usage, serialize_usage

__all__ = ["RequestUsage", "Usage", "deserialize_usage", "serialize_usage"]
