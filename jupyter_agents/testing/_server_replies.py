"""Scripted replies and recorded requests of the fake OpenAI server.

These are plain frozen dataclasses: a test builds them, hands them to
`FakeOpenAIServer.enqueue`, and the server turns each one into whichever wire format the
client asked for (Responses API or Chat Completions, streaming or not).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

__all__ = [
    "DEFAULT_USAGE",
    "RecordedRequest",
    "Reply",
    "ReplyError",
    "ReplyHang",
    "ReplyItem",
    "ReplyOutput",
    "ReplyText",
    "ReplyToolCall",
    "ScriptedReply",
    "text_reply",
    "tool_call_reply",
]

DEFAULT_USAGE: tuple[int, int] = (12, 8)
"""The `(input_tokens, output_tokens)` a `Reply` reports unless told otherwise."""


@dataclass(frozen=True)
class ReplyText:
    """An assistant text output: a `message` item, or the chat message `content`."""

    text: str
    """The full text; streamed replies split it into `Reply.chunk_size` pieces."""


@dataclass(frozen=True)
class ReplyToolCall:
    """A function tool call requested by the fake model."""

    name: str
    """The name of the function tool to call."""

    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    """The arguments: a mapping is JSON-encoded; a string is sent verbatim, so a test can
    script malformed JSON on purpose."""

    call_id: str | None = None
    """The call id; `None` picks a deterministic one, `call_<request>_<output index>`."""

    @property
    def arguments_json(self) -> str:
        """The arguments exactly as they go over the wire."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


"""One output of a `Reply`."""


@dataclass(frozen=True)
class ReplyItem:
    """A raw Responses API output item, sent as given (Responses endpoint only).

    For items the other reply types do not cover, such as ``mcp_list_tools``,
    ``mcp_approval_request`` or ``web_search_call``. The Chat Completions endpoint leaves
    them out.
    """

    item: Mapping[str, Any]
    """The output item; it needs at least ``type`` (and ``id``, which is filled in if absent)."""

    def __post_init__(self) -> None:
        if not isinstance(self.item.get("type"), str):
            raise ValueError("ReplyItem needs an item with a 'type'.")


ReplyOutput = Union[ReplyText, ReplyToolCall, ReplyItem]


@dataclass(frozen=True)
class Reply:
    """A successful model reply, rendered for whichever endpoint the client calls.

    On the Responses API each output becomes one output item (a `reasoning` item first
    when `reasoning` is set). On Chat Completions the texts are concatenated into the
    message `content`, the tool calls become `tool_calls`, and `reasoning` only shows up
    in the usage numbers.
    """

    outputs: Sequence[ReplyOutput] = ()
    """The outputs in order; stored as a tuple."""

    usage: tuple[int, int] = DEFAULT_USAGE
    """`(input_tokens, output_tokens)`; the total is their sum."""

    reasoning: str | None = None
    """A reasoning summary text, emitted as a `reasoning` item on the Responses API."""

    cached_tokens: int = 0
    """Reported as `input_tokens_details.cached_tokens` / `prompt_tokens_details`."""

    reasoning_tokens: int = 0
    """Reported as `output_tokens_details.reasoning_tokens` / `completion_tokens_details`."""

    chunk_size: int = 4
    """How many characters each streamed text or argument delta carries."""

    delay: float = 0.0
    """Seconds to wait before sending the response headers (exercise client timeouts)."""

    delay_between_chunks: float = 0.0
    """Seconds to wait between streamed events (exercise cancellation mid-stream)."""

    interleave_tool_calls: bool = False
    """Chat streaming only: send the fragments of several tool calls round-robin by index
    instead of one call after the other."""

    abort_after_events: int | None = None
    """Streaming only: drop the connection after this many events, without the final
    event, so the client sees a broken stream."""

    def __post_init__(self) -> None:
        outputs = tuple(self.outputs)
        for output in outputs:
            if not isinstance(output, (ReplyText, ReplyToolCall, ReplyItem)):
                raise TypeError(
                    f"Reply outputs must be ReplyText, ReplyToolCall or ReplyItem, got {output!r}; "
                    "wrap plain strings in ReplyText."
                )
        object.__setattr__(self, "outputs", outputs)
        if self.chunk_size < 1:
            raise ValueError(f"chunk_size must be at least 1, got {self.chunk_size}.")
        if len(self.usage) != 2 or min(self.usage) < 0:
            raise ValueError(
                f"usage must be (input_tokens, output_tokens) >= 0, got {self.usage!r}."
            )
        if self.delay < 0 or self.delay_between_chunks < 0:
            raise ValueError("delay and delay_between_chunks must not be negative.")
        if self.abort_after_events is not None and self.abort_after_events < 0:
            raise ValueError("abort_after_events must not be negative.")

    @property
    def text(self) -> str:
        """All text outputs concatenated (the chat message content)."""
        return "".join(o.text for o in self.outputs if isinstance(o, ReplyText))

    @property
    def tool_calls(self) -> tuple[ReplyToolCall, ...]:
        """The tool call outputs, in order."""
        return tuple(o for o in self.outputs if isinstance(o, ReplyToolCall))


