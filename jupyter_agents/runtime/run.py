"""The public entry points: ``Runner.run``, ``Runner.run_sync`` and ``Runner.run_streamed``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from typing_extensions import TypedDict, Unpack

from ._run.error_handlers import check_error_handlers
from ._run.loop import RunLoop
from ._run.resume import resume_loop
from ._run.run_provider import run_config_of
from ._run.spend import Spend
from .agent import Agent
from .agent_tool import set_nested_runner
from .approvals import ApprovalHandler
from .blocking import run_on_default_loop
from .context import RunContextWrapper
from .errors import UserError
from .items import TResponseInputItem
from .lifecycle import RunHooks
from .result import RunResult, RunResultStreaming
from .run_config import RunConfig
from .run_error_handlers import RunErrorHandlers
from .run_state import RunState
from .sessions import Session

__all__ = [
    "DEFAULT_AGENT_RUNNER",
    "DEFAULT_MAX_TURNS",
    "AgentRunner",
    "RunConfig",
    "RunKwargs",
    "RunOptions",
    "Runner",
    "get_default_agent_runner",
    "set_default_agent_runner",
]

DEFAULT_MAX_TURNS = 10
"""How many turns (model calls) a run may take unless told otherwise."""


class RunKwargs(TypedDict, total=False):
    """The keyword arguments every ``Runner`` entry point takes (see ``Runner``)."""

    context: Any
    max_turns: int | None
    run_config: RunConfig | dict[str, Any] | None
    approval_handler: ApprovalHandler | None
    hooks: RunHooks[Any] | None
    session: Session | None
    previous_response_id: str | None
    conversation_id: str | None
    auto_previous_response_id: bool
    error_handlers: RunErrorHandlers[Any] | None


@dataclass(frozen=True)
class RunOptions:
    """The options of one run, as one typed value (built from ``RunKwargs``)."""

    context: Any = None
    max_turns: int | None = None
    run_config: RunConfig | dict[str, Any] | None = None
    approval_handler: ApprovalHandler | None = None
    hooks: RunHooks[Any] | None = None
    session: Session | None = None
    previous_response_id: str | None = None
    conversation_id: str | None = None
    auto_previous_response_id: bool = False
    error_handlers: RunErrorHandlers[Any] | None = None

    @classmethod
    def of(cls, kwargs: Mapping[str, Any]) -> RunOptions:
        """Options from keyword arguments; an unknown name is a ``UserError``."""
        if not kwargs:
            return _NO_OPTIONS  # frozen, so one shared instance is safe; runs start here
        unknown = sorted(set(kwargs) - _OPTION_NAMES)
        if unknown:
            known = ", ".join(sorted(_OPTION_NAMES))
            raise UserError(f"Runner got unknown option(s) {', '.join(unknown)}; known: {known}.")
        return cls(**kwargs)


_OPTION_NAMES = frozenset(f.name for f in fields(RunOptions))
_NO_OPTIONS = RunOptions()


def _prepare(agent: Any, input: Any, stream: bool, options: RunOptions) -> RunLoop:
    """The turn loop for one run of ``agent`` on ``input``, every argument checked first."""
    state = _checked_start(agent, input)
    config, owned_provider = run_config_of(options.run_config)
    turns = _max_turns(options, config, state)
    _check_options(options, config)
    handler = options.approval_handler or config.approval_handler
    hooks = options.hooks
    session = options.session
    if state is not None:
        loop = resume_loop(
            state,
            agent,
            context=options.context,
            run_config=config,
            max_turns=turns,
            stream=stream,
            approval_handler=handler,
            hooks=hooks,
        )
        loop.error_handlers = options.error_handlers
        loop.session = session  # it saves the whole run when the resumed part finishes
        loop.owned_provider = owned_provider
        return loop
    loop = RunLoop(
        agent=agent,
        input=input,
        context_wrapper=RunContextWrapper(context=options.context),
        run_config=config,
        max_turns=turns,
        stream=stream,
        approval_handler=handler,
        hooks=hooks,
        previous_response_id=options.previous_response_id,
        conversation_id=options.conversation_id,
        session=session,
        error_handlers=options.error_handlers,
        auto_previous_response_id=bool(options.auto_previous_response_id),
    )
    loop.owned_provider = owned_provider
    return loop


def _checked_start(agent: Any, input: Any) -> RunState | None:
    """The ``RunState`` a run resumes (None for a new run), once ``agent`` and ``input`` are
    of a kind a run starts from."""
    if not isinstance(agent, Agent):
        raise UserError(f"Runner needs an Agent to start with, got {type(agent).__name__}.")
    state = input if isinstance(input, RunState) else None
    if state is None and (
        not isinstance(input, (str, list))
        or (isinstance(input, list) and not all(isinstance(item, dict) for item in input))
    ):
        raise UserError(
            "The run input must be a string, a list of input item dicts "
            "(such as result.to_input_list()) or a RunState (result.to_state()), "
            f"got {type(input).__name__}."
        )
    return state


def _max_turns(options: RunOptions, config: RunConfig, state: RunState | None) -> int:
    """The run's turn limit: the option's, else the config's, else the resumed run's, else
    ``DEFAULT_MAX_TURNS``."""
    turns = options.max_turns if options.max_turns is not None else config.max_turns
    if turns is None:
        turns = state.max_turns if state is not None else DEFAULT_MAX_TURNS
    if not isinstance(turns, int) or turns < 1:
        raise UserError(f"max_turns must be a positive integer, got {turns!r}.")
    return turns


def _check_options(options: RunOptions, config: RunConfig) -> None:
    """A ``UserError`` for hooks, a session, a ``tool_not_found_behavior`` or error handlers
    of the wrong kind."""
    hooks = options.hooks
    if hooks is not None and not isinstance(hooks, RunHooks):
        raise UserError("hooks must be a RunHooks instance (subclass RunHooks).")
    session = options.session
    if session is not None and not isinstance(session, Session):
        raise UserError("session must implement the Session protocol (e.g. SQLiteSession).")
    if config.tool_not_found_behavior not in ("raise_error", "return_error_to_model"):
        raise UserError(
            "RunConfig.tool_not_found_behavior must be 'return_error_to_model' or "
            f"'raise_error', got {config.tool_not_found_behavior!r}."
        )
    check_error_handlers(options.error_handlers)


def _result(loop: RunLoop) -> RunResult:
    progress = loop.progress
    return RunResult(
        input=progress.original_input,
        new_items=progress.new_items,
        raw_responses=loop.raw_responses,
        final_output=loop.final_output,
        context_wrapper=progress.context_wrapper,
        last_agent=progress.current_agent,
        interruptions=list(progress.paused.interruptions),
        input_guardrail_results=loop.input_guardrail_results,
        output_guardrail_results=loop.output_guardrail_results,
        tool_input_guardrail_results=loop.tool_input_guardrail_results,
        tool_output_guardrail_results=loop.tool_output_guardrail_results,
        _progress=progress,
    )


async def _drained(loop: RunLoop) -> RunResult:
    """Run ``loop`` to its end, its events unread."""
    events = loop.events()
    try:
        async for _ in events:
            pass
    finally:
        await events.aclose()
    return _result(loop)


class AgentRunner:
    """The runner behind ``Runner``'s entry points: ``Runner.run`` and the others call the
    default one (``set_default_agent_runner``). Subclass it to change how every run starts,
    or call an instance's methods directly; they take the same arguments as ``Runner``'s."""

    async def run(
        self,
        starting_agent: Agent[Any],
        input: str | list[TResponseInputItem] | RunState,
        **options: Unpack[RunKwargs],
    ) -> RunResult:
        """Run ``starting_agent`` on ``input`` until it produces a final output."""
        return await _drained(_prepare(starting_agent, input, False, RunOptions.of(options)))

    def run_sync(
        self,
        starting_agent: Agent[Any],
        input: str | list[TResponseInputItem] | RunState,
        **options: Unpack[RunKwargs],
    ) -> RunResult:
        """Like ``run``, from synchronous code, on this thread's default event loop (kept open
        for the next run).

        Also works inside an already running event loop (a notebook cell), where the SDK raises
        ``RuntimeError``: the run then happens on a worker thread's own loop while the caller
        waits.
        """
        RunOptions.of(options)  # bad options fail here, in the caller's thread
        return run_on_default_loop(self.run(starting_agent, input, **options))

    def run_streamed(
        self,
        starting_agent: Agent[Any],
        input: str | list[TResponseInputItem] | RunState,
        **options: Unpack[RunKwargs],
    ) -> RunResultStreaming:
        """Start a streamed run and return at once (see ``Runner.run_streamed``)."""
        return RunResultStreaming(_prepare(starting_agent, input, True, RunOptions.of(options)))


DEFAULT_AGENT_RUNNER: AgentRunner = AgentRunner()
"""The runner ``Runner``'s entry points call; replace it with ``set_default_agent_runner``."""


