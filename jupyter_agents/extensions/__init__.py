"""The OpenAI Agents SDK's ``agents.extensions`` paths that this project has.

* ``jupyter_agents.extensions.handoff_filters``: ready-made handoff input filters.
* ``jupyter_agents.extensions.handoff_prompt``: the recommended prompt for agents that hand
  off.
* ``jupyter_agents.extensions.memory``: ``AdvancedSQLiteSession``.
* ``jupyter_agents.extensions.models.litellm_model`` and ``.litellm_provider``: models
  through LiteLLM (the ``litellm`` extra).
"""

from __future__ import annotations

__all__: list[str] = []
