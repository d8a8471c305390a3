"""``LitellmProvider`` at the SDK's path (``agents.extensions.models.litellm_provider``): every
model name of a run through LiteLLM (``RunConfig(model_provider=LitellmProvider())``)."""

from __future__ import annotations

from ...runtime.models.litellm_model import LitellmProvider

__all__ = ["LitellmProvider"]
