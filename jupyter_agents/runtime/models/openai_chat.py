"""Chat Completions (OpenAI or any compatible server) as a ``Model``.

Responses come back as Responses API objects and events, so the run loop sees one format.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..items import ModelResponse, TResponseStreamEvent
from ._chat_request import chat_params, chat_response, token_limit_field
from ._chat_stream import chat_stream_events
from .interface import ModelRequest, RequestModel
from .provider import ClientPool, shared_client_pool

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

    def _params(self, client: AsyncOpenAI, request: ModelRequest, stream: bool) -> dict[str, Any]:
        self._refuse_prompt(request.prompt)
        field = token_limit_field(self.model, str(client.base_url))
        return chat_params(self.model, request, self._warned, stream, token_field=field)

    async def respond(self, request: ModelRequest) -> ModelResponse:
        """One ``chat.completions.create`` call, as a Responses API response."""
        client = self._client()
        completion = await client.chat.completions.create(**self._params(client, request, False))
        return chat_response(completion, self.model)

    async def stream(self, request: ModelRequest) -> AsyncIterator[TResponseStreamEvent]:
        """One streamed call, its chunks converted to Responses API events."""
        client = self._client()
        stream = await client.chat.completions.create(**self._params(client, request, True))
        async for event in chat_stream_events(self.model, stream):
            yield event
