"""Tool guardrails: checks on a function tool's arguments (before it runs) and its output.

A check returns ``ToolGuardrailFunctionOutput`` with a behavior:

- ``allow()``: go on (an output guardrail may pass ``replacement`` to change what the model sees);
- ``reject_content(message)``: the model gets ``message`` instead (the tool does not run, or its
  output is replaced); the run goes on;
- ``raise_exception()``: the run stops with ``ToolInputGuardrailTripwireTriggered`` /
  ``ToolOutputGuardrailTripwireTriggered``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias, Union

from typing_extensions import TypedDict, TypeVar

from ._util import call_maybe_async
from .context import ToolContext
from .errors import UserError

if TYPE_CHECKING:
    from .agent import Agent

__all__ = [
    "AllowBehavior",
    "RaiseExceptionBehavior",
    "RejectContentBehavior",
    "ToolGuardrailBehavior",
    "ToolGuardrailFunctionOutput",
    "ToolInputGuardrail",
    "ToolInputGuardrailData",
    "ToolInputGuardrailResult",
    "ToolOutputGuardrail",
    "ToolOutputGuardrailData",
    "ToolOutputGuardrailResult",
    "tool_input_guardrail",
    "tool_output_guardrail",
]


class AllowBehavior(TypedDict):
    """Go on (``ToolGuardrailFunctionOutput.behavior``)."""

    type: Literal["allow"]


class RejectContentBehavior(TypedDict):
    """The model gets ``message`` instead of the tool's call or output; the run goes on."""

    type: Literal["reject_content"]
    message: str


class RaiseExceptionBehavior(TypedDict):
    """Stop the run with a tripwire exception."""

    type: Literal["raise_exception"]


ToolGuardrailBehavior: TypeAlias = Union[
    AllowBehavior, RejectContentBehavior, RaiseExceptionBehavior
]
"""What a tool guardrail decided, as in the SDK: a dict whose ``type`` says which."""

_KINDS = ("allow", "reject_content", "raise_exception")


@dataclass(frozen=True)
class ToolGuardrailFunctionOutput:
    """What a tool guardrail returns. Build it with the class methods."""

    output_info: Any = None
    """Anything about the checks performed, kept on the result."""

    behavior: ToolGuardrailBehavior = field(default_factory=lambda: AllowBehavior(type="allow"))
    """What the run does next: ``{"type": "allow"}``, ``{"type": "reject_content", "message":
    ...}`` or ``{"type": "raise_exception"}`` (as in the SDK; the bare kind as a string, with
    ``message=``, is accepted too)."""

    message: str | None = None
    """For ``reject_content``: what the model sees instead (also in ``behavior``)."""

    replacement: Any = None
    """For an output guardrail's ``allow``: a replacement output (None keeps the tool's)."""

    def __post_init__(self) -> None:
        given: Any = self.behavior
        kind = (
            given
            if isinstance(given, str)
            else given.get("type")
            if isinstance(given, dict)
            else None
        )
        if kind not in _KINDS:
            raise UserError(
                f"ToolGuardrailFunctionOutput: behavior must be one of {_KINDS} (or its dict), "
                f"not {given!r}."
            )
        message = (
            self.message
            if self.message is not None
            else (given.get("message") if isinstance(given, dict) else None)
        )
        behavior: dict[str, Any] = {"type": kind}
        if kind == "reject_content":
            behavior["message"] = message or ""
        object.__setattr__(self, "behavior", behavior)
        object.__setattr__(self, "message", message)

    @property
    def kind(self) -> Literal["allow", "reject_content", "raise_exception"]:
        """``behavior``'s type."""
        kind: Literal["allow", "reject_content", "raise_exception"] = self.behavior["type"]
        return kind

    @classmethod
    def allow(cls, output_info: Any = None, replacement: Any = None) -> ToolGuardrailFunctionOutput:
        """Go on; an output guardrail may replace what the model sees."""
        return cls(output_info=output_info, replacement=replacement)

    @classmethod
    def reject_content(cls, message: str, output_info: Any = None) -> ToolGuardrailFunctionOutput:
        """The model gets ``message`` instead of the tool's result; the run goes on."""
        behavior = RejectContentBehavior(type="reject_content", message=message)
        return cls(output_info=output_info, behavior=behavior, message=message)

    @classmethod
    def raise_exception(cls, output_info: Any = None) -> ToolGuardrailFunctionOutput:
        """Stop the run."""
        return cls(output_info=output_info, behavior=RaiseExceptionBehavior(type="raise_exception"))


