"""Input guardrails of a run's first turn: sequential ones before the model call, parallel
ones alongside it (a tripwire cancels the call)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..errors import InputGuardrailTripwireTriggered
from ..guardrails import InputGuardrail, InputGuardrailResult
from ..items import ModelResponse
from ..tracing import guardrail_span

if TYPE_CHECKING:
    from ..agent import Agent
    from ..replay import RunReplay
    from ..tracing import Span
    from .progress import RunProgress

__all__ = ["race", "raise_if_tripped", "start_input_guardrails"]


async def start_input_guardrails(
    agent: Agent[Any],
    run_guards: list[InputGuardrail[Any]],
    progress: RunProgress,
    span: Span[Any],
    results: list[InputGuardrailResult],
    replay: RunReplay | None = None,
) -> asyncio.Future[list[InputGuardrailResult]] | None:
    """The agent's and the run's (``run_guards``) input guardrails, on the run's input:
    sequential ones now, parallel ones as a task (None when there are none). Outcomes of
    sequential ones go to ``results`` here, parallel ones' when the caller awaits the task;
    either way in the order they finished, up to the first tripwire (the others are
    cancelled)."""
    guards = [*agent.input_guardrails, *run_guards]
    if not guards:
        return None
    before = [g for g in guards if not g.run_in_parallel]
    if before:
        done = await _run_guardrails(agent, before, progress, span, replay)
        results.extend(done)
        for result in done:
            if result.output.tripwire_triggered:
                raise InputGuardrailTripwireTriggered(result)
    alongside = [g for g in guards if g.run_in_parallel]
    if not alongside:
        return None
    return asyncio.ensure_future(_run_guardrails(agent, alongside, progress, span, replay))


async def _run_guardrails(
    agent: Agent[Any],
    guards: list[InputGuardrail[Any]],
    progress: RunProgress,
    span: Span[Any],
    replay: RunReplay | None,
) -> list[InputGuardrailResult]:
    async def one(guard: InputGuardrail[Any]) -> InputGuardrailResult:
        value = progress.original_input
        with guardrail_span(guard.get_name(), parent=span) as guard_span:
            if replay is None:
                result = await guard.run(agent, value, progress.context_wrapper)
            else:  # a recorded check of the same input is not made again
                result = await replay.guardrail(
                    ("input", guard.get_name(), agent.name, value),
                    lambda: guard.run(agent, value, progress.context_wrapper),
                    lambda output: InputGuardrailResult(guardrail=guard, output=output),
                )
            guard_span.span_data.triggered = result.output.tripwire_triggered
        return result

    tasks = [asyncio.ensure_future(one(g)) for g in guards]
    results: list[InputGuardrailResult] = []
    try:
        for next_done in asyncio.as_completed(tasks):
            result = await next_done
            results.append(result)
            if result.output.tripwire_triggered:
                break  # the others are not needed: the run stops here
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return results


async def race(call: Any, guard: asyncio.Future[Any] | None) -> ModelResponse:
    """The model call, cancelled as soon as a parallel input guardrail trips."""
    if guard is None:
        return await call  # type: ignore[no-any-return]
    task = asyncio.ensure_future(call)
    try:
        while not task.done():
            await asyncio.wait({task, guard}, return_when=asyncio.FIRST_COMPLETED)
            if guard.done():
                raise_if_tripped(guard)
                await task
        return task.result()  # type: ignore[no-any-return]
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def raise_if_tripped(guard: asyncio.Future[list[InputGuardrailResult]]) -> None:
    """Raise ``InputGuardrailTripwireTriggered`` if one of the (finished) parallel guardrails
    tripped."""
    for result in guard.result():
        if result.output.tripwire_triggered:
            raise InputGuardrailTripwireTriggered(result)
