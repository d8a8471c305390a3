"""Per-request model settings."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, Union

from pydantic_core import SchemaSerializer, core_schema

from .errors import UserError
from .retry import ModelRetrySettings, coerce_retry_settings, merge_retry_settings

if TYPE_CHECKING:
    from openai.types.shared import Reasoning
    from pydantic import GetCoreSchemaHandler

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

    reasoning: Reasoning | None = None
    """Reasoning options for reasoning models: an ``openai.types.shared.Reasoning``, or a dict
    of its fields such as ``{"effort": "low", "summary": "auto"}`` (made a ``Reasoning``, keys
    newer than the installed ``openai`` package kept as its extras)."""

    verbosity: Literal["low", "medium", "high"] | None = None
    """Output verbosity hint."""

    metadata: dict[str, str] | None = None
    """Metadata stored with the response."""

    store: bool | None = None
    """Whether the provider stores the response (needed for ``previous_response_id``)."""

    prompt_cache_retention: Literal["in_memory", "24h"] | None = None
    """How long the provider keeps the prompt cache."""

    include_usage: bool | None = None
    """Chat Completions: ask for usage in streamed responses (on by default)."""

    response_include: list[str] | None = None
    """Responses API ``include`` values."""

    top_logprobs: int | None = None
    """How many most likely tokens to return, with their log probabilities, at each position
    (the Responses API then also includes the output text's log probabilities)."""

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

    context_management: list[dict[str, Any]] | None = None
    """Responses API: context management entries, e.g.
    ``[{"type": "compaction", "compact_threshold": 200000}]`` for the provider to compact the
    conversation once it passes that many tokens."""

    prompt_cache_options: dict[str, Any] | None = None
    """The provider's prompt cache, e.g. ``{"mode": "explicit", "ttl": "30m"}`` (sent to the
    Responses API and Chat Completions)."""

    preserve_raw_usage: bool | None = None
    """Keep the provider's usage payload, as it came, in ``ModelResponse.raw_usage`` (a JSON
    dict; None when the response had no usage). It does not ask for usage: see
    ``include_usage``."""

    timeout: float | ModelTimeout | None = None
    """How long each attempt of a model call may wait (a dict of ``ModelTimeout`` fields works
    too). A number ``n`` lets the first event and every read take ``n`` seconds (connecting
    at most 5 s); a ``ModelTimeout`` sets the limits apart. Unset: 5 s to connect, 30 s to a
    stream's first event, 120 s of silence while the answer comes (a client you pass in keeps
    its own connect and read limits). Retries are ``retry``'s, else
    ``RunConfig.model_retry``'s: the ``openai`` client's own retries are off."""

    if TYPE_CHECKING:  # what the constructor takes (the fields hold the normalized values)

        def __init__(
            self,
            temperature: float | None = None,
            top_p: float | None = None,
            frequency_penalty: float | None = None,
            presence_penalty: float | None = None,
            tool_choice: ToolChoice | dict[str, Any] = None,
            parallel_tool_calls: bool | None = None,
            truncation: Literal["auto", "disabled"] | None = None,
            max_tokens: int | None = None,
            reasoning: Reasoning | dict[str, Any] | None = None,
            verbosity: Literal["low", "medium", "high"] | None = None,
            metadata: dict[str, str] | None = None,
            store: bool | None = None,
            prompt_cache_retention: Literal["in_memory", "24h"] | None = None,
            include_usage: bool | None = None,
            response_include: list[str] | None = None,
            top_logprobs: int | None = None,
            extra_query: dict[str, Any] | None = None,
            extra_body: dict[str, Any] | None = None,
            extra_headers: dict[str, str] | None = None,
            extra_args: dict[str, Any] | None = None,
            retry: ModelRetrySettings | dict[str, Any] | None = None,
            context_management: list[dict[str, Any]] | None = None,
            prompt_cache_options: dict[str, Any] | None = None,
            preserve_raw_usage: bool | None = None,
            timeout: float | ModelTimeout | dict[str, Any] | None = None,
        ) -> None: ...

    def __post_init__(self) -> None:
        self.retry = coerce_retry_settings(self.retry)
        if isinstance(self.reasoning, Mapping):
            from openai.types.shared import Reasoning

            self.reasoning = Reasoning.model_validate(dict(self.reasoning))
        if isinstance(self.tool_choice, Mapping):
            self.tool_choice = MCPToolChoice(
                **_known(self.tool_choice, MCPToolChoice, "tool_choice")
            )
        for name in ("context_management", "prompt_cache_options"):
            _check_known_keys(name, getattr(self, name))
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

    def resolve(self, override: ModelSettings | Mapping[str, Any] | None) -> ModelSettings:
        """These settings with every non-None field of ``override`` applied on top: a
        ``ModelSettings``, or a dict of the fields to change (an unknown name is a
        ``TypeError``). ``extra_args`` are merged key by key, ``retry`` field by field."""
        if override is None:
            return self
        given: set[str] | None = None
        if not isinstance(override, ModelSettings):
            if not isinstance(override, Mapping):
                raise TypeError(
                    "ModelSettings override must be a ModelSettings instance or a dict, "
                    f"got {type(override).__name__}"
                )
            unknown = sorted(str(k) for k in override if k not in _FIELD_NAMES)
            if unknown:
                raise TypeError(f"Unknown model settings: {', '.join(unknown)}")
            given = set(override)
            override = ModelSettings(**override)
        changes = {
            name: value
            for name in _FIELD_NAMES
            if (given is None or name in given) and (value := getattr(override, name)) is not None
        }
        if changes.get("extra_args") is not None and self.extra_args:
            changes["extra_args"] = {**self.extra_args, **changes["extra_args"]}
        if "retry" in changes:
            changes["retry"] = merge_retry_settings(self.retry, override.retry)
        return dataclasses.replace(self, **changes) if changes else self

    def to_json_dict(self) -> dict[str, Any]:
        """The settings that are set, as a JSON-compatible dict (``retry`` without its
        policy)."""
        return {
            name: _json_value(value)
            for name in _FIELD_NAMES
            if (value := getattr(self, name)) is not None
        }

    def to_traceable_dict(self) -> dict[str, Any]:
        """``to_json_dict`` for traces: the settings that shape the answer, without what is
        only passed to the provider's HTTP request (``extra_headers``, ``extra_query``,
        ``extra_body``, ``extra_args``) nor ``preserve_raw_usage``."""
        return {
            name: _json_value(value)
            for name in _TRACEABLE_FIELDS
            if (value := getattr(self, name)) is not None
        }

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """pydantic (``TypeAdapter(ModelSettings)``, a model field) validates a dict of the
        fields into settings and serializes settings as ``to_json_dict``."""
        return _PYDANTIC_SCHEMA


def _json_value(value: Any) -> Any:
    """A setting's value as JSON-compatible data."""
    if isinstance(value, (str, int, float, bool)):
        return value
    to_json = getattr(value, "to_json_dict", None)
    if to_json is not None:  # ModelRetrySettings, ModelTimeout
        return to_json()
    dump = getattr(value, "model_dump", None)
    if dump is not None:  # Reasoning
        return dump(mode="json", exclude_none=True)
    if isinstance(value, MCPToolChoice):
        return {"server_label": value.server_label, "name": value.name}
    return value


def _known(value: Mapping[str, Any], cls: type, what: str) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    unknown = sorted(str(k) for k in value if k not in names)
    if unknown:
        raise TypeError(f"Unknown model settings in {what}: {', '.join(unknown)}")
    return dict(value)


_KNOWN_KEYS = {
    # The keys of the openai package's ContextManagement and PromptCacheOptions.
    "context_management": frozenset({"type", "compact_threshold"}),
    "prompt_cache_options": frozenset({"mode", "ttl", "prewarm", "comparison_response_id"}),
}


def _check_known_keys(name: str, value: Any) -> None:
    """Refuse a misspelt key of ``context_management`` or ``prompt_cache_options``."""
    if value is None:
        return
    known = _KNOWN_KEYS[name]
    entries = [(name, value)] if isinstance(value, Mapping) else None
    if entries is None:
        if not isinstance(value, (list, tuple)):
            raise UserError(f"{name} must be a list of dicts, got {type(value).__name__}")
        entries = [(f"{name}[{i}]", item) for i, item in enumerate(value)]
    for where, entry in entries:
        if not isinstance(entry, Mapping):
            raise UserError(f"{where} must be a dict, got {type(entry).__name__}")
        unknown = sorted(str(k) for k in entry if k not in known)
        if unknown:
            raise TypeError(f"Unknown model settings in {where}: {', '.join(unknown)}")


_FIELD_NAMES = tuple(f.name for f in fields(ModelSettings))

_TRACEABLE_FIELDS = tuple(
    name
    for name in _FIELD_NAMES
    if name
    not in ("extra_query", "extra_body", "extra_headers", "extra_args", "preserve_raw_usage")
)


def _from_pydantic(value: Any) -> ModelSettings:
    if isinstance(value, ModelSettings):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"ModelSettings expects a dict of its fields, got {type(value).__name__}")
    unknown = sorted(str(k) for k in value if k not in _FIELD_NAMES)
    if unknown:
        raise TypeError(f"Unknown model settings: {', '.join(unknown)}")
    return ModelSettings(**value)


_PYDANTIC_SCHEMA = core_schema.no_info_plain_validator_function(
    _from_pydantic,
    serialization=core_schema.plain_serializer_function_ser_schema(
        lambda settings: settings.to_json_dict()
    ),
)

# pydantic_core.to_json(settings) looks for this serializer on the object.
ModelSettings.__pydantic_serializer__ = SchemaSerializer(_PYDANTIC_SCHEMA)  # type: ignore[attr-defined]
