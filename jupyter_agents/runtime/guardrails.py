"""Agent guardrails: checks on a run's input (first agent) and on its final output.

A guardrail function returns ``GuardrailFunctionOutput``; when ``tripwire_triggered`` is
true the run stops with ``InputGuardrailTripwireTriggered`` / ``OutputGuardrailTripwireTriggered``.
Several guardrails run concurrently. Input guardrails run alongside the first model call
(``run_in_parallel=True``, the default; a trip cancels the call) or before it.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, Union, overload

from ._util import call_maybe_async
from .context import RunContextWrapper, TContext
from .errors import UserError

if TYPE_CHECKING:
    from .agent import Agent
    from .items import TResponseInputItem

__all__ = [
    "GuardrailFunctionOutput",
    "InputGuardrail",
    "InputGuardrailResult",
    "OutputGuardrail",
    "OutputGuardrailResult",
    "input_guardrail",
    "output_guardrail",
]


@dataclass
class GuardrailFunctionOutput:
    """What a guardrail function returns."""

    output_info: Any
    """Anything about the checks performed, kept on the result."""

    tripwire_triggered: bool
    """True stops the run."""


@dataclass
class InputGuardrailResult:
    """The outcome of one input guardrail."""

    guardrail: InputGuardrail[Any]
    output: GuardrailFunctionOutput


@dataclass
class OutputGuardrailResult:
    """The outcome of one output guardrail."""

    guardrail: OutputGuardrail[Any]
    agent_output: Any
    """The final output that was checked."""
    agent: Agent[Any]
    output: GuardrailFunctionOutput


MaybeAwaitable: TypeAlias = Union[Awaitable[GuardrailFunctionOutput], GuardrailFunctionOutput]
InputGuardrailFunction: TypeAlias = Callable[
    [RunContextWrapper[Any], "Agent[Any]", "str | list[TResponseInputItem]"], MaybeAwaitable
]
OutputGuardrailFunction: TypeAlias = Callable[
    [RunContextWrapper[Any], "Agent[Any]", Any], MaybeAwaitable
]


def _checked(value: Any, name: str) -> GuardrailFunctionOutput:
    if not isinstance(value, GuardrailFunctionOutput):
        raise UserError(
            f"Guardrail {name!r} must return GuardrailFunctionOutput(output_info, "
            f"tripwire_triggered), got {type(value).__name__}."
        )
    return value


@dataclass
class InputGuardrail(Generic[TContext]):
    """Checks the run's input before or while the first agent's model is called."""

    guardrail_function: InputGuardrailFunction
    """``(run_context, agent, input) -> GuardrailFunctionOutput`` (sync or async)."""

    name: str | None = None
    """A name for results and traces (default: the function's name)."""

    run_in_parallel: bool = True
    """Run alongside the first model call (True) or before it (False)."""

    def get_name(self) -> str:
        """The guardrail's name."""
        default = getattr(self.guardrail_function, "__name__", "input_guardrail")
        return self.name or str(default)

    async def run(
        self,
        agent: Agent[Any],
        input: str | list[TResponseInputItem],
        context: RunContextWrapper[Any],
    ) -> InputGuardrailResult:
        """Run the check."""
        value = await call_maybe_async(self.guardrail_function, context, agent, input)
        return InputGuardrailResult(guardrail=self, output=_checked(value, self.get_name()))


@dataclass
class OutputGuardrail(Generic[TContext]):
    """Checks the final output of the agent that produced it."""

    guardrail_function: OutputGuardrailFunction
    """``(run_context, agent, output) -> GuardrailFunctionOutput`` (sync or async)."""

    name: str | None = None
    """A name for results and traces (default: the function's name)."""

    def get_name(self) -> str:
        """The guardrail's name."""
        default = getattr(self.guardrail_function, "__name__", "output_guardrail")
        return self.name or str(default)

    async def run(
        self, context: RunContextWrapper[Any], agent: Agent[Any], agent_output: Any
    ) -> OutputGuardrailResult:
        """Run the check."""
        value = await call_maybe_async(self.guardrail_function, context, agent, agent_output)
        return OutputGuardrailResult(
            guardrail=self,
            agent_output=agent_output,
            agent=agent,
            output=_checked(value, self.get_name()),
        )


def _check_arity(func: Callable[..., Any], kind: str) -> None:
    try:
        inspect.signature(func).bind(None, None, None)
    except TypeError:
        raise UserError(
            f"@{kind} functions take three arguments: (run_context, agent, "
            f"{'input' if kind == 'input_guardrail' else 'output'})."
        ) from None
    except ValueError:
        pass


@overload
def input_guardrail(func: InputGuardrailFunction, /) -> InputGuardrail[Any]: ...


@overload
def input_guardrail(
    *, name: str | None = None, run_in_parallel: bool = True
) -> Callable[[InputGuardrailFunction], InputGuardrail[Any]]: ...


def input_guardrail(
    func: InputGuardrailFunction | None = None,
    /,
    *,
    name: str | None = None,
    run_in_parallel: bool = True,
) -> InputGuardrail[Any] | Callable[[InputGuardrailFunction], InputGuardrail[Any]]:
    """Make an ``InputGuardrail`` from a function; use bare or with arguments."""

    def decorate(f: InputGuardrailFunction) -> InputGuardrail[Any]:
        _check_arity(f, "input_guardrail")
        return InputGuardrail(guardrail_function=f, name=name, run_in_parallel=run_in_parallel)

    return decorate(func) if func is not None else decorate


@overload
def output_guardrail(func: OutputGuardrailFunction, /) -> OutputGuardrail[Any]: ...


@overload
def output_guardrail(
    *, name: str | None = None
) -> Callable[[OutputGuardrailFunction], OutputGuardrail[Any]]: ...


def output_guardrail(
    func: OutputGuardrailFunction | None = None, /, *, name: str | None = None
) -> OutputGuardrail[Any] | Callable[[OutputGuardrailFunction], OutputGuardrail[Any]]:
    """Make an ``OutputGuardrail`` from a function; use bare or with arguments."""

    def decorate(f: OutputGuardrailFunction) -> OutputGuardrail[Any]:
        _check_arity(f, "output_guardrail")
        return OutputGuardrail(guardrail_function=f, name=name)

    return decorate(func) if func is not None else decorate
