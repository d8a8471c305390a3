"""The public entry points: ``Runner.run``, ``Runner.run_sync`` and ``Runner.run_streamed``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._loop import RunLoop
from ._sync import run_blocking
from .agent import Agent
from .context import RunContextWrapper
from .errors import UserError
from .items import TResponseInputItem
from .model_settings import ModelSettings
from .models.interface import Model, ModelProvider
from .result import RunResult, RunResultStreaming

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


def _prepare(
    agent: Any,
    input: Any,
    context: Any,
    max_turns: int | None,
    run_config: RunConfig | None,
    stream: bool,
) -> RunLoop:
    if not isinstance(agent, Agent):
        raise UserError(f"Runner needs an Agent to start with, got {type(agent).__name__}.")
    if not isinstance(input, (str, list)) or (
        isinstance(input, list) and not all(isinstance(item, dict) for item in input)
    ):
        raise UserError(
            "The run input must be a string or a list of input item dicts "
            f"(such as result.to_input_list()), got {type(input).__name__}."
        )
    config = run_config if run_config is not None else RunConfig()
    if not isinstance(config, RunConfig):
        raise UserError(f"run_config must be a RunConfig, got {type(config).__name__}.")
    turns = max_turns if max_turns is not None else config.max_turns
    turns = DEFAULT_MAX_TURNS if turns is None else turns
    if not isinstance(turns, int) or turns < 1:
        raise UserError(f"max_turns must be a positive integer, got {turns!r}.")
    return RunLoop(
        agent=agent,
        input=input,
        context_wrapper=RunContextWrapper(context=context),
        run_config=config,
        max_turns=turns,
        stream=stream,
    )


def _result(loop: RunLoop) -> RunResult:
    return RunResult(
        input=loop.original_input,
        new_items=loop.new_items,
        raw_responses=loop.raw_responses,
        final_output=loop.final_output,
        context_wrapper=loop.context_wrapper,
        last_agent=loop.current_agent,
    )


class Runner:
    """Runs agents. All three entry points share one turn loop."""

    @classmethod
    async def run(
        cls,
        starting_agent: Agent[Any],
        input: str | list[TResponseInputItem],
        *,
        context: Any = None,
        max_turns: int | None = None,
        run_config: RunConfig | None = None,
    ) -> RunResult:
        """Run ``starting_agent`` on ``input`` until it produces a final output.

        Each turn calls the model once and runs the tools it asked for. Raises
        ``MaxTurnsExceeded`` after ``max_turns`` turns (default 10, or ``RunConfig.max_turns``).
        """
        loop = _prepare(starting_agent, input, context, max_turns, run_config, stream=False)
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
        input: str | list[TResponseInputItem],
        *,
        context: Any = None,
        max_turns: int | None = None,
        run_config: RunConfig | None = None,
    ) -> RunResult:
        """Like :meth:`run`, from synchronous code.

        Works inside an already running event loop (a notebook cell): the run then happens on a
        worker thread's own loop while the caller waits.
        """
        _prepare(starting_agent, input, context, max_turns, run_config, stream=False)
        return run_blocking(
            cls.run(
                starting_agent,
                input,
                context=context,
                max_turns=max_turns,
                run_config=run_config,
            )
        )

    @classmethod
    def run_streamed(
        cls,
        starting_agent: Agent[Any],
        input: str | list[TResponseInputItem],
        *,
        context: Any = None,
        max_turns: int | None = None,
        run_config: RunConfig | None = None,
    ) -> RunResultStreaming:
        """Start a streamed run and return at once.

        Iterate ``result.stream_events()`` to drive the run and see text deltas, tool calls and
        outputs as they happen; ``result.cancel()`` stops it.
        """
        loop = _prepare(starting_agent, input, context, max_turns, run_config, stream=True)
        return RunResultStreaming(loop)
