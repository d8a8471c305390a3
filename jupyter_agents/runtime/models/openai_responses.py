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
from ..model_settings import MCPToolChoice, ModelSettings
from ..tools import HostedTool, Tool
from ._lenient import without_dump_warnings
from ._openai_params import response_format, responses_tools, settings_params
from .interface import ModelRequest, RequestModel
from .provider import ClientPool, shared_client_pool
from .usage import usage_from_openai

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIResponsesModel"]

_BUILTIN_CHOICES = ("auto", "required", "none")


class OpenAIResponsesModel(RequestModel):
    """A model called through ``client.responses.create``."""

    def __init__(
        self,
        model: str,
        openai_client: AsyncOpenAI | None = None,
        *,
        client_pool: ClientPool | None = None,
    ) -> None:
        """Create the model.

        Args:
            model: The model name, e.g. ``"gpt-4.1"``.
            openai_client: The client to use (default: from ``OPENAI_API_KEY`` /
                ``OPENAI_BASE_URL`` or ``set_default_openai_client``).
            client_pool: Internal: the provider's per-event-loop clients.
        """
        self.model = model
        self._pool = client_pool or (ClientPool(openai_client) if openai_client else None)

    def __repr__(self) -> str:
        return f"OpenAIResponsesModel({self.model!r})"

    def _client(self) -> AsyncOpenAI:
        return (self._pool or shared_client_pool()).get()

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        settings, tools, handoffs = request.model_settings, request.tools, request.handoffs
        params: dict[str, Any] = {"model": self.model, "input": _responses_input(request.input)}
        if request.system_instructions is not None:
            params["instructions"] = request.system_instructions
        if tools or handoffs:
            params["tools"] = responses_tools(tools, handoffs or [])
            if settings.parallel_tool_calls is not None:
                params["parallel_tool_calls"] = settings.parallel_tool_calls
        if settings.tool_choice is not None:
            params["tool_choice"] = _tool_choice(settings.tool_choice, tools)
        simple = {
            "temperature": settings.temperature,
            "top_p": settings.top_p,
            "max_output_tokens": settings.max_tokens,
            "truncation": settings.truncation,
            "reasoning": settings.reasoning,
            "metadata": settings.metadata,
            "store": settings.store,
            "include": _include(settings),
            "top_logprobs": settings.top_logprobs,
            "prompt_cache_retention": settings.prompt_cache_retention,
            "previous_response_id": request.previous_response_id,
            "conversation": request.conversation_id,
            "prompt": request.prompt,  # stored: {"id": ..., "version": ..., "variables": ...}
        }
        params.update({k: v for k, v in simple.items() if v is not None})
        text: dict[str, Any] = {}
        if settings.verbosity is not None:
            text["verbosity"] = settings.verbosity
        fmt = response_format(request.output_schema)
        if fmt is not None:
            text["format"] = fmt
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


def _include(settings: ModelSettings) -> list[str] | None:
    include = list(settings.response_include or [])
    if settings.top_logprobs is not None and _LOGPROBS not in include:
        include.append(_LOGPROBS)  # else the API computes them but does not return them
    return include or None


_LOGPROBS = "message.output_text.logprobs"


def _tool_choice(choice: str | MCPToolChoice, tools: list[Tool]) -> Any:
    if isinstance(choice, MCPToolChoice):
        return {"type": "mcp", "server_label": choice.server_label, "name": choice.name}
    if choice in _BUILTIN_CHOICES:
        return choice
    if any(isinstance(t, HostedTool) and t.name == choice for t in tools):
        return {"type": choice}
    return {"type": "function", "name": choice}
