"""The OpenAI Responses API as a ``Model``.

Output items are kept as the API sends them, values newer than the installed ``openai``
package included (``_lenient``: no warning when they are dumped). Input items that came from
another API are cleaned first, as the OpenAI Agents SDK does: reasoning items made from a Chat
Completions answer (they carry ``provider_data``) are left out, and ``provider_data`` is
removed from the others.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..items import ModelResponse, TResponseInputItem, TResponseStreamEvent
from ..model_settings import ModelSettings
from ._lenient import without_dump_warnings
from ._openai_params import settings_params
from ._responses_convert import ConvertedTools, Converter
from .interface import ModelRequest, RequestModel
from .provider import ClientPool, shared_client_pool
from .usage import raw_usage_snapshot, usage_from_openai

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["ConvertedTools", "Converter", "OpenAIResponsesModel"]


class OpenAIResponsesModel(RequestModel):
    """A model called through ``client.responses.create``."""

    def __init__(
        self,
        model: str,
        openai_client: AsyncOpenAI | None = None,
        *,
        model_is_explicit: bool = True,
        client_pool: ClientPool | None = None,
    ) -> None:
        """Create the model.

        Args:
            model: The model name, e.g. ``"gpt-4.1"``.
            openai_client: The client to use (default: from ``OPENAI_API_KEY`` /
                ``OPENAI_BASE_URL`` or ``set_default_openai_client``).
            model_is_explicit: False when ``model`` is only the default name: a request with
                an ``Agent.prompt`` then leaves the model out, for the stored prompt's own.
            client_pool: Internal: the provider's per-event-loop clients.
        """
        self.model = model
        self._model_is_explicit = model_is_explicit
        self._pool = client_pool or (ClientPool(openai_client) if openai_client else None)

    def __repr__(self) -> str:
        return f"OpenAIResponsesModel({self.model!r})"

    def _client(self) -> AsyncOpenAI:
        return (self._pool or shared_client_pool()).get()

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        settings, tools, handoffs = request.model_settings, request.tools, request.handoffs
        prompt = request.prompt
        params: dict[str, Any] = {"model": self.model, "input": _responses_input(request.input)}
        # A stored prompt names its own model, unless this one was chosen on purpose.
        omit_model = prompt is not None and not self._model_is_explicit
        if omit_model:
            params["model"] = _omit()
        if request.system_instructions is not None:
            params["instructions"] = request.system_instructions
        includes: list[str] = []
        if tools or handoffs:
            # A stored prompt may hold what a tool search finds (the SDK's rule).
            converted = Converter.convert_tools(
                tools,
                handoffs or [],
                allow_opaque_tool_search_surface=prompt is not None,
                tool_choice=settings.tool_choice,
            )
            params["tools"] = converted.tools
            includes = converted.includes
        elif prompt is not None:
            params["tools"] = _omit()  # the stored prompt's own tools stand
        if (tools or handoffs or prompt is not None) and settings.parallel_tool_calls is not None:
            params["parallel_tool_calls"] = settings.parallel_tool_calls
        if settings.tool_choice is not None:
            choice = Converter.convert_tool_choice(
                settings.tool_choice,
                tools=tools,
                handoffs=handoffs,
                model=None if omit_model else self.model,
            )
            # Without local tools, a stored prompt's named tool cannot be checked: left out.
            if tools or handoffs or prompt is None or not isinstance(choice, dict):
                params["tool_choice"] = choice
        simple = {
            "temperature": settings.temperature,
            "top_p": settings.top_p,
            "max_output_tokens": settings.max_tokens,
            "truncation": settings.truncation,
            "reasoning": settings.reasoning,
            "metadata": settings.metadata,
            "store": settings.store,
            "include": _include(settings, includes),
            "top_logprobs": settings.top_logprobs,
            "prompt_cache_retention": settings.prompt_cache_retention,
            "prompt_cache_options": settings.prompt_cache_options,
            "context_management": settings.context_management,
            "previous_response_id": request.previous_response_id,
            "conversation": request.conversation_id,
            "prompt": prompt,  # stored: {"id": ..., "version": ..., "variables": ...}
        }
        params.update({k: v for k, v in simple.items() if v is not None})
        text: dict[str, Any] = {}
        if request.output_schema is not None:
            text = dict(Converter.get_response_format(request.output_schema) or {})
        if settings.verbosity is not None:
            text["verbosity"] = settings.verbosity
        if text:
            params["text"] = text
        params.update(settings_params(settings))
        return params

    async def respond(self, request: ModelRequest) -> ModelResponse:
        """One ``responses.create`` call."""
        response = await self._client().responses.create(**self._params(request))
        return ModelResponse(
            output=[without_dump_warnings(item) for item in response.output],
            usage=usage_from_openai(response.usage),
            response_id=response.id,
            raw_usage=(
                raw_usage_snapshot(response.usage)
                if request.model_settings.preserve_raw_usage is True
                else None
            ),
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[TResponseStreamEvent]:
        """One streamed ``responses.create`` call, its events as they come."""
        stream = await self._client().responses.create(**self._params(request), stream=True)
        try:
            async for event in stream:
                kind = event.type
                if kind == "response.output_item.done" or kind == "response.output_item.added":
                    without_dump_warnings(event.item)
                elif kind == "response.completed" or kind == "response.incomplete":
                    for item in event.response.output:
                        without_dump_warnings(item)
                yield event
        finally:
            await stream.close()


def _responses_input(input: str | list[TResponseInputItem]) -> str | list[TResponseInputItem]:
    """``input`` without what the Responses API refuses from other APIs' items."""
    if isinstance(input, str) or not any("provider_data" in item for item in input):
        return input
    return [
        {key: value for key, value in item.items() if key != "provider_data"}
        for item in input
        if not (item.get("type") == "reasoning" and item.get("provider_data"))
    ]


def _include(settings: ModelSettings, tool_includes: list[str]) -> list[str] | None:
    include = list(settings.response_include or [])
    for value in tool_includes:  # what the tools need (their search results)
        if value not in include:
            include.append(value)
    if settings.top_logprobs is not None and _LOGPROBS not in include:
        include.append(_LOGPROBS)  # else the API computes them but does not return them
    return include or None


_LOGPROBS = "message.output_text.logprobs"


def _omit() -> Any:
    from openai import omit

    return omit
