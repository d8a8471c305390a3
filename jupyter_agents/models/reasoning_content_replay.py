"""The SDK's ``agents.models.reasoning_content_replay``, at the same path: the hook deciding
whether a reasoning item's summary goes back to a Chat Completions model as
``reasoning_content``, and its default (DeepSeek only)."""

from __future__ import annotations

from ..runtime.models._chat_reasoning import (
    ReasoningContentReplayContext,
    ReasoningContentSource,
    ShouldReplayReasoningContent,
    default_should_replay_reasoning_content,
)

__all__ = [
    "ReasoningContentReplayContext",
    "ReasoningContentSource",
    "ShouldReplayReasoningContent",
    "default_should_replay_reasoning_content",
]
