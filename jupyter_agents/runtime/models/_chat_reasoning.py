"""Reasoning in Chat Completions answers, kept as reasoning items and sent back where needed.

Providers put a message's reasoning in one of three places, in a whole message or in its
streamed deltas: ``reasoning_content`` (DeepSeek; LiteLLM for every provider),
``reasoning`` (Groq, Ollama, OpenRouter) and ``thinking_blocks`` (Claude through LiteLLM:
``thinking`` blocks with their ``signature``, ``redacted_thinking`` blocks with their
``data``). As the OpenAI Agents SDK does, each message's reasoning becomes one Responses API
reasoning item: ``reasoning_content`` its summary, ``reasoning`` and each block's thinking its
content, the blocks' signatures its ``encrypted_content``; its ``provider_data`` (the SDK's
keys) holds the model, which field the reasoning came in and the thinking blocks exactly as
received.

Sending a reasoning item back is the converter's (``_chat_convert.Converter.items_to_messages``),
which follows the providers' rules as the SDK does; whether a reasoning item's
``reasoning_content`` goes back is the decision of a hook (``ShouldReplayReasoningContent``),
by default ``default_should_replay_reasoning_content``: only to DeepSeek.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from openai.types.responses import ResponseReasoningItem
from openai.types.responses.response_reasoning_item import Content, Summary
from pydantic import BaseModel

__all__ = [
    "REASONING_FIELD_KEY",
    "ChatReasoning",
    "ReasoningContentReplayContext",
    "ReasoningContentSource",
    "ShouldReplayReasoningContent",
    "default_should_replay_reasoning_content",
    "field_of",
    "reasoning_item_id",
]

REASONING_FIELD_KEY = "_chat_completions_reasoning_field"
"""The SDK's ``provider_data`` key saying the reasoning came as ``reasoning``."""

_ids = itertools.count(1)


def field_of(value: Any, name: str) -> Any:
    """``value.name``, or None: a declared field or an extra one of a pydantic model (the
    ``openai`` package's and LiteLLM's objects), read without the exception a missing name
    costs, since a stream reads several names of every chunk; any other object's attribute."""
    found = getattr(value, "__dict__", {}).get(name)
    if found is None:
        extra = getattr(value, "__pydantic_extra__", None)
        if extra:
            found = extra.get(name)
        elif extra is None and not isinstance(value, BaseModel):
            found = getattr(value, name, None)
    return found


def reasoning_item_id() -> str:
    """A new id for a reasoning item made from a chat answer."""
    return f"rs_{next(_ids)}"


def _block(raw: Any) -> dict[str, Any] | None:
    """A thinking block as a plain dict (LiteLLM's are dicts; be lenient with objects)."""
    if isinstance(raw, Mapping):
        return dict(raw)
    dump = getattr(raw, "model_dump", None)
    value = dump() if dump is not None else None
    return value if isinstance(value, dict) else None


