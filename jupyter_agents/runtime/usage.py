"""Token usage, added up across every model response of a run."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "InputTokensDetails",
    "OutputTokensDetails",
    "RequestUsage",
    "Usage",
    "deserialize_usage",
    "serialize_usage",
]


@dataclass
class InputTokensDetails:
    """Breakdown of the input tokens."""

    cached_tokens: int = 0
    """Input tokens read from the provider's prompt cache (OpenAI's ``cached_tokens``,
    Anthropic's ``cache_read_input_tokens``)."""

    cache_write_tokens: int = 0
    """Input tokens written to the provider's prompt cache (OpenAI's ``cache_write_tokens``,
    Anthropic's ``cache_creation_input_tokens``), which some providers price above input."""


@dataclass
class OutputTokensDetails:
    """Breakdown of the output tokens."""

    reasoning_tokens: int = 0
    """Output tokens spent on reasoning."""


@dataclass
class RequestUsage:
    """The token usage of one model request (an entry of ``Usage.request_usage_entries``)."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    input_tokens_details: InputTokensDetails = field(default_factory=InputTokensDetails)
    output_tokens_details: OutputTokensDetails = field(default_factory=OutputTokensDetails)

    def __post_init__(self) -> None:
        if type(self.input_tokens_details) is not InputTokensDetails:
            self.input_tokens_details = _as_input_details(self.input_tokens_details)
        if type(self.output_tokens_details) is not OutputTokensDetails:
            self.output_tokens_details = _as_output_details(self.output_tokens_details)


def _as_input_details(details: Any) -> InputTokensDetails:
    """Another object with the same fields (the openai package's type; None: zeros)."""
    return InputTokensDetails(
        _count(details, "cached_tokens"), _count(details, "cache_write_tokens")
    )


def _as_output_details(details: Any) -> OutputTokensDetails:
    return OutputTokensDetails(_count(details, "reasoning_tokens"))


@dataclass
class Usage:
    """Token usage of one response or of a whole run. Supports ``+`` and ``add``."""

    requests: int = 0
    """Number of model requests."""

    input_tokens: int = 0
    """Tokens sent to the model."""

    output_tokens: int = 0
    """Tokens the model produced."""

    total_tokens: int = 0
    """Input plus output tokens, as reported by the provider."""

    input_tokens_details: InputTokensDetails = field(default_factory=InputTokensDetails)
    """Details of the input tokens."""

    output_tokens_details: OutputTokensDetails = field(default_factory=OutputTokensDetails)
    """Details of the output tokens."""

    request_usage_entries: list[RequestUsage] = field(default_factory=list, compare=False)
    """One entry per model request added into this usage, in order (a run's per-call usage)."""

    def __post_init__(self) -> None:
        # Details given as the openai package's types (as SDK code does) become this module's.
        if type(self.input_tokens_details) is not InputTokensDetails:
            self.input_tokens_details = _as_input_details(self.input_tokens_details)
        if type(self.output_tokens_details) is not OutputTokensDetails:
            self.output_tokens_details = _as_output_details(self.output_tokens_details)

    def totals(self) -> dict[str, int]:
        """The counts, flat, as saved states and recordings keep them (their key order too)."""
        return {
            "requests": self.requests,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "cached_tokens": self.input_tokens_details.cached_tokens,
            "cache_write_tokens": self.input_tokens_details.cache_write_tokens,
            "reasoning_tokens": self.output_tokens_details.reasoning_tokens,
        }

    def add(self, other: Usage) -> None:
        """Add ``other`` into this usage in place."""
        if other.request_usage_entries:
            self.request_usage_entries.extend(other.request_usage_entries)
        elif other.requests == 1 and (
            other.input_tokens or other.output_tokens or other.total_tokens
        ):  # a request that reported no tokens has no entry, as in the SDK
            self.request_usage_entries.append(
                RequestUsage(
                    other.input_tokens,
                    other.output_tokens,
                    other.total_tokens,
                    replace(other.input_tokens_details),
                    OutputTokensDetails(other.output_tokens_details.reasoning_tokens),
                )
            )
        self.requests += other.requests
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.total_tokens += other.total_tokens
        self.input_tokens_details.cached_tokens += other.input_tokens_details.cached_tokens
        self.input_tokens_details.cache_write_tokens += (
            other.input_tokens_details.cache_write_tokens
        )
        self.output_tokens_details.reasoning_tokens += other.output_tokens_details.reasoning_tokens

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        result = Usage(
            input_tokens_details=replace(self.input_tokens_details),
            output_tokens_details=OutputTokensDetails(self.output_tokens_details.reasoning_tokens),
        )
        result.requests = self.requests
        result.input_tokens = self.input_tokens
        result.output_tokens = self.output_tokens
        result.total_tokens = self.total_tokens
        result.request_usage_entries = list(self.request_usage_entries)
        result.add(other)
        return result


def _count(details: Any, name: str) -> int:
    return int(getattr(details, name, 0) or 0)


def _input_details(details: Any) -> dict[str, int]:
    return {
        "cached_tokens": _count(details, "cached_tokens"),
        "cache_write_tokens": _count(details, "cache_write_tokens"),
    }


def _output_details(details: Any) -> dict[str, int]:
    return {"reasoning_tokens": _count(details, "reasoning_tokens")}


def serialize_usage(usage: Usage) -> dict[str, Any]:
    """``usage`` as JSON-ready data, in the SDK's shape: the counts, the token details each as
    a one-element list, and ``request_usage_entries`` (one dict per model request)."""
    return {
        "requests": usage.requests,
        "input_tokens": usage.input_tokens,
        "input_tokens_details": [_input_details(usage.input_tokens_details)],
        "output_tokens": usage.output_tokens,
        "output_tokens_details": [_output_details(usage.output_tokens_details)],
        "total_tokens": usage.total_tokens,
        "request_usage_entries": [
            {
                "input_tokens": entry.input_tokens,
                "output_tokens": entry.output_tokens,
                "total_tokens": entry.total_tokens,
                "input_tokens_details": _input_details(entry.input_tokens_details),
                "output_tokens_details": _output_details(entry.output_tokens_details),
            }
            for entry in usage.request_usage_entries
        ],
    }


def _details_dict(value: Any) -> dict[str, Any]:
    """A details value as ``serialize_usage`` writes it (a one-element list) or a plain dict."""
    if isinstance(value, list):
        value = value[0] if value else {}
    return value if isinstance(value, dict) else {}


def _input_from(value: Any) -> InputTokensDetails:
    data = _details_dict(value)
    return InputTokensDetails(
        int(data.get("cached_tokens") or 0), int(data.get("cache_write_tokens") or 0)
    )


def _output_from(value: Any) -> OutputTokensDetails:
    return OutputTokensDetails(int(_details_dict(value).get("reasoning_tokens") or 0))


def deserialize_usage(usage_data: Any) -> Usage:
    """The ``Usage`` that ``serialize_usage`` wrote as ``usage_data`` (missing counts: 0)."""
    return Usage(
        requests=int(usage_data.get("requests") or 0),
        input_tokens=int(usage_data.get("input_tokens") or 0),
        output_tokens=int(usage_data.get("output_tokens") or 0),
        total_tokens=int(usage_data.get("total_tokens") or 0),
        input_tokens_details=_input_from(usage_data.get("input_tokens_details")),
        output_tokens_details=_output_from(usage_data.get("output_tokens_details")),
        request_usage_entries=[
            RequestUsage(
                int(entry.get("input_tokens") or 0),
                int(entry.get("output_tokens") or 0),
                int(entry.get("total_tokens") or 0),
                _input_from(entry.get("input_tokens_details")),
                _output_from(entry.get("output_tokens_details")),
            )
            for entry in usage_data.get("request_usage_entries") or []
        ],
    )
