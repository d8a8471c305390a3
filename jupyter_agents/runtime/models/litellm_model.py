"""Models reached through LiteLLM (Anthropic, Gemini, Mistral, Bedrock, Ollama, ...).

LiteLLM's ``acompletion`` takes and returns OpenAI-shaped Chat Completions objects whatever the
provider, so a request is built and an answer read exactly as for
``OpenAIChatCompletionsModel`` (``_chat_request``, ``_chat_stream``). What is LiteLLM's own:

- one retry layer: LiteLLM's retries are off (``num_retries=0``, ``max_retries=0``); the run's
  retry policy decides, from the status LiteLLM's errors carry and the provider's
  ``Retry-After``, which LiteLLM keeps beside the error and which is put back on its response;
- what cannot travel as Chat Completions is refused with a ``UserError`` before anything is
  sent (hosted tools, a stored prompt, server-side conversation state), and a setting the
  provider does not take is LiteLLM's ``UnsupportedParamsError`` turned into a ``UserError``:
  nothing is dropped silently;
- calls are priced by genai-prices from LiteLLM's ``provider/model`` name;
- Claude's thinking blocks, which LiteLLM returns as ``thinking_blocks``, go back to it the same
  way on the next assistant message (``_chat_reasoning``): Anthropic refuses a tool-use turn
  without them.

The ``litellm`` package is imported on the first call (it takes seconds), never by
``import jupyter_agents``.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import AsyncIterator
from typing import Any

from ..errors import UserError
from ..items import ModelResponse, TResponseStreamEvent
from ._chat_request import chat_params, chat_response
from ._chat_stream import chat_stream_events
from ._openai_params import tools_without_chat_form
from .interface import Model, ModelProvider, ModelRequest, RequestModel
from .provider import default_model_name

__all__ = ["INSTALL_HINT", "LitellmModel", "LitellmProvider"]

INSTALL_HINT = "LiteLLM is not installed: pip install 'jupyter_agents[litellm]'"
"""The error a LiteLLM model gives where the package is missing."""


def _litellm() -> Any:
    try:
        litellm: Any = importlib.import_module("litellm")
    except ImportError as error:
        raise UserError(INSTALL_HINT) from error
    # Its "Give Feedback / Get Help" lines would be printed into the cell on every provider
    # error (a retried 429 included); the run reports errors itself.
    litellm.suppress_debug_info = True
    return litellm


class LitellmModel(RequestModel):
    """A model called through ``litellm.acompletion``: any provider LiteLLM supports, by
    LiteLLM's model name (``"anthropic/claude-sonnet-4-5"``, ``"gemini/gemini-2.5-flash"``).

    Keys and endpoints are LiteLLM's: ``api_key`` and ``base_url`` here, else the provider's
    environment variables (``ANTHROPIC_API_KEY``, ``ANTHROPIC_API_BASE``, ``GEMINI_API_KEY``,
    ...). Only function tools and handoffs can be sent; other tools are a ``UserError``.
    """

    price_provider = "litellm"
    """genai-prices reads LiteLLM's ``provider/model`` names itself (``anthropic/...`` is
    priced as Anthropic's model)."""

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None) -> None:
        """Create the model.

        Args:
            model: LiteLLM's model name, ``provider/model``.
            base_url: The provider's endpoint (LiteLLM's ``api_base``), e.g. a proxy or a local
                server; None: LiteLLM's default for the provider.
            api_key: The provider's key; None: LiteLLM reads the provider's variable.

        Raises:
            UserError: When the ``litellm`` package is not installed.
        """
        if importlib.util.find_spec("litellm") is None:
            raise UserError(INSTALL_HINT)
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self._warned: set[str] = set()

    def __repr__(self) -> str:
        return f"LitellmModel({self.model!r})"

    def _refuse(self, request: ModelRequest) -> None:
        """What a Chat Completions request cannot carry is an error, not a silent drop."""
        if request.prompt is not None:
            raise UserError(
                f"{self!r} cannot use Agent.prompt: stored prompts need OpenAI's Responses API "
                "(use OpenAIResponsesModel, or put the prompt in instructions)."
            )
        if request.previous_response_id or request.conversation_id:
            raise UserError(
                f"{self!r} cannot continue server-side conversation state "
                "(previous_response_id, conversation_id): drop them and send the history."
            )
        hosted = tools_without_chat_form(request.tools)
        if hosted:
            raise UserError(
                f"{self!r} can only send function tools; remove {', '.join(hosted)} "
                "(hosted tools need OpenAIResponsesModel)."
            )

    def _params(self, request: ModelRequest, stream: bool) -> dict[str, Any]:
        self._refuse(request)
        # LiteLLM takes max_tokens for every provider (and renames it for OpenAI's reasoning
        # models itself), and Claude's thinking blocks back on assistant messages.
        params = chat_params(self.model, request, self._warned, stream, thinking_blocks=True)
        # One retry layer, the run's: LiteLLM's own retries would multiply it.
        params.update(num_retries=0, max_retries=0)
        if self.base_url is not None:
            params["api_base"] = self.base_url
        if self.api_key is not None:
            params["api_key"] = self.api_key
        return params

    async def _call(self, params: dict[str, Any]) -> Any:
        litellm = _litellm()
        try:
            return await litellm.acompletion(**params)
        except litellm.UnsupportedParamsError as error:
            text = str(getattr(error, "message", error)).splitlines()[0]
            reason = text.removeprefix("litellm.UnsupportedParamsError: ").split(". To drop")[0]
            raise UserError(
                f"{self!r}: {reason}; remove them from ModelSettings (or set "
                "litellm.drop_params = True to have LiteLLM drop them)."
            ) from error
        except Exception as error:
            _restore_retry_headers(error)
            raise

    async def respond(self, request: ModelRequest) -> ModelResponse:
        """One ``acompletion`` call, as a Responses API response."""
        return chat_response(await self._call(self._params(request, False)), self.model)

    async def stream(self, request: ModelRequest) -> AsyncIterator[TResponseStreamEvent]:
        """One streamed ``acompletion`` call, its chunks as Responses API events."""
        stream = await self._call(self._params(request, True))
        async for event in chat_stream_events(self.model, stream):
            yield event


_RETRY_HEADERS = ("retry-after", "retry-after-ms", "x-should-retry")
"""The provider's response headers retry policies read."""


def _restore_retry_headers(error: Exception) -> None:
    """Put the provider's retry headers back on the error's response, where the run's retry
    policies read them (LiteLLM keeps the headers beside the error, in
    ``litellm_response_headers``, and raises it with a response that has none)."""
    kept = getattr(error, "litellm_response_headers", None)
    response = getattr(error, "response", None)
    if kept is None or response is None or not hasattr(response, "headers"):
        return
    wanted = {name: kept[name] for name in _RETRY_HEADERS if kept.get(name) is not None}
    if wanted and not any(name in response.headers for name in wanted):
        response.headers.update(wanted)


class LitellmProvider(ModelProvider):
    """Turns a LiteLLM model name into a ``LitellmModel`` (the ``litellm/`` prefix of a
    model name, ``Agent(model="litellm/anthropic/claude-sonnet-4-5")``, goes here).

    ``RunConfig(model_provider=LitellmProvider())`` sends every model name of a run through
    LiteLLM. Keys and endpoints come from the providers' environment variables.
    """

    def get_model(self, model_name: str | None) -> Model:
        """A ``LitellmModel`` for ``model_name`` (None: ``OPENAI_DEFAULT_MODEL``, else the
        default model)."""
        return LitellmModel(model_name or default_model_name())
