"""One model call of a turn: input, settings, hooks, retries, streaming or not."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import AsyncGenerator, Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from .._pricing import price_ref_of
from .._util import call_maybe_async
from ..agent import Agent
from ..errors import ModelBehaviorError, UserError
from ..events import RawResponsesStreamEvent, StreamEvent
from ..handoffs import Handoff
from ..items import ModelResponse, RunItem, TResponseInputItem
from ..model_settings import ModelSettings
from ..models.interface import Model, ModelTracing
from ..models.multi_provider import MultiProvider
from ..models.usage import raw_usage_snapshot, usage_from_openai
from ..run_config import CallModelData, ModelInputData, RunConfig
from ..tools import Tool
from ..tracing import NO_OP_SPAN, Span, generation_span
from ..tracing.scope import Scope
from .attempts import Attempts
from .budget import Held, request_chars, reserve
from .context_compaction import compact_if_needed
from .input_dedupe import latest_unique

if TYPE_CHECKING:
    from ..compaction import Compacted
    from ..lifecycle import HookCaller
    from .progress import RunProgress

logger = logging.getLogger("jupyter_agents")

__all__ = ["ModelCall", "ModelCallRun", "ServerState", "item_event_name", "resolve_model"]


@dataclass(slots=True)
class ServerState:
    """What the model provider stores of the conversation (Responses API server-side state),
    so each call sends only the items it has not seen."""

    previous_response_id: str | None = None
    """The response the next call continues from; it moves on with each response."""

    conversation_id: str | None = None
    """A provider conversation the run's items are added to."""

    chain: bool = False
    """``auto_previous_response_id``: continue from the run's first response on."""

    sent: int = 0
    """How many items at the start of the model input the provider has."""

    def unsent(self, model_input: list[TResponseInputItem]) -> list[TResponseInputItem]:
        """The input to send: everything, or only what the provider has not seen yet."""
        if self.previous_response_id is not None or self.conversation_id is not None:
            return model_input[self.sent :]
        return model_input

    def stored(self, response: ModelResponse, model_input: list[TResponseInputItem]) -> None:
        """The provider answered with ``response``: it has ``model_input`` (the response's
        items included), and the next call continues from the response."""
        if self.previous_response_id is None and self.conversation_id is None:
            if not (self.chain and response.response_id):
                return
            self.previous_response_id = response.response_id  # chain from the first response on
        self.sent = len(model_input)
        if self.previous_response_id is not None and response.response_id:
            self.previous_response_id = response.response_id


@functools.lru_cache(maxsize=256)
def takes_prompt(model: type[Model]) -> bool:
    """Whether ``model``'s ``get_response`` takes ``prompt`` (by name, or as ``**kwargs``)."""
    try:
        parameters = inspect.signature(model.get_response).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "prompt" or p.kind is p.VAR_KEYWORD for p in parameters)


class ModelCallRun(Protocol):
    """What a model call uses of its run."""

    @property
    def progress(self) -> RunProgress:
        """The run's context and model input."""

    @property
    def run_config(self) -> RunConfig:
        """Model settings, retries and the input filter."""

    @property
    def hooks(self) -> HookCaller:
        """``llm_start``."""

    @property
    def server(self) -> ServerState:
        """What the provider stores of the conversation."""

    @property
    def step_span(self) -> Span[Any]:
        """The parent of the call's span (the turn's, else the agent's)."""

    def used_tools(self, agent: Agent[Any]) -> bool:
        """Whether ``agent`` has had a tool call in the run (``reset_tool_choice``)."""


