"""The turn loop: one loop for ``run``, ``run_sync`` and ``run_streamed``.

:meth:`RunLoop.events` is an async generator of stream events. Streaming callers iterate it;
``Runner.run`` drains it. Each turn: build the model input, call the model (streaming or not),
turn its output into items, run the function calls concurrently, and decide the next step.
State is kept incrementally (``model_input`` grows by the new items only), so a turn costs the
same at turn 50 as at turn 1.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ._mcp_approvals import answer_mcp_request
from ._tool_exec import ToolBatch
from .agent import Agent
from .approvals import ApprovalHandler, ApprovalLedger
from .context import RunContextWrapper
from .errors import AgentsException, MaxTurnsExceeded, ModelBehaviorError, UserError
from .events import (
    AgentUpdatedStreamEvent,
    RawResponsesStreamEvent,
    RunItemEventName,
    RunItemStreamEvent,
    StreamEvent,
)
from .items import (
    ItemHelpers,
    MCPApprovalRequestItem,
    MCPListToolsItem,
    MessageOutputItem,
    ModelResponse,
    ReasoningItem,
    RunItem,
    ToolApprovalItem,
    ToolCallItem,
    TResponseInputItem,
)
from .models.interface import Model, ModelTracing
from .models.provider import default_provider
from .models.usage import usage_from_openai
from .result import RunErrorDetails
from .tools import FunctionTool, Tool

if TYPE_CHECKING:
    from .run import RunConfig
    from .run_state import RunState

_EVENT_NAMES: dict[str, RunItemEventName] = {
    "message_output_item": "message_output_created",
    "tool_call_item": "tool_called",
    "reasoning_item": "reasoning_item_created",
    "mcp_list_tools_item": "mcp_list_tools",
    "mcp_approval_request_item": "mcp_approval_requested",
}


@dataclass(frozen=True)
class _TurnTools:
    """The tools of one turn: what the model sees and what may be called."""

    visible: list[Tool]
    callable: dict[str, FunctionTool]
    all_names: list[str]


class RunLoop:
    """The state and the turn loop of one run."""

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
    ) -> None:
        self.current_agent = agent
        self.original_input = input if isinstance(input, str) else list(input)
        self.model_input: list[TResponseInputItem] = ItemHelpers.input_to_new_input_list(input)
        self.context_wrapper = context_wrapper
        self.run_config = run_config
        self.max_turns = max_turns
        self.stream = stream
        self.new_items: list[RunItem] = []
        self.raw_responses: list[ModelResponse] = []
        self.current_turn = 0
        self.final_output: Any = None
        self.done = False
        self.cancelled = False
        self.interrupt_pending = False
        self._stop_mode: Literal["immediate", "after_turn"] | None = None
        self._models: dict[int, Model] = {}
        self.approval_handler: ApprovalHandler | None = approval_handler
        self.ledger = ApprovalLedger()
        self.interruptions: list[ToolApprovalItem | MCPApprovalRequestItem] = []
        self.pending_calls: list[ToolCallItem] = []
        self.pending_mcp: list[MCPApprovalRequestItem] = []

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
        return RunErrorDetails(
            input=self.original_input,
            new_items=list(self.new_items),
            raw_responses=list(self.raw_responses),
            final_output=None,
            context_wrapper=self.context_wrapper,
            last_agent=self.current_agent,
        )

    def _roll_back(self, mark: tuple[int, int]) -> None:
        """Forget the items of an unfinished turn, so no call is left without its output."""
        if not self.done:
            del self.new_items[mark[0] :]
            del self.model_input[mark[1] :]

    # -- the loop ------------------------------------------------------------------------

    @property
    def is_interrupted(self) -> bool:
        """True when the run paused for approvals."""
        return bool(self.interruptions)

    async def events(self) -> AsyncGenerator[StreamEvent, None]:
        """Run turn after turn, yielding every event, until there is a final output."""
        try:
            yield AgentUpdatedStreamEvent(new_agent=self.current_agent)
            if self.pending_calls or self.pending_mcp:
                mark = (len(self.new_items), len(self.model_input))
                try:
                    async with aclosing(self._resume_pending()) as events:
                        async for event in events:
                            yield event
                except (asyncio.CancelledError, GeneratorExit):
                    self._roll_back(mark)
                    raise
            while not self.done:
                if self._stop_mode is not None:
                    self.mark_cancelled()
                    return
                if self.current_turn >= self.max_turns:
                    raise MaxTurnsExceeded(f"Max turns ({self.max_turns}) exceeded")
                self.current_turn += 1
                mark = (len(self.new_items), len(self.model_input))
                try:
                    async with aclosing(self._run_turn()) as events:
                        async for event in events:
                            yield event
                            if self._stop_mode == "immediate":
                                self._roll_back(mark)
                                self.mark_cancelled()
                                return
                except (asyncio.CancelledError, GeneratorExit):
                    self._roll_back(mark)
                    raise
        except AgentsException as e:
            if e.run_data is None:
                e.run_data = self.error_details()
            raise

    async def _run_turn(self) -> AsyncGenerator[StreamEvent, None]:
        agent = self.current_agent
        turn_tools = await self._tools_for(agent)
        response: ModelResponse | None = None
        streamed: dict[int, RunItem] = {}
        if self.stream:
            async with aclosing(self._stream_model(agent, turn_tools.visible, streamed)) as events:
                async for event in events:
                    if isinstance(event, ModelResponse):
                        response = event
                    else:
                        yield event
        else:
            response = await self._call_model(agent, turn_tools.visible)
        assert response is not None
        self.raw_responses.append(response)
        self.context_wrapper.usage.add(response.usage)

        calls: list[ToolCallItem] = []
        mcp_requests: list[MCPApprovalRequestItem] = []
        messages: list[MessageOutputItem] = []
        hosted_activity = False
        for index, raw in enumerate(response.output):
            item = streamed.get(index) or _make_item(raw, agent)
            if item is None:
                continue
            self.new_items.append(item)
            self.model_input.append(item.to_input_item())
            if index not in streamed:
                yield RunItemStreamEvent(name=_EVENT_NAMES[item.type], item=item)
            if isinstance(item, MessageOutputItem):
                messages.append(item)
            elif isinstance(item, MCPApprovalRequestItem):
                mcp_requests.append(item)
            elif isinstance(item, ToolCallItem):
                if raw.type == "function_call":
                    calls.append(item)
                else:
                    hosted_activity = True
            else:
                hosted_activity = hosted_activity or isinstance(item, MCPListToolsItem)

        if calls or mcp_requests:
            async with aclosing(self._resolve(agent, turn_tools, calls, mcp_requests)) as events:
                async for event in events:
                    yield event
            return
        if not messages and hosted_activity:
            return
        self.final_output = ItemHelpers.text_message_output(messages[-1]) if messages else ""
        self.done = True

    async def _resolve(
        self,
        agent: Agent[Any],
        turn_tools: _TurnTools,
        calls: list[ToolCallItem],
        mcp_requests: list[MCPApprovalRequestItem],
    ) -> AsyncGenerator[StreamEvent, None]:
        """Answer the turn's MCP approval requests and run its function calls."""
        waiting_mcp: list[MCPApprovalRequestItem] = []
        for request in mcp_requests:
            response = await answer_mcp_request(
                agent, request, self.ledger, self.context_wrapper, self.approval_handler
            )
            if response is None:
                waiting_mcp.append(request)
            else:
                self.new_items.append(response)
                self.model_input.append(response.raw_item)
        batch = ToolBatch(
            agent,
            calls,
            turn_tools.callable,
            turn_tools.all_names,
            self.context_wrapper,
            self.ledger,
            self.approval_handler,
        )
        if calls:
            async with aclosing(batch.run()) as events:
                async for event in events:
                    yield event
        for output in batch.outputs:
            self.new_items.append(output)
            self.model_input.append(output.raw_item)
        if batch.interruptions or waiting_mcp:
            waiting_ids = {item.call_id for item in batch.interruptions}
            self.pending_calls = [c for c in calls if c.call_id in waiting_ids]
            self.pending_mcp = waiting_mcp
            self.interruptions = [*batch.interruptions, *waiting_mcp]
            self.done = True
        else:
            self.pending_calls, self.pending_mcp, self.interruptions = [], [], []

    async def _resume_pending(self) -> AsyncGenerator[StreamEvent, None]:
        """Continue a paused turn: the calls that waited for decisions."""
        agent = self.current_agent
        turn_tools = await self._tools_for(agent)
        calls, requests = self.pending_calls, self.pending_mcp
        self.pending_calls, self.pending_mcp, self.interruptions = [], [], []
        async with aclosing(self._resolve(agent, turn_tools, calls, requests)) as events:
            async for event in events:
                yield event

    # -- model calls ---------------------------------------------------------------------

    async def _model_args(self, agent: Agent[Any]) -> tuple[Model, str | None, Any]:
        model = self._model_for(agent)
        instructions = await agent.get_system_prompt(self.context_wrapper)
        settings = agent.model_settings.resolve(self.run_config.model_settings)
        return model, instructions, settings

    async def _call_model(self, agent: Agent[Any], tools: list[Tool]) -> ModelResponse:
        model, instructions, settings = await self._model_args(agent)
        return await model.get_response(
            instructions, self.model_input, settings, tools, None, [], ModelTracing.DISABLED
        )

    async def _stream_model(
        self, agent: Agent[Any], tools: list[Tool], streamed: dict[int, RunItem]
    ) -> AsyncGenerator[StreamEvent | ModelResponse, None]:
        model, instructions, settings = await self._model_args(agent)
        stream = model.stream_response(
            instructions, self.model_input, settings, tools, None, [], ModelTracing.DISABLED
        )
        final = None
        event: Any
        try:
            async for event in stream:
                yield RawResponsesStreamEvent(data=event)
                kind = event.type
                if kind == "response.output_item.done":
                    item = _make_item(event.item, agent)
                    if item is not None:
                        streamed[event.output_index] = item
                        yield RunItemStreamEvent(name=_EVENT_NAMES[item.type], item=item)
                elif kind == "response.completed" or kind == "response.incomplete":
                    final = event.response
                elif kind == "response.failed" or kind == "error":
                    raise ModelBehaviorError(f"The model's response failed: {_failure_text(event)}")
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
        if final is None:
            raise ModelBehaviorError("The model's stream ended without a response.completed event.")
        yield ModelResponse(
            output=list(final.output), usage=usage_from_openai(final.usage), response_id=final.id
        )

    def _model_for(self, agent: Agent[Any]) -> Model:
        cached = self._models.get(id(agent))
        if cached is not None:
            return cached
        model = resolve_model(agent, self.run_config)
        self._models[id(agent)] = model
        return model

    async def _tools_for(self, agent: Agent[Any]) -> _TurnTools:
        visible = await agent.get_all_tools(self.context_wrapper)
        visible.sort(key=lambda t: t.name)
        names: dict[str, Tool] = {}
        for item in visible:
            other = names.setdefault(item.name, item)
            if other is not item:
                raise UserError(
                    f"Agent {agent.name!r} has two different tools named {item.name!r}: "
                    f"{other!r} and {item!r}. Rename one with name_override."
                )
        callable_tools = {t.name: t for t in visible if isinstance(t, FunctionTool)}
        all_names = [t.name for t in agent.tools]
        return _TurnTools(visible=visible, callable=callable_tools, all_names=all_names)


