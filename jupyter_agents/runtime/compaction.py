"""Context that never overflows: ``RunConfig(compaction=Compaction())``.

Before each model call the run estimates the size of what it would send (the instructions, the
tools' schemas and the conversation so far). When that passes ``threshold`` of the model's
context window (``window``, else the window genai-prices knows for the model's name), the older
part of the conversation is replaced by a summary the model writes (``summarize``), and the
most recent items are kept as they are. The cut never separates a tool call from its output, or
a reasoning item from the call after it, so what is sent stays a valid conversation.

Only what is sent is compacted: the run's items (``result.new_items``, ``to_input_list()``) and
what a session stores keep the original, so nothing is lost and a later run can compact again.
The summary request goes through the run's model, so a recording replays it like any other.
A conversation the provider stores (``previous_response_id``, ``conversation_id``) is left to
the provider.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .errors import UserError

if TYPE_CHECKING:
    from .items import TResponseInputItem
    from .models.interface import Model
    from .tools.capabilities import ToolCapabilities

__all__ = [
    "SUMMARY_INSTRUCTIONS",
    "SUMMARY_PREFIX",
    "Compacted",
    "Compaction",
    "estimate_tokens",
    "known_window",
    "split_point",
    "summarize",
]

SUMMARY_INSTRUCTIONS = (
    "You compact a conversation between a person, an AI assistant and its tools so the "
    "assistant can go on with less context. Write a summary that keeps everything the "
    "assistant still needs: the person's goals and requests in their words, decisions made, "
    "facts learned from tools (numbers, names, paths, errors), what is done and what remains. "
    "Use short paragraphs and lists; no preamble."
)
SUMMARY_PREFIX = (
    "[The earlier part of this conversation was compacted to fit the model's context window; "
    "this is its summary.]\n\n"
)
CHARS_PER_TOKEN = 4
"""How the size of a request is estimated before it is sent (tokens ~ characters / 4)."""

ITEM_CHARS = 4_000
"""Characters of one item shown to the summarizer (a longer one keeps its head and tail)."""


@dataclasses.dataclass(frozen=True)
class Compaction:
    """When and how a run compacts its conversation (``RunConfig.compaction``)."""

    window: int | None = None
    """The model's context window in tokens (None: the one genai-prices knows for the model's
    name; a model it does not know is never compacted)."""
    threshold: float = 0.8
    """Compact when the estimated request passes this share of the window."""
    keep_recent: int = 8
    """Items at the end kept as they are (more when a tool call and its output straddle)."""
    model: str | Model | None = None
    """The model that writes the summary (None: the run's)."""
    instructions: str = SUMMARY_INSTRUCTIONS
    """What the summarizer is told."""

    def __post_init__(self) -> None:
        if self.window is not None and (isinstance(self.window, bool) or self.window < 256):
            raise UserError("Compaction: window must be a number of tokens, at least 256.")
        if not 0.1 <= self.threshold <= 1.0:
            raise UserError("Compaction: threshold must be between 0.1 and 1.0.")
        if isinstance(self.keep_recent, bool) or self.keep_recent < 1:
            raise UserError("Compaction: keep_recent must be at least 1.")


@dataclasses.dataclass(frozen=True)
class Compacted:
    """One compaction: the items before and after, the estimates, and the summary's text."""

    items_before: int
    items_after: int
    tokens_before: int
    tokens_after: int
    window: int
    summary: str

    def describe(self) -> str:
        """One line for a person: what was compacted, and how much is sent now."""
        return (
            f"Context compacted to fit the model's {self.window:,}-token window: "
            f"{self.items_before - self.items_after + 1} older items (about "
            f"{self.tokens_before:,} tokens in all) became a summary; about "
            f"{self.tokens_after:,} tokens are sent now."
        )


def estimate_tokens(
    instructions: str | None, items: list[Any], tools: Sequence[ToolCapabilities]
) -> int:
    """The estimated size in tokens of a request (characters / ``CHARS_PER_TOKEN``)."""
    chars = len(instructions or "") + len(json.dumps(items, default=str))
    for tool in tools:
        schema = tool.params_json_schema
        chars += len(tool.name) + len(tool.description or "")
        chars += len(json.dumps(schema, default=str)) if schema else 0
    return chars // CHARS_PER_TOKEN + 1


@functools.lru_cache(maxsize=256)
def known_window(model_name: str) -> int | None:
    """The context window genai-prices knows for ``model_name`` (None: it knows none)."""
    try:
        from genai_prices import data_snapshot

        _provider, info = data_snapshot.get_snapshot().find_provider_model(
            model_name, None, None, None
        )
    except (LookupError, ValueError, ImportError):
        return None
    window = getattr(info, "context_window", None)
    return window if isinstance(window, int) and window > 0 else None


def _kind(item: Any) -> str:
    return (
        str(item.get("type") or ("message" if "role" in item else ""))
        if isinstance(item, dict)
        else ""
    )


def split_point(items: list[Any], keep: int) -> int:
    """Where to cut ``items`` so that the last ``keep`` (at least) stay, and no tool call is
    parted from its output nor a reasoning item from what follows it: the index of the first
    item kept (0: nothing can go)."""
    cut = max(0, len(items) - keep)
    while cut > 0:
        kept = items[cut:]
        outputs = {i.get("call_id") for i in kept if _kind(i).endswith("_call_output")}
        calls = {i.get("call_id") for i in kept if _kind(i).endswith("_call")}
        earlier = {i.get("call_id") for i in items[:cut] if _kind(i).endswith("_call")}
        orphaned = (outputs - calls) & earlier
        if (
            orphaned
            or _kind(items[cut - 1]) == "reasoning"
            or _kind(items[cut]).endswith("_call_output")
        ):
            cut -= 1
            continue
        break
    return cut


def transcript(items: list[Any]) -> str:
    """``items`` as text for the summarizer: one block per item, each capped."""
    blocks = []
    for item in items:
        kind = _kind(item)
        if kind == "message":
            head = str(item.get("role", "message"))
            body = _content_text(item.get("content"))
        elif kind.endswith("_call_output"):
            head, body = "tool output", _content_text(item.get("output"))
        elif kind.endswith("_call"):
            head = f"tool call {item.get('name', kind)}"
            body = str(item.get("arguments", item.get("action", "")))
        elif kind == "reasoning":
            continue
        else:
            head, body = kind or "item", json.dumps(item, default=str)
        if len(body) > ITEM_CHARS:
            half = ITEM_CHARS // 2
            gone = f"[... {len(body) - ITEM_CHARS:,} characters left out ...]"
            body = f"{body[:half]}\n{gone}\n{body[-half:]}"
        blocks.append(f"## {head}\n{body}")
    return "\n\n".join(blocks)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", f"[{part.get('type', 'part')}]"))
            if isinstance(part, dict)
            else str(part)
            for part in content
        )
    return "" if content is None else str(content)


async def summarize(model: Model, compaction: Compaction, items: list[Any]) -> str:
    """The summary ``model`` writes of ``items`` (the conversation's older part)."""
    from .model_settings import ModelSettings
    from .models.interface import ModelTracing

    request: list[TResponseInputItem] = [
        {
            "role": "user",
            "content": "Summarise this conversation for the assistant that will continue it.\n\n"
            + transcript(items),
        }
    ]
    response = await model.get_response(
        compaction.instructions,
        request,
        ModelSettings(),
        [],
        None,
        [],
        ModelTracing.DISABLED,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
    )
    texts = []
    for output in response.output:
        for part in getattr(output, "content", None) or []:
            text = getattr(part, "text", None)
            if isinstance(text, str):
                texts.append(text)
    summary = "\n".join(texts).strip()
    if not summary:
        raise UserError("Compaction: the model wrote an empty summary; the run cannot go on.")
    return summary