@dataclass(frozen=True)
class ReplyError:
    """An HTTP error reply with an OpenAI-style JSON error body.

    The openai client retries 408/409/429/5xx by default; build test clients with
    `max_retries=0`, or count the retries in `FakeOpenAIServer.requests`.
    """

    status: int
    """The HTTP status code, 400-599."""

    message: str
    """`error.message` in the body."""

    retry_after: float | None = None
    """Seconds sent as `Retry-After` (and `retry-after-ms`) when given."""

    type_: str = "server_error"
    """`error.type` in the body."""

    code: str | None = None
    """`error.code` in the body."""

    def __post_init__(self) -> None:
        if not 400 <= self.status <= 599:
            raise ValueError(f"ReplyError status must be 400-599, got {self.status}.")
        if self.retry_after is not None and self.retry_after < 0:
            raise ValueError("retry_after must not be negative.")


@dataclass(frozen=True)
class ReplyHang:
    """Never answer: hold the request until the client disconnects or the server stops.

    Pair it with `FakeOpenAIServer.wait_for_requests` to cancel a run while the model
    call is in flight, or with a client timeout.
    """


ScriptedReply = Union[Reply, ReplyError, ReplyHang]
"""Anything the server can answer one model request with."""


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request the server received, recorded before it was answered."""

    method: str
    """The HTTP method, e.g. `"POST"`."""

    path: str
    """The request path without the query string, e.g. `"/v1/responses"`."""

    headers: dict[str, str]
    """The request headers, names lower-cased."""

    body: dict[str, Any] | None
    """The JSON body, or `None` when there was none or it was not a JSON object."""

    query: str = ""
    """The raw query string, without the `?`."""

    @property
    def stream(self) -> bool:
        """Whether the client asked for a streamed response."""
        return bool(self.body and self.body.get("stream"))


def text_reply(
    text: str, *, usage: tuple[int, int] = DEFAULT_USAGE, reasoning: str | None = None
) -> Reply:
    """Build a reply with one text output.

    Args:
        text: The assistant text.
        usage: `(input_tokens, output_tokens)`.
        reasoning: An optional reasoning summary.

    Returns:
        The reply; adjust other options with `dataclasses.replace`.
    """
    return Reply(outputs=(ReplyText(text),), usage=usage, reasoning=reasoning)


def tool_call_reply(
    name: str,
    arguments: Mapping[str, Any] | str | None = None,
    *,
    call_id: str | None = None,
    usage: tuple[int, int] = DEFAULT_USAGE,
    reasoning: str | None = None,
) -> Reply:
    """Build a reply with one function tool call.

    Args:
        name: The tool name.
        arguments: The arguments, a mapping (JSON-encoded) or a raw string.
        call_id: The call id, or `None` for a deterministic one.
        usage: `(input_tokens, output_tokens)`.
        reasoning: An optional reasoning summary.

    Returns:
        The reply; adjust other options with `dataclasses.replace`.
    """
    call = ReplyToolCall(name, {} if arguments is None else arguments, call_id)
    return Reply(outputs=(call,), usage=usage, reasoning=reasoning)


def coerce_reply(reply: ScriptedReply | ReplyOutput | str) -> ScriptedReply:
    """Turn the shortcuts `enqueue` accepts into a scripted reply.

    Args:
        reply: A scripted reply, a single output, or a plain string (a text reply).

    Returns:
        The scripted reply.

    Raises:
        TypeError: If `reply` is none of those.
    """
    if isinstance(reply, (Reply, ReplyError, ReplyHang)):
        return reply
    if isinstance(reply, str):
        return Reply(outputs=(ReplyText(reply),))
    if isinstance(reply, (ReplyText, ReplyToolCall)):
        return Reply(outputs=(reply,))
    raise TypeError(
        f"Cannot enqueue {reply!r}: expected Reply, ReplyError, ReplyHang, ReplyText, "
        "ReplyToolCall or str."
    )


def split_chunks(text: str, size: int) -> list[str]:
    """Split `text` into pieces of at most `size` characters (none for empty text)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def default_call_id(sequence: int, index: int) -> str:
    """The call id used when a `ReplyToolCall` has none."""
    return f"call_{sequence:04d}_{index}"