def set_default_agent_runner(runner: AgentRunner | None) -> None:
    """Make ``runner`` the one ``Runner.run``, ``run_sync`` and ``run_streamed`` call (None:
    a fresh ``AgentRunner``)."""
    global DEFAULT_AGENT_RUNNER
    DEFAULT_AGENT_RUNNER = runner or AgentRunner()


def get_default_agent_runner() -> AgentRunner:
    """The runner ``Runner``'s entry points call."""
    return DEFAULT_AGENT_RUNNER


class Runner:
    """Runs agents. All three entry points share one turn loop and take the same arguments.

    Args (keyword-only after ``input``):
        context: Your object, handed to instructions, tools, guardrails and hooks.
        max_turns: Model calls allowed (default 10, or ``RunConfig.max_turns``).
        run_config: Run-wide settings.
        approval_handler: Decides on calls that need approval (else the run pauses).
        hooks: ``RunHooks`` callbacks.
        session: A ``Session``: its history is prepended, and the run's new input and items are
            saved to it when the run finishes (a failed or cancelled run saves nothing).
        previous_response_id: Continue a Responses API conversation stored on the server; only
            new items are sent.
        conversation_id: A Responses API conversation id; only new items are sent.
        auto_previous_response_id: Chain the run's Responses API calls on the server: after
            the first response, each call sends ``previous_response_id`` and only new items.
        error_handlers: Turn a run-ending error into a final output, by kind (``max_turns``,
            ``model_refusal``, ``invalid_final_output``); see ``RunErrorHandlers``.
    """

    @classmethod
    async def run(
        cls,
        starting_agent: Agent[Any],
        input: str | list[TResponseInputItem] | RunState,
        **options: Unpack[RunKwargs],
    ) -> RunResult:
        """Run ``starting_agent`` on ``input`` until it produces a final output."""
        return await DEFAULT_AGENT_RUNNER.run(starting_agent, input, **options)

    @classmethod
    def run_sync(
        cls,
        starting_agent: Agent[Any],
        input: str | list[TResponseInputItem] | RunState,
        **options: Unpack[RunKwargs],
    ) -> RunResult:
        """Like ``run``, from synchronous code.

        Works inside an already running event loop (a notebook cell): the run then happens on a
        worker thread's own loop while the caller waits.
        """
        return DEFAULT_AGENT_RUNNER.run_sync(starting_agent, input, **options)

    @classmethod
    def run_streamed(
        cls,
        starting_agent: Agent[Any],
        input: str | list[TResponseInputItem] | RunState,
        **options: Unpack[RunKwargs],
    ) -> RunResultStreaming:
        """Start a streamed run and return at once.

        Iterate ``result.stream_events()`` to drive the run and see text deltas, tool calls and
        outputs as they happen; ``result.cancel()`` stops it.
        """
        return DEFAULT_AGENT_RUNNER.run_streamed(starting_agent, input, **options)


async def run_in_budget(
    outer: Spend | None,
    starting_agent: Agent[Any],
    input: str | list[TResponseInputItem] | RunState,
    **options: Unpack[RunKwargs],
) -> RunResult:
    """``Runner.run``, for a run that spends from ``outer``'s budget as well as its own (a
    batch row from its batch's; None: none): it is not started when that budget is spent,
    and stops before a call that would go over it."""
    loop = _prepare(starting_agent, input, False, RunOptions.of(options))
    loop.outer_spend = outer
    return await _drained(loop)


def _run_nested(
    agent: Agent[Any],
    input: str | list[TResponseInputItem] | RunState,
    outer: RunContextWrapper[Any],
    **options: Any,
) -> RunResultStreaming:
    """A streamed run started by an agent tool, nested in the run whose tool context is
    ``outer``: its usage is added to that run's (as the SDK does), and its spend too, so one
    budget covers both."""
    loop = _prepare(agent, input, True, RunOptions.of(options))
    loop.outer_spend = outer._spend
    loop.progress.context_wrapper.usage = outer.usage
    return RunResultStreaming(loop)


set_nested_runner(_run_nested)
