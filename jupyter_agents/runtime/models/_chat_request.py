"""One Chat Completions request and its answer, shared by the models that speak the format
(``OpenAIChatCompletionsModel`` and ``LitellmModel``, whose ``acompletion`` takes and returns
OpenAI-shaped chat objects).

The token limit goes in the field the model takes: OpenAI's reasoning models (o1, o3, o4-mini,
the gpt-5 family) refuse ``max_tokens`` and want ``max_completion_tokens``, which OpenAI's own
endpoint takes for every model; other servers may know only ``max_tokens``.
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import ModelBehaviorError, UserError
from ..items import ModelResponse
from ..model_settings import MCPToolChoice
from ._chat_convert import Converter, refusal_of
from ._chat_helpers import ChatCmplHelpers, request_headers
from ._chat_reasoning import ShouldReplayReasoningContent
from ._openai_params import chat_tools, response_format, settings_params
from .interface import ModelRequest
from .usage import usage_from_openai

__all__ = ["ChatOptions", "chat_params", "chat_response", "new_call_id", "token_limit_field"]

_ids = itertools.count(1)

_REASONING_MODEL = re.compile(r"(?:o[1-9][0-9]*|gpt-5)(?:$|[-.:_])")
"""OpenAI's reasoning model names (``o1``, ``o3-pro``, ``o4-mini``, ``gpt-5.1``): the ones
that refuse ``max_tokens``."""


def token_limit_field(model: str, base_url: str | None) -> str:
    """The request field that limits the answer's tokens for ``model`` at ``base_url``:
    ``max_completion_tokens`` at OpenAI's endpoint and for a bare OpenAI reasoning model name
    (an Azure deployment, say), ``max_tokens`` elsewhere (a router's ``openai/o3`` included:
    routers translate it)."""
    if base_url is not None and urlsplit(str(base_url)).hostname == "api.openai.com":
        return "max_completion_tokens"
    if "/" not in model and _REASONING_MODEL.match(model.lower()):
        return "max_completion_tokens"
    return "max_tokens"


def new_call_id() -> str:
    """An id for a tool call that came without one (Gemini's compatible API sends ``""``):
    unique, so that its output can be matched to it."""
    return f"call_{uuid.uuid4().hex[:24]}"


@dataclass(frozen=True)
class ChatOptions:
    """How a model's requests are built, beyond the request itself."""

    token_field: str = "max_tokens"
    """The field ``ModelSettings.max_tokens`` goes in (``token_limit_field``)."""

    thinking_blocks: bool = False
    """Whether the client takes Claude's thinking blocks back on assistant messages (LiteLLM
    does)."""

    base_url: str | None = None
    """The endpoint, for the reasoning replay hook."""

    replay_hook: ShouldReplayReasoningContent | None = None
    """The model's ``should_replay_reasoning_content``."""

    strict: bool = False
    """The model's ``strict_feature_validation``."""

    developer_as_system: bool = False
    """Send developer messages as system ones (servers other than OpenAI's)."""


def chat_messages(model: str, request: ModelRequest, options: ChatOptions) -> list[dict[str, Any]]:
    """The request's instructions and input as Chat Completions messages."""
    messages = Converter.items_to_messages(
        request.input,
        model=model,
        preserve_thinking_blocks=options.thinking_blocks,
        base_url=options.base_url,
        should_replay_reasoning_content=options.replay_hook,
        strict_feature_validation=options.strict,
        tool_output_attachments=True,
        developer_as_system=options.developer_as_system,
    )
    if request.system_instructions:
        messages.insert(0, {"role": "system", "content": request.system_instructions})
    return messages


def chat_params(
    model: str,
    request: ModelRequest,
    warned: set[str],
    stream: bool,
    options: ChatOptions = ChatOptions(),
) -> dict[str, Any]:
    """The keyword arguments of ``chat.completions.create`` for ``request``.

    Args:
        model: The model name sent.
        request: The call's arguments.
        warned: What was already warned about (tools left out), updated.
        stream: Whether to stream.
        options: The model's own choices.
    """
    settings, tools, handoffs = request.model_settings, request.tools, request.handoffs
    messages = chat_messages(model, request, options)
    params: dict[str, Any] = {"model": model, "messages": messages}
    converted = chat_tools(tools, warned, handoffs or [])
    if converted:
        params["tools"] = converted
        if settings.parallel_tool_calls is not None:
            params["parallel_tool_calls"] = settings.parallel_tool_calls
    if settings.tool_choice is not None and (converted or settings.tool_choice == "none"):
        choice = settings.tool_choice
        if isinstance(choice, MCPToolChoice):
            raise UserError(
                "ModelSettings(tool_choice=MCPToolChoice(...)) names a hosted MCP tool, which "
                "only the Responses API has: use a Responses model, or a tool name."
            )
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
        options.token_field: settings.max_tokens,
        "metadata": settings.metadata,
        "store": settings.store,
        "verbosity": settings.verbosity,
        "reasoning_effort": getattr(settings.reasoning, "effort", None),
        "top_logprobs": settings.top_logprobs,
        "logprobs": True if settings.top_logprobs is not None else None,  # the API needs both
        "prompt_cache_retention": settings.prompt_cache_retention,
        "prompt_cache_options": settings.prompt_cache_options,
    }
    params.update({k: v for k, v in simple.items() if v is not None})
    fmt = response_format(request.output_schema)
    if fmt is not None:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {k: v for k, v in fmt.items() if k != "type"},
        }
    params["stream"] = stream  # always named, as the SDK's calls do (LiteLLM reads it)
    if stream and settings.include_usage is not False:
        params["stream_options"] = {"include_usage": True}
    params.update(settings_params(settings))
    params["extra_headers"] = request_headers(settings)
    return params


