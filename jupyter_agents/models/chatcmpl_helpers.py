"""The SDK's ``agents.models.chatcmpl_helpers``, at the same path: ``ChatCmplHelpers``, the
``User-Agent`` header the Chat Completions models send (``HEADERS``) and the contextvar that
overrides it for a context (``HEADERS_OVERRIDE``)."""

from __future__ import annotations

from ..runtime.models._chat_helpers import HEADERS, HEADERS_OVERRIDE, ChatCmplHelpers

__all__ = ["HEADERS", "HEADERS_OVERRIDE", "ChatCmplHelpers"]
