"""Asking the run's error handlers for a final output instead of a run-ending error."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, Protocol

import pydantic_core

from .._util import call_maybe_async
from ..agent_output import _WRAPPER_KEY, AgentOutputSchema
from ..errors import UserError
from ..items import ItemHelpers, MessageOutputItem
from ..run_error_handlers import RunErrorData, RunErrorHandlerInput, RunErrorHandlerResult

if TYPE_CHECKING:
    from ..agent import Agent
    from ..errors import MaxTurnsExceeded, ModelBehaviorError
    from ..items import ModelResponse
    from ..run_error_handlers import RunErrorHandlers
    from .progress import RunProgress

__all__ = ["ErrorHandlingRun", "ErrorKind", "check_error_handlers", "handled_output"]

ErrorKind = Literal["max_turns", "model_refusal", "invalid_final_output"]
_KINDS: frozenset[str] = frozenset(("max_turns", "model_refusal", "invalid_final_output"))


def check_error_handlers(handlers: Any) -> None:
    """Refuse anything but a mapping of known kinds to callables, at the start of the run."""
    if handlers is None:
        return
    if not isinstance(handlers, dict):
        raise UserError(
            f"error_handlers must be a dict such as {{'max_turns': handler}}, "
            f"got {type(handlers).__name__}."
        )
    for kind, handler in handlers.items():
        if kind not in _KINDS:
            raise UserError(
                f"error_handlers has unknown kind {kind!r}; known: {', '.join(sorted(_KINDS))}."
            )
        if not callable(handler):
            raise UserError(f"error_handlers[{kind!r}] must be callable.")


class ErrorHandlingRun(Protocol):
    """What the error handlers use of a run."""

    @property
    def progress(self) -> RunProgress:
        """The run's input and items (a handler's output joins the items)."""

    @property
    def raw_responses(self) -> list[ModelResponse]:
        """The model's responses so far."""

    @property
    def error_handlers(self) -> RunErrorHandlers[Any] | None:
        """The handlers, by error kind."""


async def handled_output(
    run: ErrorHandlingRun,
    agent: Agent[Any],
    kind: ErrorKind,
    error: MaxTurnsExceeded | ModelBehaviorError,
) -> tuple[Any] | None:
    """The final output the handler for ``kind`` gives, as a 1-tuple (the output may be None);
    None when there is no handler or it lets the error stand. With ``include_in_history`` the
    output is added to the run's items as an assistant message."""
    handler = (run.error_handlers or {}).get(kind)
    if handler is None:
        return None
    progress = run.progress
    output = [item.to_input_item() for item in progress.new_items]
    data = RunErrorData(
        input=progress.original_input,
        new_items=list(progress.new_items),
        history=[*ItemHelpers.input_to_new_input_list(progress.original_input), *output],
        output=output,
        raw_responses=list(run.raw_responses),
        last_agent=agent,
    )
    answer = await call_maybe_async(
        handler, RunErrorHandlerInput(error=error, context=progress.context_wrapper, run_data=data)
    )
    result = _as_result(kind, answer)
    if result is None:
        return None
    value, text = _fit(agent, kind, result.final_output)
    if result.include_in_history:
        # Here, not at the top: the openai types load only when a handler answers, keeping
        # ``import jupyter_agents`` free of openai.
        from ..models._responses_build import message_item

        item = MessageOutputItem(agent=agent, raw_item=message_item(text, "msg_error_handler"))
        progress.new_items.append(item)
        progress.model_input.append(item.to_input_item())
    return (value,)


def _as_result(kind: str, answer: Any) -> RunErrorHandlerResult | None:
    if answer is None or isinstance(answer, RunErrorHandlerResult):
        return answer
    if isinstance(answer, dict) and "final_output" in answer:
        extra = set(answer) - {"final_output", "include_in_history"}
        if extra:
            raise UserError(
                f"The {kind} error handler returned a dict with unknown key(s) "
                f"{', '.join(sorted(extra))}; use final_output and include_in_history."
            )
        return RunErrorHandlerResult(**answer)
    return RunErrorHandlerResult(final_output=answer)


def _fit(agent: Agent[Any], kind: str, value: Any) -> tuple[Any, str]:
    """``value`` checked against the agent's output type, and its text for the history."""
    schema = agent.output_schema
    if schema is None:
        return value, str(value)
    try:
        if isinstance(schema, AgentOutputSchema):
            text = pydantic_core.to_json(
                {_WRAPPER_KEY: value} if schema.wrapped else value
            ).decode()
            shown = pydantic_core.to_json(value).decode()
        else:
            text = shown = json.dumps(value)
        return schema.validate_json(text), shown
    except Exception as e:
        raise UserError(
            f"The {kind} error handler's final_output does not fit agent {agent.name!r}'s "
            f"output_type: {e}"
        ) from None
