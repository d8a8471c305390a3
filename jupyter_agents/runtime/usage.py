"""Token usage, added up across every model response of a run."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["InputTokensDetails", "OutputTokensDetails", "Usage"]


@dataclass
class InputTokensDetails:
    """Breakdown of the input tokens."""

    cached_tokens: int = 0
    """Input tokens served from the provider's prompt cache."""


@dataclass
class OutputTokensDetails:
    """Breakdown of the output tokens."""

    reasoning_tokens: int = 0
    """Output tokens spent on reasoning."""


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

    def add(self, other: Usage) -> None:
        """Add ``other`` into this usage in place."""
        self.requests += other.requests
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.total_tokens += other.total_tokens
        self.input_tokens_details.cached_tokens += other.input_tokens_details.cached_tokens
        self.output_tokens_details.reasoning_tokens += other.output_tokens_details.reasoning_tokens

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        result = Usage(
            input_tokens_details=InputTokensDetails(self.input_tokens_details.cached_tokens),
            output_tokens_details=OutputTokensDetails(self.output_tokens_details.reasoning_tokens),
        )
        result.requests = self.requests
        result.input_tokens = self.input_tokens
        result.output_tokens = self.output_tokens
        result.total_tokens = self.total_tokens
        result.add(other)
        return result
