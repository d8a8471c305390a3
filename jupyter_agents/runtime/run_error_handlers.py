"""Run error handlers: a final output instead of a run-ending error (``error_handlers=``).

A handler gets a ``RunErrorHandlerInput`` and returns the final output to end the run with
(a ``RunErrorHandlerResult``, a ``{"final_output": ...}`` dict, or the value itself), or
None to let the error stand. The output must fit the agent's ``output_type``; the run then ends
normally: output guardrails run, the session is saved and ``result.final_output`` is that value.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, Union

from typing_extensions import TypedDict

from .context import RunContextWrapper, TContext
from .errors import MaxTurnsExceeded, ModelBehaviorError

if TYPE_CHECKING:
    from .agent import Agent
    from .items import ModelResponse, RunItem, TResponseInputItem

__all__ = [
    "RunErrorData",
    "RunErrorHandler",
    "RunErrorHandlerInput",
    "RunErrorHandlerResult",
    "RunErrorHandlers",
]


@dataclass
class RunErrorData:
    """What the run had produced when the error happened."""

    input: str | list[TResponseInputItem]
    """The run's original input."""

    new_items: list[RunItem]
    """The items the run produced."""

    history: list[TResponseInputItem]
    """The input followed by the produced items, as input items."""

    output: list[TResponseInputItem]
    """The produced items, as input items."""

    raw_responses: list[ModelResponse]
    """The model responses so far."""

    last_agent: Agent[Any]
    """The agent that was running."""


@dataclass
class RunErrorHandlerInput(Generic[TContext]):
    """What a run error handler receives."""

    error: MaxTurnsExceeded | ModelBehaviorError
    """The error that would end the run (``ModelRefusalError`` is a ``ModelBehaviorError``)."""

    context: RunContextWrapper[TContext]
    """The run's context."""

    run_data: RunErrorData
    """What the run had produced."""


@dataclass
class RunErrorHandlerResult:
    """The final output a handler ends the run with."""

    final_output: Any
    """The run's final output; it must fit the agent's ``output_type``."""

    include_in_history: bool = True
    """Add it to the run's items as an assistant message (so a session or the next run sees
    it)."""


RunErrorHandler: TypeAlias = Callable[
    [RunErrorHandlerInput[Any]],
    Union[RunErrorHandlerResult, dict[str, Any], Any, Awaitable[Any], None],
]
"""``(input) -> result`` (sync or async); None lets the error stand."""


class RunErrorHandlers(TypedDict, Generic[TContext], total=False):
    """Error handlers by the error they handle."""

    max_turns: RunErrorHandler
    """The run used up ``max_turns`` (``MaxTurnsExceeded``)."""

    model_refusal: RunErrorHandler
    """The model refused to give the structured output (``ModelRefusalError``)."""

    invalid_final_output: RunErrorHandler
    """The final answer does not fit the agent's ``output_type`` (``ModelBehaviorError``)."""
