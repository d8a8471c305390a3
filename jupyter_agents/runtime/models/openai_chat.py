"""Chat Completions (OpenAI or any compatible server) as a ``Model``.

Responses come back as Responses API objects and events, so the run loop sees one format.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ..items import ModelResponse, TResponseStreamEvent
from ._chat_reasoning import ShouldReplayReasoningContent
from ._chat_request import ChatOptions, chat_params, chat_response, token_limit_field
from ._chat_stream import chat_stream_events
from .interface import ModelRequest, RequestModel
from .provider import (
    ClientPool,
    is_official_openai_base_url,
    is_official_openai_client,
    shared_client_pool,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIChatCompletionsModel"]

logger = logging.getLogger("jupyter_agents")


class OpenAIChatCompletionsModel(RequestModel):
    """A model called through ``client.chat.completions.create``.

    Only function tools can be sent; hosted tools are left out with a warning.
    """

    def __init__(
        self,
        model: str,
        openai_client: AsyncOpenAI | None = None,
        should_replay_reasoning_content: ShouldReplayReasoningContent | None = None,
        strict_feature_validation: bool = False,
        buffer_streamed_tool_calls: bool = False,
        *,
        client_pool: ClientPool | None = None,
    ) -> None:
        """Create the model.

        Args:
            model: The model name (whatever the server calls it, e.g. ``"llama3.2"``).
            openai_client: The client to use (default: from ``OPENAI_API_KEY`` /
                ``OPENAI_BASE_URL`` or ``set_default_openai_client``).
            should_replay_reasoning_content: Decides whether a reasoning item's summary goes
                back as the next assistant message's ``reasoning_content`` (default:
                ``default_should_replay_reasoning_content``, DeepSeek only).
            strict_feature_validation: Raise a ``UserError`` for what Chat Completions cannot
                carry (a stored prompt, a tool output without text, a custom tool call)
                rather than leave it out with a warning.
            buffer_streamed_tool_calls: Stream a tool call only once it is whole (its
                arguments complete), for servers whose call fragments interleave.
            client_pool: Internal: the provider's per-event-loop clients.
        """
        self.model = model
        self._pool = client_pool or (ClientPool(openai_client) if openai_client else None)
        self._warned: set[str] = set()
        self.should_replay_reasoning_content = should_replay_reasoning_content
        self._strict = strict_feature_validation
        self._buffer_calls = buffer_streamed_tool_calls

    def __repr__(self) -> str:
        return f"OpenAIChatCompletionsModel({self.model!r})"

    def _client(self) -> AsyncOpenAI:
        return (self._pool or shared_client_pool()).get()

    def _refuse_prompt(self, prompt: Any) -> None:
        """Stored prompts are a Responses API feature: say so once, and go on without it."""
        if prompt is not None and self._strict:
            raise UserError(
                "Reusable prompts are only supported by the Responses API. "
                "OpenAIChatCompletionsModel does not support `prompt`; use a Responses model "
                "instead."
            )
        if prompt is not None and "prompt" not in self._warned:
            self._warned.add("prompt")
            logger.warning(
                "Agent.prompt is ignored: stored prompts need the Responses API, and %r uses "
                "Chat Completions (use OpenAIResponsesModel).",
                self,
            )

    def _params(self, client: AsyncOpenAI, request: ModelRequest, stream: bool) -> dict[str, Any]:
        self._refuse_prompt(request.prompt)
        base_url = str(client.base_url)
        options = ChatOptions(
            token_field=token_limit_field(self.model, base_url),
            base_url=base_url,
            replay_hook=self.should_replay_reasoning_content,
            strict=self._strict,
            developer_as_system=not is_official_openai_base_url(base_url),
        )
        return chat_params(self.model, request, self._warned, stream, options)

    async def respond(self, request: ModelRequest) -> ModelResponse:
        """One ``chat.completions.create`` call, as a Responses API response."""
        client = self._client()
        completion = await client.chat.completions.create(**self._params(client, request, False))
        return chat_response(completion, self.model, strict=self._strict, raise_on_length=True)

    async def stream(self, request: ModelRequest) -> AsyncIterator[TResponseStreamEvent]:
        """One streamed call, its chunks converted to Responses API events."""
        client = self._client()
        stream = await client.chat.completions.create(**self._params(client, request, True))
        events = chat_stream_events(
            self.model,
            stream,
            require_finish_reason=is_official_openai_client(client),
            raise_on_length=True,
            buffer_tool_calls=self._buffer_calls,
        )
        async for event in events:
            yield event
