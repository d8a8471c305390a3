"""The default model and what it implies, as the SDK's ``agents.models`` reports them.

The default model is ``OPENAI_DEFAULT_MODEL`` when set, else ``DEFAULT_MODEL``. GPT-5
models reason, and take reasoning settings (an effort) where other models take none; their
``-chat-latest`` aliases do not reason. ``get_default_model_settings`` gives the settings a
GPT-5 model starts from: the lowest effort the model accepts that every built-in tool works
with (``low`` for the first GPT-5, ``medium`` for the ``-pro`` models, ``none`` for later ones)
and short answers (``verbosity="low"``); other models start from no settings at all.
"""

from __future__ import annotations

import os
import re

from ..model_settings import ModelSettings
from .provider import DEFAULT_MODEL

__all__ = [
    "get_default_model",
    "get_default_model_settings",
    "gpt_5_reasoning_settings_required",
    "is_gpt_5_default",
]

_CHAT_ALIAS = re.compile(r"gpt-5(?:\.\d+)?-chat-latest")
_DATED = r"(?:-\d{4}-\d{2}-\d{2})?"
_FIRST = re.compile(rf"gpt-5{_DATED}|gpt-5\.2-codex")
_PRO = re.compile(rf"gpt-5\.\d+-pro{_DATED}")


def get_default_model() -> str:
    """The model a run uses when neither the agent nor the run names one (lower case)."""
    return (os.environ.get("OPENAI_DEFAULT_MODEL") or DEFAULT_MODEL).lower()


def gpt_5_reasoning_settings_required(model_name: str) -> bool:
    """Whether ``model_name`` is a GPT-5 model that takes reasoning settings."""
    if _CHAT_ALIAS.fullmatch(model_name):
        return False
    return model_name.startswith("gpt-5")


def is_gpt_5_default() -> bool:
    """Whether the default model is a GPT-5 model that takes reasoning settings."""
    return gpt_5_reasoning_settings_required(get_default_model())


def get_default_model_settings(model: str | None = None) -> ModelSettings:
    """The settings ``model`` (default: the default model) starts from."""
    name = (model or get_default_model()).lower()
    if _CHAT_ALIAS.fullmatch(name):
        return ModelSettings(verbosity="low")
    if not gpt_5_reasoning_settings_required(name):
        return ModelSettings()
    effort = "low" if _FIRST.fullmatch(name) else "medium" if _PRO.fullmatch(name) else "none"
    return ModelSettings(reasoning={"effort": effort}, verbosity="low")
