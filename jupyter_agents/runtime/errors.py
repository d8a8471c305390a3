"""Exceptions raised by the runtime.

Every exception derives from one base class::

    AgentsException
     ├── MaxTurnsExceeded      the run used up its turns; carries the run data so far
     ├── ModelBehaviorError    the model did something the run cannot continue from
     │    └── ModelRefusalError  it refused to give the structured output
     ├── UserError             the code using the library is wrong; the message says what to change
     ├── InputGuardrailTripwireTriggered / OutputGuardrailTripwireTriggered
     │                         an agent guardrail tripped; carries its result
     └── ToolInputGuardrailTripwireTriggered / ToolOutputGuardrailTripwireTriggered
                               a tool guardrail asked to stop the run; carries its result

Control-flow signals (a paused run waiting for approval, a cancelled stream) are not errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .result import RunErrorDetails

__all__ = [
    "AgentsException",
    "InputGuardrailTripwireTriggered",
    "MaxTurnsExceeded",
    "ModelBehaviorError",
    "ModelRefusalError",
    "OutputGuardrailTripwireTriggered",
    "ToolInputGuardrailTripwireTriggered",
    "ToolOutputGuardrailTripwireTriggered",
    "UserError",
]


class AgentsException(Exception):
    """Base class of every exception this library raises."""

    run_data: RunErrorDetails | None
    """What the run had produced when the error happened, when the error ended a run."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.run_data = None


class MaxTurnsExceeded(AgentsException):
    """The run reached ``max_turns`` without a final output.

    ``run_data`` holds the input, the items produced so far, the raw responses and the last agent,
    so nothing the run produced is lost.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ModelBehaviorError(AgentsException):
    """The model produced something the run cannot continue from (for example a malformed
    final output)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ModelRefusalError(ModelBehaviorError):
    """The model refused to give the structured output the agent asks for."""

    def __init__(self, refusal: str) -> None:
        super().__init__(f"The model refused to give the structured output: {refusal}")
        self.refusal = refusal
        """The model's refusal text."""


class UserError(AgentsException):
    """The library was used incorrectly; the message says what to change."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InputGuardrailTripwireTriggered(AgentsException):
    """An input guardrail tripped; ``guardrail_result`` says which and why."""

    def __init__(self, guardrail_result: Any) -> None:
        name = guardrail_result.guardrail.get_name()
        super().__init__(f"Input guardrail {name!r} triggered its tripwire")
        self.guardrail_result = guardrail_result


class OutputGuardrailTripwireTriggered(AgentsException):
    """An output guardrail tripped; ``guardrail_result`` says which and why."""

    def __init__(self, guardrail_result: Any) -> None:
        name = guardrail_result.guardrail.get_name()
        super().__init__(f"Output guardrail {name!r} triggered its tripwire")
        self.guardrail_result = guardrail_result


class ToolInputGuardrailTripwireTriggered(AgentsException):
    """A tool input guardrail asked to stop the run (``raise_exception``)."""

    def __init__(self, guardrail: Any, output: Any) -> None:
        super().__init__(f"Tool input guardrail {guardrail.get_name()!r} stopped the run")
        self.guardrail = guardrail
        self.output = output


class ToolOutputGuardrailTripwireTriggered(AgentsException):
    """A tool output guardrail asked to stop the run (``raise_exception``)."""

    def __init__(self, guardrail: Any, output: Any) -> None:
        super().__init__(f"Tool output guardrail {guardrail.get_name()!r} stopped the run")
        self.guardrail = guardrail
        self.output = output
