"""What the steps after a model call use of their run, and the step that ends a run."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import OutputGuardrailTripwireTriggered
from ..guardrails import OutputGuardrailResult
from ..tracing import guardrail_span
from .error_handlers import ErrorHandlingRun
from .progress import FinalOutput

if TYPE_CHECKING:
    from ..agent import Agent
    from ..approvals import ApprovalHandler
    from ..lifecycle import HookCaller
    from ..replay import RunReplay
    from ..run_config import RunConfig
    from ..tool_guardrails import ToolInputGuardrailResult, ToolOutputGuardrailResult
    from ..tracing import Span
    from .model_call import ServerState

__all__ = ["TurnRun", "finalize"]


class TurnRun(ErrorHandlingRun, Protocol):
    """What the steps after a model call use of their run."""

    @property
    def run_config(self) -> RunConfig:
        """Output guardrails, the handoff input filter, and the tools' settings."""

    @property
    def hooks(self) -> HookCaller:
        """``agent_end``, ``handoff``, and the tools' hooks."""

    @property
    def approval_handler(self) -> ApprovalHandler | None:
        """Who decides on calls while the run waits (None: the run pauses)."""

    @property
    def server(self) -> ServerState:
        """What the provider stores of the conversation."""

    @property
    def agent_span(self) -> Span[Any]:
        """The current agent's span (output guardrails go under it)."""

    @property
    def step_span(self) -> Span[Any]:
        """The turn's span, else the agent's (tool calls and handoffs go under it)."""

    @property
    def output_guardrail_results(self) -> list[OutputGuardrailResult]:
        """Where output guardrail outcomes go."""

    @property
    def tool_input_guardrail_results(self) -> list[ToolInputGuardrailResult]:
        """Where tool input guardrail outcomes go."""

    @property
    def tool_output_guardrail_results(self) -> list[ToolOutputGuardrailResult]:
        """Where tool output guardrail outcomes go."""

    @property
    def replay(self) -> RunReplay | None:
        """Records the run, or replays its recording (``RunConfig.replay``)."""

    def mark_tools_used(self, agent: Agent[Any]) -> None:
        """Record that ``agent`` called tools (for ``reset_tool_choice``)."""


async def finalize(run: TurnRun, agent: Agent[Any], output: Any) -> FinalOutput:
    """Run the output guardrails on ``output``; the run ends with it."""
    guards = [*agent.output_guardrails, *run.run_config.output_guardrails]
    if guards:

        async def one(guard: Any) -> Any:
            context, replay = run.progress.context_wrapper, run.replay
            with guardrail_span(guard.get_name(), parent=run.agent_span) as span:
                if replay is None:
                    result = await guard.run(context, agent, output)
                else:  # a recorded check of the same output is not made again
                    result = await replay.guardrail(
                        ("output", guard.get_name(), agent.name, output),
                        lambda: guard.run(context, agent, output),
                        lambda checked: OutputGuardrailResult(guard, output, agent, checked),
                    )
                span.span_data.triggered = result.output.tripwire_triggered
            return result

        results = await asyncio.gather(*(one(g) for g in guards))
        run.output_guardrail_results.extend(results)
        for result in results:
            if result.output.tripwire_triggered:
                raise OutputGuardrailTripwireTriggered(result)
    await run.hooks.agent_end(agent, output)
    return FinalOutput(output)
