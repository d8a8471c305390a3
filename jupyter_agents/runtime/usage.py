"""Token usage, added up across every model response of a run."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

__all__ = ["InputTokensDetails", "OutputTokensDetails", "RequestUsage", "Usage"]


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
