"""The SDK's ``agents.models.chatcmpl_converter``, at the same path: ``Converter``, between
Responses items and Chat Completions messages (the conversion this project's Chat Completions
models use)."""

from __future__ import annotations

from ..runtime.models._chat_convert import Converter

__all__ = ["Converter"]
