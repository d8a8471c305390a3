"""Per-request model settings."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, fields
from typing import Any, Literal, TypeAlias, Union

from .errors import UserError
from .retry import ModelRetrySettings, coerce_retry_settings, merge_retry_settings

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_FIRST_EVENT_TIMEOUT",
    "DEFAULT_READ_TIMEOUT",
    "MCPToolChoice",
    "ModelSettings",
    "ModelTimeout",
    "ToolChoice",
]

DEFAULT_CONNECT_TIMEOUT = 5.0
"""Seconds to open a connection to the model's server (the ``openai`` client's own default)."""

DEFAULT_FIRST_EVENT_TIMEOUT = 30.0
"""Seconds a streamed model call may wait for its first event."""

DEFAULT_READ_TIMEOUT = 120.0
"""Seconds the answer may stay silent: between two chunks of a stream, or the whole wait for a
non-streamed answer."""


@dataclass(frozen=True)
class MCPToolChoice:
    """A tool choice naming one tool of a hosted MCP server (the Responses API's ``mcp``)."""

    server_label: str
    """The hosted MCP server's label."""
    name: str
    """The tool's name on that server."""


ToolChoice: TypeAlias = Union[Literal["auto", "required", "none"], str, MCPToolChoice, None]
"""``"auto"``, ``"required"``, ``"none"``, the name of one tool the model must call, or one
hosted MCP tool (``MCPToolChoice``)."""


@dataclass(frozen=True)
class ModelTimeout:
    """How long each attempt of a model call may wait, phase by phase, in seconds.

    ``ModelSettings(timeout=ModelTimeout(read=600))`` changes one limit and keeps the others'
    defaults. A server that accepts the connection and never answers ends a streamed attempt
    after ``first_event``; the run then retries as ``ModelSettings.retry`` (else
    ``RunConfig.model_retry``) says, so by default a hung server fails the call after about
    3 x 30 s. ``connect`` and ``read`` are the HTTP client's (httpx's names); ``first_event`` is
    the run's own, so it holds for every model, a client you pass in included.
    """

    connect: float = DEFAULT_CONNECT_TIMEOUT
    """Opening the connection to the server (TLS included)."""

    first_event: float = DEFAULT_FIRST_EVENT_TIMEOUT
    """A streamed call: from sending the request to the stream's first event (the server has
    started answering). Raise it for a local server that loads the model or reads a long
    prompt before it answers."""

    read: float = DEFAULT_READ_TIMEOUT
    """The longest silence while the answer comes: between two chunks of a stream, or the
    whole wait for a non-streamed answer (a model that thinks long without streaming needs
    more)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise UserError(f"ModelTimeout.{f.name} must be a number of seconds, got {value!r}")
            if not (value > 0 and math.isfinite(value)):
                raise UserError(f"ModelTimeout.{f.name} must be positive and finite, got {value!r}")

    @classmethod
    def of(cls, value: float | ModelTimeout | dict[str, Any] | None) -> ModelTimeout:
        """The limits ``ModelSettings.timeout`` sets: None, the defaults; a number ``n``, the
        first event and every read ``n`` seconds (connecting at most the default, 5 s); a dict,
        a ``ModelTimeout`` of its fields."""
        if value is None:
            return _DEFAULT_TIMEOUT
        if isinstance(value, ModelTimeout):
            return value
        if isinstance(value, dict):
            known = {f.name for f in fields(cls)}
            unknown = sorted(str(k) for k in value if k not in known)
            if unknown:
                raise UserError(f"Unknown ModelTimeout fields: {', '.join(unknown)}")
            return cls(**value)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise UserError(f"timeout must be a positive number of seconds, got {value!r}")
        seconds = float(value)
        return cls(min(seconds, DEFAULT_CONNECT_TIMEOUT), seconds, seconds)

    def to_json_dict(self) -> dict[str, float]:
        """The three limits as a dict."""
        return dataclasses.asdict(self)


_DEFAULT_TIMEOUT = ModelTimeout()


@dataclass
class ModelSettings:
    """Settings for model calls. ``None`` means "use the provider's default".

    Settings given in a ``RunConfig`` override the agent's, field by field.
    """

    temperature: float | None = None
    """Sampling temperature."""

    top_p: float | None = None
    """Nucleus sampling."""

    frequency_penalty: float | None = None
    """Penalty for repeated tokens."""

    presence_penalty: float | None = None
    """Penalty for tokens already present."""

    tool_choice: ToolChoice = None
    """Whether and which tool the model must call."""

    parallel_tool_calls: bool | None = None
    """Whether the model may call several tools in one response."""

    truncation: Literal["auto", "disabled"] | None = None
    """Responses API truncation strategy."""

    max_tokens: int | None = None
    """Upper bound on output tokens."""

    reasoning: dict[str, Any] | None = None
    """Reasoning options for reasoning models, e.g. ``{"effort": "low", "summary": "auto"}``
    (an ``openai.types.shared.Reasoning`` is taken too, as a dict)."""

    verbosity: Literal["low", "medium", "high"] | None = None
    """Output verbosity hint."""

    metadata: dict[str, str] | None = None
    """Metadata stored with the response."""

    store: bool | None = None
    """Whether the provider stores the response (needed for ``previous_response_id``)."""

    include_usage: bool | None = None
    """Chat Completions: ask for usage in streamed responses (on by default)."""

    response_include: list[str] | None = None
    """Responses API ``include`` values."""

    top_logprobs: int | None = None
    """How many most likely tokens to return, with their log probabilities, at each position
    (the Responses API then also includes the output text's log probabilities)."""

    prompt_cache_retention: Literal["in_memory", "24h"] | None = None
    """How long the provider keeps the prompt cache."""

    extra_query: dict[str, Any] | None = None
    """Extra query parameters for the HTTP request."""

    extra_body: dict[str, Any] | None = None
    """Extra JSON body fields for the HTTP request."""

    extra_headers: dict[str, str] | None = None
    """Extra HTTP headers."""

    extra_args: dict[str, Any] | None = None
    """Extra keyword arguments passed to the client call as they are."""

    retry: ModelRetrySettings | None = None
    """How failed model calls are retried (a dict of ``ModelRetrySettings`` fields works too).
    When set, it decides instead of ``RunConfig.model_retry``, whose values fill the fields it
    leaves unset. Merged field by field (the backoff's too); the policy is never serialized."""

    timeout: float | ModelTimeout | None = None
    """How long each attempt of a model call may wait (a dict of ``ModelTimeout`` fields works
    too). A number ``n`` lets the first event and every read take ``n`` seconds (connecting
    at most 5 s); a ``ModelTimeout`` sets the limits apart. Unset: 5 s to connect, 30 s to a
    stream's first event, 120 s of silence while the answer comes (a client you pass in keeps
    its own connect and read limits). Retries are ``retry``'s, else
    ``RunConfig.model_retry``'s: the ``openai`` client's own retries are off."""

    def __post_init__(self) -> None:
        self.retry = coerce_retry_settings(self.retry)
        dump = getattr(self.reasoning, "model_dump", None)
        if callable(dump):  # the openai package's Reasoning, as the SDK takes it
            self.reasoning = dump(exclude_none=True)
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise UserError(f"temperature must be between 0 and 2, got {self.temperature}")
        if self.top_p is not None and not 0 <= self.top_p <= 1:
            raise UserError(f"top_p must be between 0 and 1, got {self.top_p}")
        if isinstance(self.timeout, dict):
            self.timeout = ModelTimeout.of(self.timeout)
        elif self.timeout is not None:
            ModelTimeout.of(self.timeout)  # a number must be positive
        if self.top_logprobs is not None and not 0 <= self.top_logprobs <= 20:
            raise UserError(f"top_logprobs must be between 0 and 20, got {self.top_logprobs}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise UserError(f"max_tokens must be at least 1, got {self.max_tokens}")

    def resolve(self, override: ModelSettings | None) -> ModelSettings:
        """These settings with every non-None field of ``override`` applied on top (``retry``
        merged field by field)."""
        if override is None:
            return self
        changes = {
            f.name: getattr(override, f.name)
            for f in fields(self)
            if getattr(override, f.name) is not None
        }
        if override.retry is not None:
            changes["retry"] = merge_retry_settings(self.retry, override.retry)
        return dataclasses.replace(self, **changes) if changes else self

    def to_json_dict(self) -> dict[str, Any]:
        """The settings that are set, as a JSON-compatible dict (``retry`` without its
        policy)."""
        data = {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None
        }
        if self.retry is not None:
            data["retry"] = self.retry.to_json_dict()
        if isinstance(self.timeout, ModelTimeout):
            data["timeout"] = self.timeout.to_json_dict()
        return data
