"""The SDK's ``agents.models.multi_provider``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ..runtime.models.multi_provider import MultiProvider, MultiProviderMap

__all__ = ["MultiProvider", "MultiProviderMap"]
