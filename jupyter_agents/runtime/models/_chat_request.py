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
from typing import Any
from urllib.parse import urlsplit

from ..errors import UserError
from ..items import ModelResponse
from ..model_settings import MCPToolChoice
from ._chat_convert import to_chat_messages
from ._chat_reasoning import ChatReasoning, field_of, reasoning_item_id
from ._openai_params import chat_tools, response_format, settings_params
from ._responses_build import function_call_item, message_item
from .interface import ModelRequest
from .usage import usage_from_openai

__all__ = ["chat_params", "chat_response", "new_call_id", "refusal_of", "token_limit_field"]

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


def chat_params(
    model: str,
    request: ModelRequest,
    warned: set[str],
    stream: bool,
    *,
    token_field: str = "max_tokens",
    thinking_blocks: bool = False,
) -> dict[str, Any]:
    """The keyword arguments of ``chat.completions.create`` for ``request``.

    Args:
        model: The model name sent.
        request: The call's arguments.
        warned: What was already warned about (tools left out), updated.
        stream: Whether to stream.
        token_field: The field ``ModelSettings.max_tokens`` goes in (``token_limit_field``).
        thinking_blocks: Whether the client takes Claude's thinking blocks back on assistant
            messages (LiteLLM does).
    """
    settings, tools, handoffs = request.model_settings, request.tools, request.handoffs
    messages = to_chat_messages(
        request.system_instructions, request.input, model=model, thinking_blocks=thinking_blocks
    )
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
        token_field: settings.max_tokens,
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
    if stream:
        params["stream"] = True
        if settings.include_usage is not False:
            params["stream_options"] = {"include_usage": True}
    params.update(settings_params(settings))
    return params


def refusal_of(message: Any) -> str | None:
    """A message's (or a delta's) refusal: ``refusal``, or where LiteLLM keeps it."""
    refusal = field_of(message, "refusal")
    if not refusal:
        extra = field_of(message, "provider_specific_fields")
        refusal = extra.get("refusal") if isinstance(extra, dict) else None
    return refusal if isinstance(refusal, str) and refusal else None


def chat_response(completion: Any, model: str) -> ModelResponse:
    """A chat completion (the ``openai`` package's or LiteLLM's) as a Responses API response:
    the message's reasoning, then its text and refusal, then its tool calls."""
    message = completion.choices[0].message if completion.choices else None
    output: list[Any] = []
    if message is not None:
        reasoning = ChatReasoning.of_message(message)
        if reasoning:
            output.append(reasoning.item(reasoning_item_id(), model))
        text, refusal = message.content or "", refusal_of(message)
        if text or refusal:
            output.append(message_item(text, f"msg_{next(_ids)}", refusal=refusal))
    for call in (message.tool_calls if message is not None else None) or []:
        function = getattr(call, "function", None)
        if function is None:
            continue
        call_id = call.id or new_call_id()
        output.append(
            function_call_item(function.name, function.arguments or "", call_id, f"fc_{next(_ids)}")
        )
    usage = usage_from_openai(getattr(completion, "usage", None))
    return ModelResponse(output=output, usage=usage, response_id=None)
