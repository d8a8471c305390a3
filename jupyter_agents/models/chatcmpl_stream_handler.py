"""The SDK's ``agents.models.chatcmpl_stream_handler``, at the same path:
``ChatCmplStreamHandler``, Chat Completions chunks as Responses API stream events (the
conversion this project's Chat Completions models stream with)."""

from __future__ import annotations

from ..runtime.models._chat_stream import ChatCmplStreamHandler

__all__ = ["ChatCmplStreamHandler"]