@dataclass
class ChatReasoning:
    """The reasoning of one chat message, from the message or from its deltas."""

    summary: list[str] = field(default_factory=list)
    """``reasoning_content`` pieces."""

    text: list[str] = field(default_factory=list)
    """``reasoning`` pieces (used only when no ``reasoning_content`` or block came)."""

    blocks: list[dict[str, Any]] = field(default_factory=list)
    """Thinking blocks, in order, as received (stream fragments merged)."""

    _by_index: dict[Any, dict[str, Any]] = field(default_factory=dict, repr=False)
    """The streamed blocks by LiteLLM's ``index``."""

    _streamed: bool = field(default=False, repr=False)
    """Whether the blocks came in deltas (a thinking block may then lack its text)."""

    @classmethod
    def of_message(cls, message: Any) -> ChatReasoning:
        """The reasoning of a whole message."""
        found = cls()
        content = field_of(message, "reasoning_content")
        if isinstance(content, str) and content:
            found.summary.append(content)
        text = field_of(message, "reasoning")
        if isinstance(text, str) and text:
            found.text.append(text)
        raw_blocks = field_of(message, "thinking_blocks")
        if isinstance(raw_blocks, list):
            found.blocks = [copy.deepcopy(b) for b in map(_block, raw_blocks) if b is not None]
        return found

    def add_delta(self, delta: Any) -> tuple[str, str]:
        """Take one streamed delta's reasoning; returns its new summary and reasoning text."""
        summary = field_of(delta, "reasoning_content")
        summary = summary if isinstance(summary, str) else ""
        text = field_of(delta, "reasoning")
        text = text if isinstance(text, str) and not summary else ""
        if summary:
            self.summary.append(summary)
        if text:
            self.text.append(text)
        for raw in field_of(delta, "thinking_blocks") or ():
            fragment = _block(raw)
            if fragment is not None:
                self._streamed = True
                self._merge(fragment)
        return summary, text

    def _merge(self, fragment: dict[str, Any]) -> None:
        """Add a streamed block fragment: LiteLLM numbers each block (``index``) and sends its
        thinking in pieces, then its signature; a redacted block comes whole."""
        key = fragment.pop("index", None)
        block = self._by_index.get(key) if key is not None else self._open_block(fragment)
        if block is None:
            block = {"type": fragment.get("type", "thinking")}
            if key is not None:
                self._by_index[key] = block
            self.blocks.append(block)
        for name, value in fragment.items():
            if name == "thinking" and isinstance(value, str):
                block["thinking"] = block.get("thinking", "") + value
            elif value not in (None, ""):
                block[name] = value

    def _open_block(self, fragment: dict[str, Any]) -> dict[str, Any] | None:
        """The block an unnumbered fragment continues: the last one, while it is a thinking
        block not yet signed."""
        last = self.blocks[-1] if self.blocks else None
        thinking = fragment.get("type", "thinking") == "thinking"
        if last is None or not thinking or last.get("type") != "thinking":
            return None
        return None if last.get("signature") else last

    def __bool__(self) -> bool:
        return bool(self.summary or self.text or self.blocks)

    def item(self, item_id: str, provider_data: Mapping[str, Any]) -> ResponseReasoningItem:
        """The reasoning as one reasoning item (the SDK's shape), its ``provider_data`` the
        given one (the model, and the response's id) with how the reasoning came."""
        fields: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
        provider_data = dict(provider_data)
        if self.summary:
            fields["summary"] = [_summary("".join(self.summary))]
        if self.blocks:
            blocks = [_finished(b) if self._streamed else copy.deepcopy(b) for b in self.blocks]
            provider_data["thinking_blocks"] = blocks
            texts = [
                b["thinking"] for b in blocks if b.get("type") == "thinking" and b.get("thinking")
            ]
            fields["content"] = [_content(text) for text in texts]
            signatures = [b["signature"] for b in blocks if b.get("signature")]
            if signatures:
                fields["encrypted_content"] = "\n".join(signatures)
        elif self.text and not self.summary:
            fields["content"] = [_content("".join(self.text))]
            provider_data[REASONING_FIELD_KEY] = "reasoning"
        if provider_data:
            fields["provider_data"] = provider_data
        return ResponseReasoningItem.model_construct(**fields)


def _finished(block: dict[str, Any]) -> dict[str, Any]:
    """A block as it goes back: a streamed one has an empty thinking until its text came."""
    done = dict(block)
    if done.get("type") == "thinking":
        done.setdefault("thinking", "")
    return done


def _summary(text: str) -> Summary:
    return Summary.model_construct(type="summary_text", text=text)


def _content(text: str) -> Content:
    return Content.model_construct(type="reasoning_text", text=text)


@dataclass
class ReasoningContentSource:
    """A reasoning item of the history that may go back to the model."""

    item: Any
    """The reasoning item, as an input item."""

    origin_model: str | None
    """The model that wrote it, where its ``provider_data`` says."""

    provider_data: Mapping[str, Any]
    """Its ``provider_data``."""


@dataclass
class ReasoningContentReplayContext:
    """What a ``should_replay_reasoning_content`` hook decides on."""

    model: str
    """The model the next Chat Completions request goes to."""

    base_url: str | None
    """That request's endpoint, where known (no trailing slash)."""

    reasoning: ReasoningContentSource
    """The reasoning item in question."""


ShouldReplayReasoningContent = Callable[[ReasoningContentReplayContext], bool]
"""A hook saying whether a reasoning item's summary goes back to the model, as the
``reasoning_content`` of the assistant message after it."""


def default_should_replay_reasoning_content(context: ReasoningContentReplayContext) -> bool:
    """The default: to a DeepSeek model, the reasoning of a DeepSeek model, or of an unknown
    one (an item with no provider data but Claude's thinking blocks); nothing elsewhere."""
    if "deepseek" not in context.model.lower():
        return False
    origin = context.reasoning.origin_model
    if origin is not None and "deepseek" in origin.lower():
        return True
    return not any(key != "thinking_blocks" for key in context.reasoning.provider_data)
