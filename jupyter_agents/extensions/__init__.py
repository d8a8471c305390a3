"""The OpenAI Agents SDK's ``agents.extensions`` paths that this project has.

* :mod:`jupyter_agents.extensions.handoff_filters`: ready-made handoff input filters.
* :mod:`jupyter_agents.extensions.handoff_prompt`: the recommended prompt for agents that hand
  off.
"""

from __future__ import annotations

__all__: list[str] = []
