"""The SDK's ``agents.models.fake_id``, at the same path: the placeholder id of Responses items
made from a chat completion."""

from __future__ import annotations

from ..runtime.models._chat_convert import FAKE_RESPONSES_ID

__all__ = ["FAKE_RESPONSES_ID"]
