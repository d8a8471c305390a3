"""``LitellmModel`` at the SDK's path (``agents.extensions.models.litellm_model``): any model
LiteLLM reaches, by LiteLLM's name (``"anthropic/claude-sonnet-4-5"``), with the SDK's
``LitellmConverter`` and its message types.

``litellm`` (the package) is imported when first used: reading this module's ``litellm``
imports it. Setting ``OPENAI_AGENTS_ENABLE_LITELLM_SERIALIZER_PATCH=true`` before importing
this module silences LiteLLM's pydantic serializer warnings, as in the SDK.
"""

from __future__ import annotations

import importlib
from typing import Any

from ...runtime.models.litellm_model import (
    InternalChatCompletionMessage,
    InternalToolCall,
    LitellmConverter,
    LitellmModel,
    patch_serializer_warnings_if_asked,
)

__all__ = ["InternalChatCompletionMessage", "InternalToolCall", "LitellmConverter", "LitellmModel"]

patch_serializer_warnings_if_asked()


def __getattr__(name: str) -> Any:
    if name == "litellm":
        return importlib.import_module("litellm")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
