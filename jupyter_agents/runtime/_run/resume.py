"""Continuing a paused run: a new loop on a snapshot of the saved progress."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..context import RunContextWrapper
from ..errors import UserError
from ..lifecycle import HookCaller, RunHooks
from ..modes import locked_mode, stricter
from .agent_identity import agent_graph
from .loop import RunLoop
from .session_io import own_input

if TYPE_CHECKING:
    from ..agent import Agent
    from ..approvals import ApprovalHandler
    from ..run_config import RunConfig
    from ..run_state import RunState

__all__ = ["resume_loop"]


def resume_loop(
    state: RunState,
    agent: Agent[Any],
    *,
    context: Any,
    run_config: RunConfig,
    max_turns: int,
    stream: bool,
    approval_handler: ApprovalHandler | None,
    hooks: RunHooks[Any] | None = None,
) -> RunLoop:
    """A loop that continues a paused run from ``state``."""
    if agent.name != state.current_agent.name:
        if not any(a is state.current_agent for a in agent_graph(agent)):
            raise UserError(
                f"This state paused while agent {state.current_agent.name!r} was running; "
                f"resume it with that agent or the agent the run started with, not "
                f"{agent.name!r}."
            )
        agent = state.current_agent  # reached from the starting agent through handoffs
    state.mark_resumed()
    loop = RunLoop(
        agent=agent,
        input=state.original_input,
        context_wrapper=state.context_wrapper,
        run_config=run_config,
        max_turns=max_turns,
        stream=stream,
        approval_handler=approval_handler,
        hooks=hooks,
    )
    progress = state.progress.snapshot()
    progress.max_turns = max_turns
    progress.mode.mode = stricter(progress.mode.mode, locked_mode(run_config.mode))
    if context is not None:
        progress.context_wrapper = RunContextWrapper(
            context=context, usage=progress.context_wrapper.usage
        )
        loop.hooks = HookCaller(hooks, progress.context_wrapper)
    loop.progress = progress
    loop.resumed = True
    loop.new_input = own_input(progress)
    return loop
