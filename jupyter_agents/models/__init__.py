"""The default model, at the path the OpenAI Agents SDK uses (``agents.models``): the names
its module offers, where this project has them (the same objects as ``jupyter_agents``'s)."""

from __future__ import annotations

from ..runtime.models.defaults import (
    get_default_model,
    get_default_model_settings,
    gpt_5_reasoning_settings_required,
    is_gpt_5_default,
)

__all__ = [
    "get_default_model",
    "get_default_model_settings",
    "gpt_5_reasoning_settings_required",
    "is_gpt_5_default",
]
