"""Chat Completions (OpenAI or any compatible server) as a :class:`Model`.

Responses come back as Responses API objects and events, so the run loop sees one format.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..items import ModelResponse, TResponseStreamEvent
from ._chat_convert import to_chat_messages
from ._chat_stream import ChatStreamConverter
from ._openai_params import chat_tools, response_format, settings_params
from ._responses_build import function_call_item, message_item
from .interface import ModelRequest, RequestModel
from .provider import ClientPool, shared_client_pool
from .usage import usage_from_openai

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIChatCompletionsModel"]

_ids = itertools.count(1)
logger = logging.getLogger("jupyter_agents")


class OpenAIChatCompletionsModel(RequestModel):
    """A model called through ``client.chat.completions.create``.

    Only function tools can be sent; hosted tools are left out with a warning.
    """

    def __init__(
        self,
        model: str,
        openai_client: AsyncOpenAI | None = None,
        *,
        client_pool: ClientPool | None = None,
    ) -> None:
        """Create the model.

        Args:
            model: The model name (whatever the server calls it, e.g. ``"llama3.2"``).
            openai_client: The client to use (default: from ``OPENAI_API_KEY`` /
                ``OPENAI_BASE_URL`` or ``set_default_openai_client``).
            client_pool: Internal: the provider's per-event-loop clients.
        """
        self.model = model
        self._pool = client_pool or (ClientPool(openai_client) if openai_client else None)
        self._warned: set[str] = set()

    def __repr__(self) -> str:
        return f"OpenAIChatCompletionsModel({self.model!r})"

    def _client(self) -> AsyncOpenAI:
        return (self._pool or shared_client_pool()).get()

    def _refuse_prompt(self, prompt: Any) -> None:
        """Stored prompts are a Responses API feature: say so once, and go on without it."""
        if prompt is not None and "prompt" not in self._warned:
            self._warned.add("prompt")
            logger.warning(
                "Agent.prompt is ignored: stored prompts need the Responses API, and %r uses "
                "Chat Completions (use OpenAIResponsesModel).",
                self,
            )

    def _params(self, request: ModelRequest, stream: bool) -> dict[str, Any]:
        settings, tools, handoffs = request.model_settings, request.tools, request.handoffs
        self._refuse_prompt(request.prompt)
        system_instructions, input, output_schema = (
            request.system_instructions,
            request.input,
            request.output_schema,
        )
        params: dict[str, Any] = {
            "model": self.model,
            "messages": to_chat_messages(system_instructions, input),
        }
        converted = chat_tools(tools, self._warned, handoffs or [])
        if converted:
            params["tools"] = converted
            if settings.parallel_tool_calls is not None:
                params["parallel_tool_calls"] = settings.parallel_tool_calls
        if settings.tool_choice is not None and (converted or settings.tool_choice == "none"):
            choice = settings.tool_choice
            params["tool_choice"] = (
                choice
                if choice in ("auto", "required", "none")
                else {"type": "function", "function": {"name": choice}}
            )
        simple = {
            "temperature": settings.temperature,
            "top_p": settings.top_p,
            "frequency_penalty": settings.frequency_penalty,
            "presence_penalty": settings.presence_penalty,
            "max_tokens": settings.max_tokens,
            "metadata": settings.metadata,
            "store": settings.store,
            "verbosity": settings.verbosity,
            "reasoning_effort": (settings.reasoning or {}).get("effort"),
            "top_logprobs": settings.top_logprobs,
            "logprobs": True if settings.top_logprobs is not None else None,  # the API needs both
            "prompt_cache_retention": settings.prompt_cache_retention,
        }
        params.update({k: v for k, v in simple.items() if v is not None})
        fmt = response_format(output_schema)
        if fmt is not None:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {k: v for k, v in fmt.items() if k != "type"},
            }
        if stream:
            params["stream"] = True
            if settings.include_usage is not False:
                params["stream_options"] = {"include_usage": True}
        params.update(settings_params(settings))
        return params

    async def respond(self, request: ModelRequest) -> ModelResponse:
        """One ``chat.completions.create`` call, as a Responses API response."""
        params = self._params(request, False)
        completion = await self._client().chat.completions.create(**params)
        message = completion.choices[0].message if completion.choices else None
        output: list[Any] = []
        if message is not None and (message.content or getattr(message, "refusal", None)):
            output.append(
                message_item(message.content or message.refusal or "", f"msg_{next(_ids)}")
            )
        for call in (message.tool_calls if message is not None else None) or []:
            function = getattr(call, "function", None)
            if function is None:
                continue
            output.append(
                function_call_item(
                    function.name, function.arguments or "", call.id, f"fc_{next(_ids)}"
                )
            )
        return ModelResponse(
            output=output, usage=usage_from_openai(completion.usage), response_id=None
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[TResponseStreamEvent]:
        """One streamed call, its chunks converted to Responses API events."""
        params = self._params(request, True)
        stream = await self._client().chat.completions.create(**params)
        converter = ChatStreamConverter(self.model)
        try:
            async for chunk in stream:
                for event in converter.feed(chunk):
                    yield event
        finally:
            await stream.close()
        for event in converter.finish():
            yield event