class ModelCall:
    """Prepares and performs one model call of a run."""

    def __init__(
        self,
        run: ModelCallRun,
        agent: Agent[Any],
        model: Model,
        tools: list[Tool],
        handoffs: list[Handoff[Any]],
    ) -> None:
        self.run = run
        self.agent = agent
        self.model = model
        self.tools = tools
        self.handoffs = handoffs
        self.instructions: str | None = None
        self.input: list[TResponseInputItem] = []
        self.settings = agent.model_settings  # until prepare() resolves the run's on top
        self.prompt: dict[str, Any] | None = None
        self.price_ref = price_ref_of(model)
        """What the call is priced as (None: the model has no name)."""
        self.price_name = self.price_ref.model if self.price_ref is not None else repr(model)
        self.chars = 0
        """The request's size in characters (measured only under a budget)."""
        self.held: Held | None = None
        """The call's part of the budgets, held until the call is over."""
        self.compacted: Compacted | None = None
        """What compaction did before this call (``RunConfig.compaction``), if anything."""
        self.tracing = ModelTracing.DISABLED
        """What the model is told of tracing (DISABLED unless it traces its own calls)."""
        self.scope: Span[Any] | None = None
        """The span made current during the call, for a model that traces its own calls."""

    async def prepare(self) -> None:
        """Instructions, input (after the input filter) and settings for this call."""
        run, agent = self.run, self.agent
        if agent.prompt is None:  # the usual case, and a hot path: no task
            self.instructions = await agent.get_system_prompt(run.progress.context_wrapper)
        else:
            # Both at once, as the SDK does: either may wait on the other (a failure cancels
            # the other one, and is raised once that one has ended).
            self.instructions, self.prompt = await _both(
                agent.get_system_prompt(run.progress.context_wrapper),
                agent.get_prompt(run.progress.context_wrapper),
            )
        compaction = run.run_config.compaction
        if compaction is not None and run.server.sent == 0:  # a stored conversation: not ours
            self.compacted = await compact_if_needed(
                run.progress,
                compaction,
                self.model,
                self.price_name,
                self.instructions,
                self.tools,
                lambda: resolve_model(
                    Agent(name="summarizer", model=compaction.model), run.run_config
                ),
            )
        self.input = run.server.unsent(run.progress.model_input)
        if run.run_config.call_model_input_filter is not None:
            await self._apply_input_filter(agent)
        settings = agent.model_settings.resolve(run.run_config.model_settings)
        if (
            agent.reset_tool_choice
            and run.used_tools(agent)
            and settings.tool_choice
            not in (
                None,
                "auto",
                "none",
            )
        ):
            settings = settings.resolve(ModelSettings(tool_choice="auto"))
        self.settings = settings
        run.progress.context_wrapper.turn_input = list(self.input)  # this call's input
        if run.progress.spend.budgeted:  # before the hooks: a call over a budget is not made
            items = self.input if run.server.sent == 0 else run.progress.model_input
            self.chars = request_chars(self.instructions, self.tools, self.handoffs, items)
            self.held = await reserve(run.progress, self.price_ref, self.price_name, self.chars)
        await run.hooks.llm_start(agent, self.instructions, self.input)

    def release(self) -> None:
        """Stop holding the call in the budgets (once: the call is over, or was never
        made)."""
        if self.held is not None:
            self.held.release(self.run.progress.spend)
            self.held = None

    def _args(self) -> tuple[Any, ...]:
        return (
            self.instructions,
            self.input,
            self.settings,
            self.tools,
            self.agent.output_schema,
            self.handoffs,
            self.tracing,
        )

    def _kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "previous_response_id": self.run.server.previous_response_id,
            "conversation_id": self.run.server.conversation_id,
        }
        # Always, as the SDK's runner passes it (its Model interface requires it), except to a
        # model whose methods do not take it (written before prompts): it gets it when set.
        if self.prompt is not None or takes_prompt(type(self.model)):
            kwargs["prompt"] = self.prompt
        return kwargs

    async def _apply_input_filter(self, agent: Agent[Any]) -> None:
        """Give ``call_model_input_filter`` this call's input and instructions, and keep what it
        returns (repeated items collapsed). Its own error ends the run as it is; the turn's
        span says where (its text only with sensitive data, as in the SDK)."""
        run = self.run
        model_filter = run.run_config.call_model_input_filter
        assert model_filter is not None
        data = ModelInputData(input=list(self.input), instructions=self.instructions)
        try:
            filtered = await call_maybe_async(
                model_filter,
                CallModelData(
                    model_data=data, agent=agent, context=run.progress.context_wrapper.context
                ),
            )
        except Exception as error:
            sensitive = run.run_config.trace_include_sensitive_data
            detail = str(error) if sensitive else "Error details are redacted."
            run.step_span.set_error("Error in call_model_input_filter", {"error": detail})
            raise
        if not isinstance(filtered, ModelInputData):
            raise UserError("call_model_input_filter must return a ModelInputData.")
        self.input, self.instructions = latest_unique(filtered.input), filtered.instructions

    def _span(self) -> Span[Any]:
        parent = self.run.step_span
        if parent is NO_OP_SPAN:  # tracing off: skip even building the span's data
            return NO_OP_SPAN
        if self.model.traces_own_calls:  # its spans go under the turn's
            self.scope = parent
            sensitive = self.run.run_config.trace_include_sensitive_data
            self.tracing = ModelTracing.ENABLED if sensitive else ModelTracing.ENABLED_WITHOUT_DATA
            return NO_OP_SPAN
        config = self.settings.to_traceable_dict()
        if not self.run.run_config.trace_include_sensitive_data:
            config.pop("metadata", None)  # the caller's request metadata is theirs, as in the SDK
        span = generation_span(
            model=getattr(self.model, "model", None) or getattr(self.model, "name", None),
            input=list(self.input),  # a copy: the run's list keeps growing
            model_config=config,
            parent=parent,
        )
        span.start()
        return span

    def _end_span(self, span: Span[Any], response: ModelResponse | None, error: Any) -> None:
        """Record the response's usage in the run's spend, then end the call's span."""
        if response is not None:
            usage, spend = response.usage, self.run.progress.spend
            spent = spend.add(self.price_name, self.price_ref, usage)
            if self.chars:
                spend.marks[self.price_name] = (
                    self.chars,
                    usage.input_tokens + usage.output_tokens,
                )
        self.release()
        if span is NO_OP_SPAN:
            return
        if response is not None:
            span.span_data.output = [_dump(o) for o in response.output]
            price = spent.usd()  # a recording trace needs the price: genai-prices is imported
            span.span_data.usage = {
                "requests": 1,
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "total_tokens": usage.input_tokens + usage.output_tokens,
                "cached_tokens": usage.input_tokens_details.cached_tokens,
                "cache_write_tokens": usage.input_tokens_details.cache_write_tokens,
                "reasoning_tokens": usage.output_tokens_details.reasoning_tokens,
                "cost_usd": str(price) if price is not None else None,
            }
        elif isinstance(error, ModelBehaviorError):
            # the server answered (a bad answer, e.g. a stream cut before its end): the request
            # counts on the span, as in the SDK, with no tokens reported
            span.span_data.usage = dict(_NO_TOKENS)
        if error is not None:
            span.set_error(f"{type(error).__name__}: {error}")
        span.finish()

    async def response(self) -> ModelResponse:
        """A complete response, retried as ``ModelSettings.retry`` or else the run's policy says."""
        span = self._span()
        attempts = self._attempts()
        try:
            while True:
                attempts.next()
                token = Scope.set_current_span(self.scope) if self.scope is not None else None
                try:
                    response = await self.model.get_response(*self._args(), **self._kwargs())
                except Exception as error:
                    await attempts.failed(error)
                    continue
                finally:
                    if token is not None:
                        Scope.reset_current_span(token)
                attempts.answered()
                self._end_span(span, response, None)
                return response
        except BaseException as error:
            attempts.answered()
            self._end_span(span, None, error)
            raise

    def _attempts(self) -> Attempts:
        """The call's attempts (its wait is shown from now until its answer starts)."""
        run, server = self.run, self.run.server
        ids = (server.previous_response_id, server.conversation_id)
        return Attempts(run.progress, self.model, self.settings, run.run_config.model_retry, ids)

    async def stream(self) -> AsyncGenerator[StreamEvent | ModelResponse, None]:
        """Stream the response's events; the last thing yielded is the ModelResponse.

        A failed call is retried only while nothing of it was delivered; an attempt whose first
        event does not come within ``ModelTimeout.first_event`` fails with ModelTimeoutError.
        One generator on purpose: every raw event of the run passes through here.
        """
        span = self._span()
        response: ModelResponse | None = None
        final: Any = None
        finished: list[Any] = []  # the items the stream finished, one by one
        event: Any
        attempts = self._attempts()
        try:
            while True:
                attempts.next(stream=True)
                delivered = False
                failure: Exception | None = None
                source = self.model.stream_response(*self._args(), **self._kwargs())
                token = Scope.set_current_span(self.scope) if self.scope is not None else None
                try:
                    async for event in source:
                        if not delivered:  # the first event: the wait is over (once per call)
                            delivered = True
                            attempts.answered()
                        yield RawResponsesStreamEvent(data=event)
                        kind = event.type
                        if kind == "response.output_item.done":
                            finished.append(event.item)
                        elif kind == "response.completed" or kind == "response.incomplete":
                            final = event.response
                        elif kind == "response.failed" or kind == "error":
                            raise ModelBehaviorError(
                                f"The model's response failed: {_failure_text(event)}"
                            )
                    break
                except Exception as error:
                    if delivered:
                        attempts.explain(error)
                        raise
                    failure = error
                except asyncio.CancelledError:
                    failure = None if delivered else attempts.timed_out()
                    if failure is None:
                        raise  # the run was stopped
                finally:
                    attempts.end_attempt()
                    aclose = getattr(source, "aclose", None)
                    if aclose is not None:
                        await aclose()
                    if token is not None:
                        _reset_scope(token)
                assert failure is not None  # else the loop was left above
                await attempts.failed(failure, stream=True)
            response = _streamed_response(final, finished, self.settings.preserve_raw_usage is True)
        except BaseException as error:
            attempts.answered()
            self._end_span(span, None, error)
            raise
        self._end_span(span, response, None)
        yield response


