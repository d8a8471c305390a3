"""The public entry points: ``Runner.run``, ``Runner.run_sync`` and ``Runner.run_streamed``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._loop import RunLoop, resume_loop
from ._sync import run_blocking
from .agent import Agent
from .approvals import ApprovalHandler
from .context import RunContextWrapper
from .errors import UserError
from .items import TResponseInputItem
from .model_settings import ModelSettings
from .models.interface import Model, ModelProvider
from .result import RunResult, RunResultStreaming
from .run_state import RunState

__all__ = ["DEFAULT_MAX_TURNS", "RunConfig", "Runner"]

DEFAULT_MAX_TURNS = 10
"""How many turns (model calls) a run may take unless told otherwise."""


@dataclass
class RunConfig:
    """Settings for a whole run, overriding the agents' own."""

    model: str | Model | None = None
    """A model (name or instance) used for every agent of the run."""

    model_provider: ModelProvider | None = None
    """Turns model names into models (default: OpenAI, see ``set_default_openai_api``)."""

    model_settings: ModelSettings | None = None
    """Settings applied on top of each agent's ``model_settings``."""

    workflow_name: str = "Agent workflow"
    """A name for the run, for logs and traces."""

    max_turns: int | None = None
    """Turn limit, used when ``Runner.run`` is not given ``max_turns``."""

    approval_handler: ApprovalHandler | None = None
    """Decides on calls that need approval while the run waits; None pauses the run instead."""


def _prepare(
    agent: Any,
    input: Any,
    context: Any,
    max_turns: int | None,
    run_config: RunConfig | None,
    stream: bool,
    approval_handler: ApprovalHandler | None,
) -> RunLoop:
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
    config = run_config if run_config is not None else RunConfig()
    if not isinstance(config, RunConfig):
        raise UserError(f"run_config must be a RunConfig, got {type(config).__name__}.")
    turns = max_turns if max_turns is not None else config.max_turns
    if turns is None:
        turns = state.max_turns if state is not None else DEFAULT_MAX_TURNS
    if not isinstance(turns, int) or turns < 1:
        raise UserError(f"max_turns must be a positive integer, got {turns!r}.")
    handler = approval_handler if approval_handler is not None else config.approval_handler
    if state is not None:
        return resume_loop(state, agent, context, config, turns, stream, handler)
    return RunLoop(
        agent=agent,
        input=input,
        context_wrapper=RunContextWrapper(context=context),
        run_config=config,
        max_turns=turns,
        stream=stream,
        approval_handler=handler,
    )


def _result(loop: RunLoop) -> RunResult:
    return RunResult(
        input=loop.original_input,
        new_items=loop.new_items,
        raw_responses=loop.raw_responses,
        final_output=loop.final_output,
        context_wrapper=loop.context_wrapper,
        last_agent=loop.current_agent,
        interruptions=list(loop.interruptions),
        _loop=loop,
    )


class Runner:
    """Runs agents. All three entry points share one turn loop."""

    @classmethod
    async def run(
        cls,
        starting_agent: Agent[Any],
        input: str | list[TResponseInputItem] | RunState,
        *,
        context: Any = None,
        max_turns: int | None = None,
        run_config: RunConfig | None = None,
        approval_handler: ApprovalHandler | None = None,
    ) -> RunResult:
        """Run ``starting_agent`` on ``input`` until it produces a final output.

        Each turn calls the model once and runs the tools it asked for. Raises
        ``MaxTurnsExceeded`` after ``max_turns`` turns (default 10, or ``RunConfig.max_turns``).
        """
        loop = _prepare(
            starting_agent, input, context, max_turns, run_config, False, approval_handler
        )
        events = loop.events()
        try:
            async for _ in events:
                pass
        finally:
            await events.aclose()
        return _result(loop)

    @classmethod
    def run_sync(
        cls,
        starting_agent: Agent[Any],
        input: str | list[TResponseInputItem] | RunState,
        *,
        context: Any = None,
        max_turns: int | None = None,
        run_config: RunConfig | None = None,
        approval_handler: ApprovalHandler | None = None,
    ) -> RunResult:
        """Like :meth:`run`, from synchronous code.

        Works inside an already running event loop (a notebook cell): the run then happens on a
        worker thread's own loop while the caller waits.
        """
        return run_blocking(
            cls.run(
                starting_agent,
                input,
                context=context,
                max_turns=max_turns,
                run_config=run_config,
                approval_handler=approval_handler,
            )
        )

    @classmethod
    def run_streamed(
        cls,
        starting_agent: Agent[Any],
        input: str | list[TResponseInputItem] | RunState,
        *,
        context: Any = None,
        max_turns: int | None = None,
        run_config: RunConfig | None = None,
        approval_handler: ApprovalHandler | None = None,
    ) -> RunResultStreaming:
        """Start a streamed run and return at once.

        Iterate ``result.stream_events()`` to drive the run and see text deltas, tool calls and
        outputs as they happen; ``result.cancel()`` stops it.
        """
        loop = _prepare(
            starting_agent, input, context, max_turns, run_config, True, approval_handler
        )
        return RunResultStreaming(loop)
