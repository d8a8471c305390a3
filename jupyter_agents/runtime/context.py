"""The run context handed to instructions, tools, guardrails and hooks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from .usage import Usage

if TYPE_CHECKING:
    from ._run.spend import Spend

__all__ = ["AgentHookContext", "RunContextWrapper", "TContext", "ToolContext"]

TContext = TypeVar("TContext", default=Any)


@dataclass
class RunContextWrapper(Generic[TContext]):
    """Wraps the user's context object for one run.

    The runtime never reads ``context``; it is yours, passed to every instructions function,
    tool, guardrail and hook of the run.
    """

    context: TContext
    """The object given to ``Runner.run(..., context=...)``."""

    usage: Usage = field(default_factory=Usage)
    """Token usage of the run so far."""

    turn_input: list[Any] = field(default_factory=list)
    """The input items of the current turn's model call (set before each call)."""

    _spend: Spend | None = field(default=None, kw_only=True, repr=False, compare=False)
    """The run's spend while it runs (private): the runs its agent tools start are nested in
    it, so one budget covers them all."""


AgentHookContext = RunContextWrapper
"""The SDK's name for the context agent hooks receive: here the run's own
``RunContextWrapper`` (usable as a generic, ``AgentHookContext[MyContext]``)."""


@dataclass
class ToolContext(RunContextWrapper[TContext]):
    """The run context, plus which tool call is being executed."""

    tool_name: str = ""
    """Name of the tool being invoked."""

    tool_call_id: str = ""
    """Id of the tool call, as sent by the model."""

    tool_arguments: str = ""
    """The raw JSON arguments of the call."""

    tool_call: Any = None
    """The model's call item (e.g. a ``ResponseFunctionToolCall``), when known."""

    run_config: Any = None
    """The run's ``RunConfig``, when the call runs inside a run."""

    def report_progress(self, done: float, total: float | None = None, message: str = "") -> None:
        """Say how far the call has got (``done`` of ``total``, None: not known, with a short
        ``message``): its card shows a progress bar. Does nothing when nobody shows the run;
        works from the tool's thread too."""
        from .tools.live_output import progress_reporter

        report = progress_reporter(self.tool_call_id)
        if report is not None:
            report(float(done), None if total is None else float(total), str(message))

    @classmethod
    def from_agent_context(
        cls,
        context: RunContextWrapper[TContext],
        tool_call_id: str,
        tool_call: Any = None,
        *,
        tool_name: str | None = None,
        tool_arguments: str | None = None,
        run_config: Any = None,
    ) -> ToolContext[TContext]:
        """The SDK's spelling of ``from_run_context``: the tool's name and arguments default
        to ``tool_call``'s (``.name``, ``.arguments``; pass them without a call), and the run
        config to ``context``'s when it is a tool context itself."""
        if (tool_name is None or tool_arguments is None) and tool_call is None:
            from .errors import UserError

            raise UserError(
                "ToolContext.from_agent_context needs tool_call, or tool_name and tool_arguments."
            )
        if run_config is None and isinstance(context, ToolContext):
            run_config = context.run_config
        return cls.from_run_context(
            context,
            tool_name=tool_call.name if tool_name is None else tool_name,
            tool_call_id=tool_call_id,
            tool_arguments=tool_call.arguments if tool_arguments is None else tool_arguments,
            tool_call=tool_call,
            run_config=run_config,
        )

    @classmethod
    def from_run_context(
        cls,
        ctx: RunContextWrapper[TContext],
        *,
        tool_name: str,
        tool_call_id: str,
        tool_arguments: str,
        tool_call: Any = None,
        run_config: Any = None,
    ) -> ToolContext[TContext]:
        """Build a tool context that shares ``ctx``'s user context, usage, turn input and
        spend."""
        return cls(
            context=ctx.context,
            usage=ctx.usage,
            turn_input=ctx.turn_input,
            tool_name=tool_name,
            tool_call_id=tool_call_id,
            tool_arguments=tool_arguments,
            tool_call=tool_call,
            run_config=run_config,
            _spend=ctx._spend,
        )