def _new_id(prefix: str) -> str:
    """A unique id for an item made from a chat answer (a call without an id gets one)."""
    return new_call_id() if prefix == "call" else f"{prefix}_{next(_ids)}"


CONTENT_FILTERED = "Response withheld by the provider's content filter."
"""The refusal of an answer a provider's content filter withheld without saying more."""


def _choice_message(choice: Any, raise_on_length: bool) -> Any:
    """A choice's message, an empty one stopped by a content filter given a refusal (the
    turn is then not an empty answer, which a run would take as done)."""
    message = choice.message
    if message is None or message.content or refusal_of(message) or message.tool_calls:
        return message
    reason = getattr(choice, "finish_reason", None)
    if reason == "content_filter":
        message = message.model_copy()
        message.refusal = CONTENT_FILTERED
    elif reason == "length" and raise_on_length:
        raise ModelBehaviorError(
            "Chat Completions response terminated with finish_reason='length' but produced no "
            "assistant text, tool call, or refusal."
        )
    return message


def _attach_logprobs(output: list[Any], choice: Any) -> None:
    """The choice's token logprobs on the answer's text."""
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    logprobs = ChatCmplHelpers.convert_logprobs_for_output_text(content)
    if not logprobs:
        return
    for item in output:
        for part in getattr(item, "content", None) or ():
            if getattr(part, "type", None) == "output_text":
                part.logprobs = logprobs
                return


def chat_response(
    completion: Any,
    model: str,
    *,
    strict: bool = False,
    raise_on_length: bool = False,
    message_of: Callable[[Any], Any] | None = None,
) -> ModelResponse:
    """A chat completion (the ``openai`` package's or LiteLLM's) as a Responses API response:
    the message's reasoning, then its text and refusal, then its tool calls
    (``Converter.message_to_output_items``).

    Args:
        completion: The completion.
        model: The model's name (in the items' ``provider_data``).
        strict: Raise for what cannot be converted (a custom tool call).
        raise_on_length: An empty answer cut by the token limit is a ``ModelBehaviorError``.
        message_of: Turns the client's message into an OpenAI-shaped one (LiteLLM's).
    """
    choice = completion.choices[0] if completion.choices else None
    message = _choice_message(choice, raise_on_length) if choice is not None else None
    output: list[Any] = []
    if message is not None:
        if message_of is not None:
            message = message_of(message)
        provider_data: dict[str, Any] = {"model": model}
        response_id = getattr(completion, "id", None)
        if isinstance(response_id, str) and response_id:
            provider_data["response_id"] = response_id
        output = Converter.message_to_output_items(
            message, provider_data, strict_feature_validation=strict, new_id=_new_id
        )
        _attach_logprobs(output, choice)
    usage = usage_from_openai(getattr(completion, "usage", None))
    return ModelResponse(output=output, usage=usage, response_id=None)
