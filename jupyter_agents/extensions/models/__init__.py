"""The OpenAI Agents SDK's ``agents.extensions.models`` paths: models beyond OpenAI.

* ``jupyter_agents.extensions.models.litellm_model``: ``LitellmModel``.
* ``jupyter_agents.extensions.models.litellm_provider``: ``LitellmProvider``.

They need the ``litellm`` package (``pip install 'jupyter_agents[litellm]'``), imported on a
model's first call.
"""

from __future__ import annotations

__all__: list[str] = []
