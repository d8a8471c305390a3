"""The tracing logger (the SDK's ``agents.tracing.logger``): ``jupyter_agents.tracing``, under
the project's ``jupyter_agents`` logger (the SDK's is ``openai.agents.tracing``)."""

from __future__ import annotations

import logging

__all__ = ["logger"]

logger = logging.getLogger("jupyter_agents.tracing")