@dataclass(frozen=True)
class ToolInputGuardrailData:
    """What a tool input guardrail sees."""

    context: ToolContext[Any]
    """The tool context (``tool_name``, ``tool_call_id``, ``tool_arguments``, user context)."""

    agent: Agent[Any]
    """The agent whose model asked for the call."""


@dataclass(frozen=True)
class ToolOutputGuardrailData(ToolInputGuardrailData):
    """What a tool output guardrail sees: the input data plus the tool's output."""

    output: Any = None
    """What the tool returned."""


@dataclass
class ToolInputGuardrailResult:
    """The outcome of one tool input guardrail."""

    guardrail: ToolInputGuardrail
    output: ToolGuardrailFunctionOutput


@dataclass
class ToolOutputGuardrailResult:
    """The outcome of one tool output guardrail."""

    guardrail: ToolOutputGuardrail
    output: ToolGuardrailFunctionOutput


def _check_callable(function: Any) -> None:
    if not callable(function):
        raise UserError(f"A tool guardrail's function must be callable, got {function!r}.")


def _checked(value: Any, name: str) -> ToolGuardrailFunctionOutput:
    if not isinstance(value, ToolGuardrailFunctionOutput):
        raise UserError(
            f"Tool guardrail {name!r} must return ToolGuardrailFunctionOutput.allow(), "
            f".reject_content(message) or .raise_exception(); got {type(value).__name__}."
        )
    return value


TContext_co = TypeVar("TContext_co", bound=Any, covariant=True, default=Any)
"""The run context type a tool guardrail is written for (for type checkers only, as in the
SDK: ``ToolInputGuardrail[MyContext]``)."""


@dataclass
class ToolInputGuardrail(Generic[TContext_co]):
    """Checks a call's arguments before the tool runs."""

    guardrail_function: Callable[[ToolInputGuardrailData], Any]
    name: str | None = None

    def get_name(self) -> str:
        """The guardrail's name."""
        return self.name or str(
            getattr(self.guardrail_function, "__name__", "tool_input_guardrail")
        )

    async def run(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        """Run the check."""
        _check_callable(self.guardrail_function)
        return _checked(await call_maybe_async(self.guardrail_function, data), self.get_name())


@dataclass
class ToolOutputGuardrail(Generic[TContext_co]):
    """Checks a tool's output before the model sees it."""

    guardrail_function: Callable[[ToolOutputGuardrailData], Any]
    name: str | None = None

    def get_name(self) -> str:
        """The guardrail's name."""
        return self.name or str(
            getattr(self.guardrail_function, "__name__", "tool_output_guardrail")
        )

    async def run(self, data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        """Run the check."""
        _check_callable(self.guardrail_function)
        return _checked(await call_maybe_async(self.guardrail_function, data), self.get_name())


def tool_input_guardrail(
    func: Callable[[ToolInputGuardrailData], Any] | None = None, /, *, name: str | None = None
) -> Any:
    """Make a ``ToolInputGuardrail`` from a function; use bare or with arguments."""

    def decorate(f: Callable[[ToolInputGuardrailData], Any]) -> ToolInputGuardrail:
        return ToolInputGuardrail(guardrail_function=f, name=name)

    return decorate(func) if func is not None else decorate


def tool_output_guardrail(
    func: Callable[[ToolOutputGuardrailData], Any] | None = None, /, *, name: str | None = None
) -> Any:
    """Make a ``ToolOutputGuardrail`` from a function; use bare or with arguments."""

    def decorate(f: Callable[[ToolOutputGuardrailData], Any]) -> ToolOutputGuardrail:
        return ToolOutputGuardrail(guardrail_function=f, name=name)

    return decorate(func) if func is not None else decorate