def resolve_model(agent: Agent[Any], run_config: RunConfig) -> Model:
    """The model for ``agent``: RunConfig's override, then the agent's, then the default."""
    override = run_config.model
    if isinstance(override, Model):
        return override
    if override is None and isinstance(agent.model, Model):
        return agent.model
    name = override if override is not None else agent.model
    provider = run_config.model_provider
    if provider is None:
        provider = default_provider()
    return provider.get_model(name if isinstance(name, str) else None)


def _make_item(raw: Any, agent: Agent[Any]) -> RunItem | None:
    kind = raw.type
    if kind == "message":
        return MessageOutputItem(agent=agent, raw_item=raw)
    if kind == "mcp_approval_request":
        return MCPApprovalRequestItem(agent=agent, raw_item=raw)
    if kind == "mcp_list_tools":
        return MCPListToolsItem(agent=agent, raw_item=raw)
    if kind == "function_call" or kind.endswith("_call"):
        return ToolCallItem(agent=agent, raw_item=raw)
    if kind == "reasoning":
        return ReasoningItem(agent=agent, raw_item=raw)
    return None


def _failure_text(event: Any) -> str:
    response = getattr(event, "response", None)
    error = getattr(response, "error", None) or event
    return str(getattr(error, "message", None) or error)


def resume_loop(
    state: RunState,
    agent: Agent[Any],
    context: Any,
    run_config: RunConfig,
    max_turns: int,
    stream: bool,
    approval_handler: ApprovalHandler | None,
) -> RunLoop:
    """A loop that continues a paused run from ``state``."""
    if agent.name != state.current_agent.name:
        raise UserError(
            f"This state paused while agent {state.current_agent.name!r} was running; "
            f"resume it with that agent, not {agent.name!r}."
        )
    state.mark_resumed()
    wrapper = state.context_wrapper
    if context is not None:
        wrapper = RunContextWrapper(context=context, usage=wrapper.usage)
    loop = RunLoop(
        agent=agent,
        input=state.original_input,
        context_wrapper=wrapper,
        run_config=run_config,
        max_turns=max_turns,
        stream=stream,
        approval_handler=approval_handler,
    )
    loop.model_input = list(state.model_input)
    loop.new_items = list(state.new_items)
    loop.current_turn = state.current_turn
    loop.ledger = ApprovalLedger.from_json(state.ledger.to_json())
    loop.pending_calls = list(state.pending_calls)
    loop.pending_mcp = list(state.pending_mcp)
    return loop
