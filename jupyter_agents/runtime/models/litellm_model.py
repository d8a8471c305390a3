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
  way on the next assistant message (``_chat_convert.Converter``): Anthropic refuses a tool-use
  turn without them;
- LiteLLM's messages are read as OpenAI-shaped ones (``LitellmConverter``, the SDK's): its
  refusal, reasoning, thinking blocks, citations and Gemini's thought signatures.

The ``litellm`` package is imported on the first call (it takes seconds), never by
``import jupyter_agents``.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall
from openai.types.chat.chat_completion_message import Annotation, AnnotationURLCitation
from openai.types.chat.chat_completion_message_function_tool_call import Function
from pydantic import BaseModel

from ..errors import ModelBehaviorError, UserError
from ..items import ModelResponse, TResponseStreamEvent
from ._chat_helpers import ChatCmplHelpers
from ._chat_reasoning import ShouldReplayReasoningContent, field_of
from ._chat_request import ChatOptions, chat_params, chat_response
from ._chat_stream import chat_stream_events
from ._openai_params import tools_without_chat_form
from .interface import Model, ModelProvider, ModelRequest, RequestModel
from .provider import default_model_name

__all__ = [
    "INSTALL_HINT",
    "InternalChatCompletionMessage",
    "InternalToolCall",
    "LitellmConverter",
    "LitellmModel",
    "LitellmProvider",
    "patch_serializer_warnings_if_asked",
]

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

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        should_replay_reasoning_content: ShouldReplayReasoningContent | None = None,
    ) -> None:
        """Create the model.

        Args:
            model: LiteLLM's model name, ``provider/model``.
            base_url: The provider's endpoint (LiteLLM's ``api_base``), e.g. a proxy or a local
                server; None: LiteLLM's default for the provider.
            api_key: The provider's key; None: LiteLLM reads the provider's variable.
            should_replay_reasoning_content: Decides whether a reasoning item's summary goes
                back as the next assistant message's ``reasoning_content`` (default: DeepSeek
                only).

        Raises:
            UserError: When the ``litellm`` package is not installed.
        """
        # a module already imported (or put there by a test) may have no spec to find
        if sys.modules.get("litellm") is None and importlib.util.find_spec("litellm") is None:
            raise UserError(INSTALL_HINT)
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.should_replay_reasoning_content = should_replay_reasoning_content
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
        options = ChatOptions(
            thinking_blocks=True,
            base_url=self.base_url,
            replay_hook=self.should_replay_reasoning_content,
        )
        params = chat_params(self.model, request, self._warned, stream, options)
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
        completion = await self._call(self._params(request, False))
        return chat_response(completion, self.model, message_of=self._openai_message)

    def _openai_message(self, message: Any) -> ChatCompletionMessage:
        return LitellmConverter.convert_message_to_openai(message, model=self.model)

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


class InternalChatCompletionMessage(ChatCompletionMessage):
    """A chat message with what LiteLLM adds: the reasoning and Claude's thinking blocks."""

    reasoning_content: str
    thinking_blocks: list[dict[str, Any]] | None = None


class InternalToolCall(ChatCompletionMessageFunctionToolCall):
    """A function tool call with the provider's own data (Gemini's thought signature, as
    ``{"google": {"thought_signature": ...}}``)."""

    extra_content: dict[str, Any] | None = None


def _get(message: Any, name: str) -> Any:
    """A LiteLLM message's field (its ``get``, or the attribute)."""
    get = getattr(message, "get", None)
    return get(name, None) if callable(get) else getattr(message, name, None)


def _as_dict(block: Any) -> dict[str, Any]:
    if isinstance(block, dict):
        return block
    if hasattr(block, "__dict__"):
        return dict(block.__dict__)
    if hasattr(block, "model_dump"):
        return dict(block.model_dump())
    return {"thinking": str(block)}


