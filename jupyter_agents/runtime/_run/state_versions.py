"""The version markers of a saved ``RunState``, apart from the schemas they name: reading them
needs neither pydantic nor the schemas' types, so importing the package stays light."""

from __future__ import annotations

from typing import Final

__all__ = ["SDK_SCHEMA_VERSION", "SDK_SCHEMA_VERSIONS", "STATE_FORMAT", "STATE_VERSION"]

STATE_FORMAT: Final = "jupyter_agents.run_state"
"""The ``format`` marker of every saved state in this project's earlier form."""
STATE_VERSION: Final = 1
"""Bumped whenever the JSON layout changes so that older readers cannot read it; they refuse
newer states."""
SDK_SCHEMA_VERSION: Final = "1.21"
"""The SDK's ``CURRENT_SCHEMA_VERSION`` (openai-agents 0.24.0): what ``to_json`` writes."""
SDK_SCHEMA_VERSIONS: Final = frozenset(f"1.{minor}" for minor in range(22))
"""The versions of the SDK's schema that load here (its ``SUPPORTED_SCHEMA_VERSIONS``)."""