async def _both(first: Awaitable[_A], second: Awaitable[_B]) -> tuple[_A, _B]:
    """Both results, awaited at once; when one fails, the other is cancelled and awaited
    before the failure is raised (and both are, when this is cancelled)."""
    one, two = asyncio.ensure_future(first), asyncio.ensure_future(second)
    try:
        await asyncio.wait((one, two), return_when=asyncio.FIRST_EXCEPTION)
    finally:
        pending = [task for task in (one, two) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)
    for task in (one, two):
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
    return one.result(), two.result()


_A = TypeVar("_A")
_B = TypeVar("_B")


def item_event_name(item: RunItem) -> Any:
    """The stream event name announcing a new item."""
    return _EVENT_NAMES[item.type]


_EVENT_NAMES = {
    "message_output_item": "message_output_created",
    "tool_call_item": "tool_called",
    "handoff_call_item": "handoff_requested",
    "reasoning_item": "reasoning_item_created",
    "mcp_list_tools_item": "mcp_list_tools",
    "mcp_approval_request_item": "mcp_approval_requested",
}


def _streamed_response(final: Any, finished: list[Any], raw_usage: bool = False) -> ModelResponse:
    """The call's ``ModelResponse``, from the response its stream ended with (``final``: that
    of its ``response.completed`` or ``response.incomplete`` event, None if there was none);
    its output is ``finished`` (the items the stream finished one by one) when ``final`` has
    none. With ``raw_usage``, the provider's usage payload kept as it came."""
    if final is None:
        raise ModelBehaviorError("The model's stream ended without a response.completed event.")
    return ModelResponse(
        output=list(final.output or finished),
        usage=usage_from_openai(final.usage),
        response_id=final.id,
        raw_usage=raw_usage_snapshot(final.usage) if raw_usage else None,
    )


def _reset_scope(token: Any) -> None:
    """Undo a streamed call's current span (a stream closed from another context, which never
    saw it set, leaves that context as it was)."""
    try:
        Scope.reset_current_span(token)
    except ValueError:
        pass


_NO_TOKENS: dict[str, int] = {
    "requests": 1,
    "input_tokens": 0,
    "output_tokens": 0,
    "total_tokens": 0,
}
"""A failed call's span usage: the request was answered, its tokens were not reported."""


def _dump(item: Any) -> Any:
    dump = getattr(item, "model_dump", None)
    return dump(exclude_unset=True, mode="json") if dump is not None else item


def _failure_text(event: Any) -> str:
    response = getattr(event, "response", None)
    error = getattr(response, "error", None) or event
    return str(getattr(error, "message", None) or error)


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
        provider = _DEFAULT_PROVIDER
    return provider.get_model(name if isinstance(name, str) else None)


_DEFAULT_PROVIDER = MultiProvider()
"""Routes ``litellm/...`` names to LiteLLM, the others to the default OpenAI provider."""
