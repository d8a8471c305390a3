"""The turn loop: one loop for ``run``, ``run_sync`` and ``run_streamed``.

``RunLoop.events`` is an async generator of stream events. Streaming callers iterate it;
``Runner.run`` drains it. Each turn: input guardrails (first turn), the model call (streaming or
not), its output as items, then the next step: run the function calls (approvals, tool
guardrails, concurrency), hand off, or finish (structured output, output guardrails). State is
kept incrementally (``model_input`` grows by the new items only), so a turn costs the same at
turn 50 as at turn 1.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from ..agent import Agent
from ..approvals import ApprovalHandler
from ..context import RunContextWrapper
from ..errors import AgentsException
from ..events import AgentUpdatedStreamEvent, ContextCompactedStreamEvent, StreamEvent
from ..guardrails import InputGuardrailResult, OutputGuardrailResult
from ..handoffs import Handoff
from ..items import ItemHelpers, ModelResponse, TResponseInputItem
from ..lifecycle import HookCaller, RunHooks
from ..models.interface import Model, ModelProvider
from ..modes import RunMode, locked_mode
from ..result import RunErrorDetails
from ..sessions import Session
from ..tool_guardrails import ToolInputGuardrailResult, ToolOutputGuardrailResult
from ..tracing import NO_OP_SPAN, Span, Trace, agent_span, task_span, trace, turn_span
from ..tracing.config import include_task_and_turn_spans
from .budget import refuse_if_spent
from .calls import resolve_calls
from .input_guardrails import race, raise_if_tripped, start_input_guardrails
from .model_call import ModelCall, ServerState, resolve_model
from .offer import tools_for
from .progress import (
    FinalOutput,
    HandedOff,
    Interrupted,
    NextStep,
    Paused,
    RunAgain,
    RunProgress,
    TurnPlan,
)
from .run_provider import close_run_provider
from .run_spans import UsageMark, task_usage, turn_usage, usage_mark
from .run_trace import run_trace
from .session_io import load_session, save_session
from .spend import Spend
from .step import finish_turn, out_of_turns

_STEPS = (FinalOutput, HandedOff, Interrupted, RunAgain)

if TYPE_CHECKING:
    from ..replay import RunReplay
    from ..run_config import RunConfig
    from ..run_error_handlers import RunErrorHandlers


class RunLoop:
    """The turn loop of one run; what it has done lives in ``progress``.

    The steps it calls get what they use of it: ``TurnRun`` (after a model
    call), ``ModelCallRun``, ``ToolRun`` (a batch of tool
    calls), or single values.
    """

    def __init__(
        self,
        *,
        agent: Agent[Any],
        input: str | list[TResponseInputItem],
        context_wrapper: RunContextWrapper[Any],
        run_config: RunConfig,
        max_turns: int,
        stream: bool,
        approval_handler: ApprovalHandler | None = None,
        hooks: RunHooks[Any] | None = None,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        session: Session | None = None,
        error_handlers: RunErrorHandlers[Any] | None = None,
        auto_previous_response_id: bool = False,
    ) -> None:
        self.progress = RunProgress(
            current_agent=agent,
            original_input=input if isinstance(input, str) else list(input),
            model_input=ItemHelpers.input_to_new_input_list(input),
            context_wrapper=context_wrapper,
            max_turns=max_turns,
            mode=RunMode(locked_mode(run_config.mode)),
            starting_agent=agent,
        )
        """What the run has done; a paused run's ``RunState`` is a snapshot of it."""
        self.run_config = run_config
        self.stream = stream
        self.final_output: Any = None
        self.done = False
        self.cancelled = False
        self.interrupt_pending = False
        self._stop_mode: Literal["immediate", "after_turn"] | None = None
        self._models: dict[int, Model] = {}
        self.approval_handler = approval_handler
        self.hooks = HookCaller(hooks, context_wrapper)
        self.input_guardrail_results: list[InputGuardrailResult] = []
        self.output_guardrail_results: list[OutputGuardrailResult] = []
        self.tool_input_guardrail_results: list[ToolInputGuardrailResult] = []
        self.tool_output_guardrail_results: list[ToolOutputGuardrailResult] = []
        self._guardrail_mark: tuple[int, int] | None = None  # their counts when a turn began
        self.server = ServerState(
            previous_response_id, conversation_id, chain=auto_previous_response_id
        )
        """What the model provider stores of the conversation."""
        self._tools_used: set[int] = set()
        self._start_due: Agent[Any] | None = None
        """The agent whose start hooks run with the next turn (a resumed run's)."""
        self.session = session
        self.resumed = False
        """True for a loop continuing a paused run (its session history is already in)."""
        self.error_handlers = error_handlers
        self.new_input = ItemHelpers.input_to_new_input_list(input)
        """The run's own input (what a finished run saves to its session)."""
        self.trace: Trace = trace("", disabled=True)
        self.agent_span: Span[Any] = NO_OP_SPAN
        self.task_span: Span[Any] = NO_OP_SPAN
        """The span of this ``Runner`` invocation, above its agent spans (when the trace
        records and ``RunConfig.tracing`` does not turn task and turn spans off)."""
        self.turn_span: Span[Any] = NO_OP_SPAN
        """The span of the turn under way (NO_OP_SPAN between turns, or without turn spans)."""
        self._task_start: UsageMark | None = None
        self.outer_spend: Spend | None = None
        """The spend of the run this one is nested in (an agent tool's caller, a batch), set
        by whoever starts it: one budget covers both."""
        self.owned_provider: ModelProvider | None = None
        """The model provider the run made for itself (no ``model_provider`` given), closed
        when the run ends; set by whoever starts it."""
        self.replay: RunReplay | None = None
        """Records this run, or replays its recording (``RunConfig.replay``)."""
        if run_config.replay is not None or run_config.durable is not None:
            self.replay = _recorder(run_config)

    @property
    def raw_responses(self) -> list[ModelResponse]:
        """The model's responses so far (a resumed run's start with those before the pause)."""
        return self.progress.model_responses

    # -- control -------------------------------------------------------------------------

    def request_stop(self, mode: Literal["immediate", "after_turn"]) -> None:
        """Ask the loop to stop now, or once the current turn is over."""
        if self._stop_mode != "immediate":
            self._stop_mode = mode

    def mark_cancelled(self) -> None:
        """Record that the run ended by cancellation."""
        if not self.done:
            self.cancelled = True
            self.done = True

    def error_details(self) -> RunErrorDetails:
        """What the run had produced so far."""
        inputs, outputs = self._guardrail_mark or (
            len(self.tool_input_guardrail_results),
            len(self.tool_output_guardrail_results),
        )
        return RunErrorDetails(
            input=self.progress.original_input,
            new_items=list(self.progress.new_items),
            raw_responses=list(self.raw_responses),
            last_agent=self.progress.current_agent,
            context_wrapper=self.progress.context_wrapper,
            input_guardrail_results=list(self.input_guardrail_results),
            output_guardrail_results=list(self.output_guardrail_results),
            # the tool guardrails of finished turns (an error mid-turn leaves its own out)
            tool_input_guardrail_results=self.tool_input_guardrail_results[:inputs],
            tool_output_guardrail_results=self.tool_output_guardrail_results[:outputs],
        )

    def _roll_back(self, mark: tuple[int, int]) -> None:
        """Forget the items of an unfinished turn, so no call is left without its output."""
        if not self.done:
            del self.progress.new_items[mark[0] :]
            del self.progress.model_input[mark[1] :]

    def take(self, step: NextStep) -> AgentUpdatedStreamEvent | None:
        """Apply the step a turn ended with; after a handoff, the event announcing the new agent
        (the caller yields it, then runs the ``agent_start`` hook)."""
        if isinstance(step, FinalOutput):
            self.final_output = step.output
            self.done = True
        elif isinstance(step, Interrupted):
            self.progress.paused = step.paused
            self.done = True
        elif isinstance(step, HandedOff):
            self.progress.current_agent = step.agent
            self.start_agent_span(step.agent)
            return AgentUpdatedStreamEvent(new_agent=step.agent)
        return None

    async def _steps(
        self, steps: AsyncGenerator[StreamEvent | NextStep, None]
    ) -> AsyncGenerator[StreamEvent, None]:
        """Events of ``steps``, applying the ``NextStep`` it ends with."""
        async with aclosing(steps):
            async for out in steps:
                if not isinstance(out, _STEPS):
                    yield out
                    continue
                announce = self.take(out)
                if announce is not None:
                    yield announce
                    await self.hooks.agent_start(announce.new_agent)

    def used_tools(self, agent: Agent[Any]) -> bool:
        """Whether ``agent`` has had a tool call in this run (for ``reset_tool_choice``)."""
        return id(agent) in self._tools_used

    def mark_tools_used(self, agent: Agent[Any]) -> None:
        """Record that ``agent`` called tools."""
        self._tools_used.add(id(agent))

    # -- the loop ------------------------------------------------------------------------

    @property
    def step_span(self) -> Span[Any]:
        """The parent of the spans of model and tool calls: the turn's span, else the
        agent's."""
        return self.turn_span if self.turn_span is not NO_OP_SPAN else self.agent_span

    def start_agent_span(self, agent: Agent[Any]) -> None:
        """Close the current agent's span and open one for ``agent``."""
        self.agent_span.finish()
        if not self.trace.recording:
            return
        schema = agent.output_schema
        self.agent_span = agent_span(
            agent.name,
            tools=[t.name for t in agent.tools],
            output_type=schema.name() if schema is not None else "str",
            handoffs=[h.agent_name if isinstance(h, Handoff) else h.name for h in agent.handoffs],
            parent=self.task_span if self.task_span is not NO_OP_SPAN else self.trace,
        )
        self.agent_span.start()

    def offered(self, tools: list[Any], handoffs: list[Handoff[Any]]) -> None:
        """Record on the agent's span what its turn offers the model (enabled tools and
        handoffs, as the SDK's agent spans show them)."""
        if self.agent_span is not NO_OP_SPAN:
            self.agent_span.span_data.tools = [t.name for t in tools]
            self.agent_span.span_data.handoffs = [h.agent_name for h in handoffs]

    def _begin_turn(self) -> tuple[tuple[int, int], UsageMark | None]:
        """Count the turn in; what to roll back to if it is stopped, and the usage mark its
        span counts from (None: no turn span)."""
        self.progress.current_turn += 1
        mark = (len(self.progress.new_items), len(self.progress.model_input))
        self._guardrail_mark = (
            len(self.tool_input_guardrail_results),
            len(self.tool_output_guardrail_results),
        )
        return mark, self._start_turn_span()

    def _start_turn_span(self) -> UsageMark | None:
        """Open the turn's span (with task and turn spans on); the usage mark it counts from."""
        if self.task_span is NO_OP_SPAN:
            return None
        agent = self.progress.current_agent
        self.turn_span = turn_span(self.progress.current_turn, agent.name, parent=self.agent_span)
        self.turn_span.start()
        return usage_mark(self.progress.context_wrapper.usage)

    def _end_turn_span(self, start: UsageMark | None) -> None:
        if start is None:
            return
        end = usage_mark(self.progress.context_wrapper.usage)
        self.turn_span.span_data.usage = turn_usage(start, end)
        self.turn_span.finish()
        self.turn_span = NO_OP_SPAN

    def _start_trace(self) -> None:
        config = self.run_config
        self.trace = run_trace(config, self.progress.trace if self.resumed else None)
        self.trace.start(mark_as_current=True)
        self.progress.trace = self.trace if self.trace.recording else None
        if self.trace.recording and include_task_and_turn_spans(config.tracing):
            self.task_span = task_span(config.workflow_name, parent=self.trace)
            self.task_span.start()
            self._task_start = usage_mark(self.progress.context_wrapper.usage)
        self.start_agent_span(self.progress.current_agent)

    def _end_trace(self, error: BaseException | None) -> None:
        if error is not None and not isinstance(error, (GeneratorExit, asyncio.CancelledError)):
            self.agent_span.set_error("Error in agent run", {"error": str(error)})
        self.agent_span.finish()
        if self._task_start is not None:
            end = usage_mark(self.progress.context_wrapper.usage)
            self.task_span.span_data.usage = task_usage(self._task_start, end)
            usd = self.progress.spend.cost().usd  # priced with the generation spans already
            if usd is not None:
                self.task_span.span_data.metadata = {"cost_usd": str(usd)}
            self.task_span.finish()
        try:
            self.trace.finish(reset_current=True)
        except ValueError:
            # closed by a finaliser in another context, which never saw the trace as current
            self.trace.finish()

    async def events(self) -> AsyncGenerator[StreamEvent, None]:
        """Run turn after turn, yielding every event, until there is a final output.

        One generator on purpose: every raw model event passes through here, so each extra
        layer costs on the hottest path.
        """
        self._start_trace()
        error: BaseException | None = None
        try:
            await self._open()
            yield AgentUpdatedStreamEvent(new_agent=self.progress.current_agent)
            if self.progress.paused:  # as the SDK: the start hooks wait for a new turn
                self._start_due = self.progress.current_agent
                async for event in self._guarded(self._resume_pending()):
                    yield event
            else:
                await self.hooks.agent_start(self.progress.current_agent, self.progress.model_input)
            while not self.done:
                if self._stop_mode is not None:
                    self.mark_cancelled()
                    return
                if self.progress.current_turn >= self.progress.max_turns:
                    self.take(await out_of_turns(self))
                    continue
                mark, turn_start = self._begin_turn()
                turn = self._run_turn()
                try:
                    async with aclosing(turn):
                        async for event in turn:
                            yield event
                            if self._stop_mode == "immediate":
                                self._roll_back(mark)
                                self.mark_cancelled()
                                return
                except (asyncio.CancelledError, GeneratorExit):
                    self._roll_back(mark)
                    raise
                finally:
                    self._end_turn_span(turn_start)
                self._guardrail_mark = None
            finished = not (self.cancelled or self.progress.paused.interruptions)
            if self.session is not None and finished:
                await save_session(self.session, self.new_input, self.progress)
            if self.replay is not None and finished:
                self.replay.finish()  # a finished run's recording (not a stopped one's)
        except AgentsException as e:
            if e.run_data is None:
                e.run_data = self.error_details()
            error = e
            raise
        except BaseException as e:
            error = e
            raise
        finally:
            self._end_trace(error)
            await self._settle(error)

    async def _settle(self, error: BaseException | None) -> None:
        """After the trace: end the run's journal, close the provider the run made."""
        ending = self._ending(error)
        if self.run_config.durable is not None and ending is not None:
            self.run_config.durable.end(ending)
        if self.owned_provider is not None:
            await close_run_provider(self.owned_provider)

    async def _open(self) -> None:
        """Before the first event: the budgets linked, the session's history loaded."""
        self._link_budget()
        if self.session is not None and not self.resumed:  # a resumed run has its history
            merge = self.run_config.session_input_callback
            settings = self.run_config.session_settings
            await load_session(self.session, self.progress, self.new_input, merge, settings)
        if self.outer_spend is not None:  # a nested run starts only while budgets last
            refuse_if_spent(self.progress)

    def _ending(self, error: BaseException | None) -> str | None:
        """How the run ended, for its journal; None when it was dropped or cancelled from
        outside, which a process shutting down does too (a kernel restart interrupts first):
        the journal stays open, and whoever cancelled may end it (``JournalRun.end``)."""
        if isinstance(error, (GeneratorExit, asyncio.CancelledError, KeyboardInterrupt)):
            return None
        if error is not None:
            return "failed"
        if self.cancelled:
            return "cancelled"
        return "paused" if self.progress.paused.interruptions else "done"

    def _link_budget(self) -> None:
        """Give the run's spend its budget and the run it is nested in; its tools' context
        carries it to the runs they start."""
        limit = self.run_config.max_cost_usd
        spend = self.progress.spend
        spend.link(Decimal(str(limit)) if limit is not None else None, self.outer_spend)
        self.progress.context_wrapper._spend = spend

    async def _guarded(
        self, turn: AsyncGenerator[StreamEvent, None]
    ) -> AsyncGenerator[StreamEvent, None]:
        """Run one turn; on stop or cancellation, drop its unfinished items."""
        mark = (len(self.progress.new_items), len(self.progress.model_input))
        try:
            async with aclosing(turn) as events:
                async for event in events:
                    yield event
                    if self._stop_mode == "immediate":
                        self._roll_back(mark)
                        self.mark_cancelled()
                        return
        except (asyncio.CancelledError, GeneratorExit):
            self._roll_back(mark)
            raise

    async def _run_turn(self) -> AsyncGenerator[StreamEvent, None]:
        agent = self.progress.current_agent
        if self._start_due is not None:  # a resumed run's first new turn
            if self._start_due is agent:  # (a handoff while resuming has started its agent)
                await self.hooks.agent_start(agent, self.progress.model_input)
            self._start_due = None
        tools, handoffs = await tools_for(
            agent,
            self.progress.context_wrapper,
            self.progress.mode.mode,
            self.run_config.tool_name_collision_policy,
        )
        self.offered(tools, handoffs)
        call = ModelCall(self, agent, self._model_for(agent), tools, handoffs)
        guard: asyncio.Future[list[InputGuardrailResult]] | None = None
        response: ModelResponse | None = None
        try:
            await call.prepare()
            if call.compacted is not None:
                self.progress.compactions.append(call.compacted)
                yield ContextCompactedStreamEvent(call.compacted)
            guard = await self._input_guardrails(agent)
            if self.stream:
                events = call.stream()
                async with aclosing(events):
                    async for event in events:
                        if isinstance(event, ModelResponse):
                            response = event
                        else:
                            yield event
                        if guard is not None and guard.done():
                            raise_if_tripped(guard)
            else:
                response = await race(call.response(), guard)
            if guard is not None:
                self.input_guardrail_results.extend(await guard)
                raise_if_tripped(guard)
        finally:
            call.release()  # a call never made holds nothing of the budget
            if guard is not None and not guard.done():
                guard.cancel()
        assert response is not None
        self.progress.model_responses.append(response)
        self.progress.context_wrapper.usage.add(response.usage)
        await self.hooks.llm_end(agent, response)
        steps = finish_turn(self, agent, response, tools, handoffs)
        async with aclosing(steps):
            async for out in steps:  # inline, not another generator layer: this is hot
                if not isinstance(out, _STEPS):
                    yield out
                    continue
                announce = self.take(out)
                if announce is not None:
                    yield announce
                    await self.hooks.agent_start(announce.new_agent)

    async def _input_guardrails(
        self, agent: Agent[Any]
    ) -> asyncio.Future[list[InputGuardrailResult]] | None:
        """Start the input guardrails on the run's first turn (not again after a resume)."""
        if self.progress.current_turn != 1 or self.progress.model_responses:
            return None
        return await start_input_guardrails(
            agent,
            self.run_config.input_guardrails,
            self.progress,
            self.agent_span,
            self.input_guardrail_results,
            self.replay,
        )

    async def _resume_pending(self) -> AsyncGenerator[StreamEvent, None]:
        """Continue a paused turn: the calls that waited for decisions."""
        agent = self.progress.current_agent
        tools, handoffs = await tools_for(
            agent,
            self.progress.context_wrapper,
            self.progress.mode.mode,
            self.run_config.tool_name_collision_policy,
        )
        self.offered(tools, handoffs)
        waiting = self.progress.paused
        # what the batch takes its calls' saved escalations and nested runs from
        self.progress.paused = Paused(nested=waiting.nested, escalations=waiting.escalations)
        paused = [*waiting.calls, *waiting.mcp, *waiting.handoffs]
        turn_start = min(
            (i for i, item in enumerate(self.progress.new_items) if item in paused),
            default=len(self.progress.new_items),
        )
        plan = TurnPlan([], waiting.calls, waiting.handoffs, waiting.mcp, False, turn_start, True)
        resolving = resolve_calls(self, agent, tools, handoffs, plan)
        async with aclosing(self._steps(resolving)) as steps:
            async for event in steps:
                yield event

    # -- models and tools ----------------------------------------------------------------

    def _model_for(self, agent: Agent[Any]) -> Model:
        cached = self._models.get(id(agent))
        if cached is not None:
            return cached
        model = resolve_model(agent, self.run_config)
        if self.replay is not None:
            model = self.replay.model(model)
        self._models[id(agent)] = model
        return model


def _recorder(run_config: RunConfig) -> RunReplay:
    """The run's recording: into its cassette, else (a durable run without one) a cassette of
    its own; a durable run's journal saves each step as it is recorded."""
    from ..replay import Cassette
    from ..replay.run_replay import RunReplay

    cassette = run_config.replay if run_config.replay is not None else Cassette(mode="record")
    replay = RunReplay(cassette)
    if run_config.durable is not None:
        replay.journal = run_config.durable.note
    return replay