class LitellmConverter:
    """LiteLLM's answers as the ``openai`` package's objects."""

    @classmethod
    def convert_message_to_openai(
        cls, message: Any, model: str | None = None
    ) -> InternalChatCompletionMessage:
        """A LiteLLM assistant message as an OpenAI chat message (another role is a
        ``ModelBehaviorError``); ``model`` (LiteLLM's name) decides the provider's own
        fixes (Gemini's call ids and thought signatures)."""
        if message.role != "assistant":
            raise ModelBehaviorError(f"Unsupported role: {message.role}")
        calls: list[Any] = [
            cls.convert_tool_call_to_openai(c, model=model) for c in message.tool_calls or ()
        ]
        extra = _get(message, "provider_specific_fields")
        blocks = getattr(message, "thinking_blocks", None)
        # Groq's and OpenRouter's ``reasoning`` text too (the SDK drops it): an extra field.
        reasoning = field_of(message, "reasoning")
        extra_fields: dict[str, Any] = {}
        if isinstance(reasoning, str) and reasoning:
            extra_fields["reasoning"] = reasoning
        return InternalChatCompletionMessage(
            **extra_fields,
            content=message.content,
            refusal=extra.get("refusal") if extra else getattr(message, "refusal", None),
            role="assistant",
            annotations=cls.convert_annotations_to_openai(message),
            audio=_get(message, "audio"),
            tool_calls=calls or None,
            reasoning_content=getattr(message, "reasoning_content", None) or "",
            thinking_blocks=[_as_dict(b) for b in blocks] if blocks else None,
        )

    @classmethod
    def convert_annotations_to_openai(cls, message: Any) -> list[Annotation] | None:
        """A LiteLLM message's URL citations (None for none)."""
        annotations = _get(message, "annotations")
        if not annotations:
            return None
        return [
            Annotation(
                type="url_citation",
                url_citation=AnnotationURLCitation(
                    start_index=a["url_citation"]["start_index"],
                    end_index=a["url_citation"]["end_index"],
                    url=a["url_citation"]["url"],
                    title=a["url_citation"]["title"],
                ),
            )
            for a in annotations
        ]

    @classmethod
    def convert_tool_call_to_openai(
        cls, tool_call: Any, model: str | None = None
    ) -> ChatCompletionMessageFunctionToolCall:
        """A LiteLLM tool call as an OpenAI one; a Gemini call's id loses LiteLLM's
        ``__thought__`` suffix and its thought signature goes in ``extra_content``."""
        call = ChatCompletionMessageFunctionToolCall(
            id=ChatCmplHelpers.clean_gemini_tool_call_id(tool_call.id, model),
            type="function",
            function=Function(
                name=tool_call.function.name or "", arguments=tool_call.function.arguments
            ),
        )
        fields = getattr(tool_call, "provider_specific_fields", None)
        if not fields:
            return call
        extra: dict[str, Any] = {}
        if model and "gemini" in model.lower() and "thought_signature" in fields:
            extra["google"] = {"thought_signature": fields["thought_signature"]}
        return InternalToolCall(**call.model_dump(), extra_content=extra or None)


SERIALIZER_PATCH_VARIABLE = "OPENAI_AGENTS_ENABLE_LITELLM_SERIALIZER_PATCH"
"""Set to ``true`` (or ``1``) to silence LiteLLM's pydantic serializer warnings (the SDK's
opt-in: it wraps a private LiteLLM function)."""


def patch_serializer_warnings_if_asked() -> None:
    """With ``SERIALIZER_PATCH_VARIABLE`` set, make LiteLLM's logging dump responses without
    pydantic's serializer warnings (LiteLLM's issue 11759); once per LiteLLM module."""
    if os.getenv(SERIALIZER_PATCH_VARIABLE, "").lower() not in ("1", "true"):
        return
    try:
        logging_module: Any = importlib.import_module("litellm.litellm_core_utils.litellm_logging")
    except Exception:
        return
    original = getattr(logging_module, "_extract_response_obj_and_hidden_params", None)
    if original is None or getattr(
        logging_module, "_openai_agents_patched_serializer_warnings", False
    ):
        return

    def quiet(*args: Any, **kwargs: Any) -> Any:
        response = args[0] if args else kwargs.get("init_response_obj")
        if not isinstance(response, BaseModel):
            return original(*args, **kwargs)
        hidden = getattr(response, "_hidden_params", None)
        try:
            dumped = response.model_dump(warnings=False)
        except TypeError:
            dumped = response.model_dump()
        if args:
            out, original_hidden = original(dumped, *args[1:], **kwargs)
        else:
            out, original_hidden = original(**{**kwargs, "init_response_obj": dumped})
        return out, hidden or original_hidden

    logging_module._extract_response_obj_and_hidden_params = quiet
    logging_module._openai_agents_patched_serializer_warnings = True
