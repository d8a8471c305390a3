"""What each kind of span records: one small mutable dataclass per kind.

Code inside a span may fill fields in later (``span.span_data.output = result``), so the
dataclasses are mutable. ``export()`` returns every field plus ``type``; the span drops the
fields named in ``sensitive_fields`` when its trace was started with
``include_sensitive_data=False``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .redact import redact_model_config

__all__ = [
    "AgentSpanData",
    "CustomSpanData",
    "FunctionSpanData",
    "GenerationSpanData",
    "GuardrailSpanData",
    "HandoffSpanData",
    "SpanData",
    "TaskSpanData",
    "TurnSpanData",
]


@dataclass
class SpanData:
    """Base of the span data classes."""

    type: ClassVar[str] = "span"
    """The kind of span: ``agent``, ``generation``, ``function``, ``guardrail``, ..."""

    sensitive_fields: ClassVar[tuple[str, ...]] = ()
    """Fields left out of ``export()`` when the trace excludes sensitive data."""

    def export(self) -> dict[str, Any]:
        """Return ``type`` and every field as a plain dict (values are not copied)."""
        data: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            data[f.name] = getattr(self, f.name)
        return data


@dataclass
class AgentSpanData(SpanData):
    """One agent taking its turns, from becoming current until it hands off or finishes."""

    type: ClassVar[str] = "agent"

    name: str
    """The agent's name."""

    handoffs: list[str] | None = None
    """Names of the agents it can hand off to."""

    tools: list[str] | None = None
    """Names of its tools."""

    output_type: str | None = None
    """Name of its structured output type, or ``None`` for plain text."""


@dataclass
class GenerationSpanData(SpanData):
    """One model call."""

    type: ClassVar[str] = "generation"
    sensitive_fields: ClassVar[tuple[str, ...]] = ("input", "output")

    model: str | None = None
    """The model name."""

    input: Any = None
    """The messages sent to the model (sensitive)."""

    output: Any = None
    """What the model returned (sensitive)."""

    model_config: dict[str, Any] | None = None
    """Settings of the call (temperature, ...); header values and secret-looking query and body
    entries are always redacted."""

    usage: dict[str, Any] | None = None
    """Token counts, e.g. ``{"input_tokens": 10, "output_tokens": 3}``."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "model_config":
            value = redact_model_config(value)
        super().__setattr__(name, value)


@dataclass
class FunctionSpanData(SpanData):
    """One tool call."""

    type: ClassVar[str] = "function"
    sensitive_fields: ClassVar[tuple[str, ...]] = ("input", "output")

    name: str
    """The tool's name."""

    input: Any = None
    """The arguments, usually the JSON string the model wrote (sensitive)."""

    output: Any = None
    """What the tool returned (sensitive)."""


@dataclass
class GuardrailSpanData(SpanData):
    """One guardrail check."""

    type: ClassVar[str] = "guardrail"

    name: str
    """The guardrail's name."""

    triggered: bool = False
    """Whether its tripwire fired."""


@dataclass
class HandoffSpanData(SpanData):
    """Control passing from one agent to another."""

    type: ClassVar[str] = "handoff"

    from_agent: str | None = None
    """The agent handing off."""

    to_agent: str | None = None
    """The agent taking over."""


@dataclass
class CustomSpanData(SpanData):
    """Anything else: a name and a dict of JSON-friendly values."""

    type: ClassVar[str] = "custom"

    name: str
    """What the span measures."""

    data: dict[str, Any] = field(default_factory=dict)
    """Free-form values; exported as they are, whatever ``include_sensitive_data`` says."""


@dataclass
class TaskSpanData(SpanData):
    """One ``Runner`` invocation (the top of a run's spans), exported as a custom span."""

    type: ClassVar[str] = "task"

    name: str
    """The run's workflow name."""

    usage: dict[str, Any] | None = None
    """The tokens the invocation used (its own: a resumed run counts from where it resumed)."""

    metadata: dict[str, Any] | None = None
    """Extra values, exported in the span's ``metadata``."""

    def export(self) -> dict[str, Any]:
        """A custom span (``sdk_span_type``: ``task``), as the tracing backend knows it."""
        data: dict[str, Any] = {"sdk_span_type": self.type, "name": self.name}
        if self.usage is not None:
            data["usage"] = self.usage
        return {"type": "custom", "name": self.type, "data": data}


@dataclass
class TurnSpanData(SpanData):
    """One turn of the run loop (a model call and the tool calls it asked for), exported as a
    custom span."""

    type: ClassVar[str] = "turn"

    turn: int
    """The turn's number in the run, from 1."""

    agent_name: str
    """The agent taking the turn."""

    usage: dict[str, Any] | None = None
    """The tokens the turn used."""

    metadata: dict[str, Any] | None = None
    """Extra values, exported in the span's ``metadata``."""

    def export(self) -> dict[str, Any]:
        """A custom span (``sdk_span_type``: ``turn``), as the tracing backend knows it."""
        data: dict[str, Any] = {
            "sdk_span_type": self.type,
            "turn": self.turn,
            "agent_name": self.agent_name,
        }
        if self.usage is not None:
            data["usage"] = self.usage
        return {"type": "custom", "name": self.type, "data": data}
