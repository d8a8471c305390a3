"""``LitellmModel`` at the SDK's path (``agents.extensions.models.litellm_model``): any model
LiteLLM reaches, by LiteLLM's name (``"anthropic/claude-sonnet-4-5"``)."""

from __future__ import annotations

from ...runtime.models.litellm_model import LitellmModel

__all__ = ["LitellmModel"]
