"""One Chat Completions request and its answer, shared by the models that speak the format
(``OpenAIChatCompletionsModel`` and ``LitellmModel``, whose ``acompletion`` takes and returns
OpenAI-shaped chat objects)."""

from __future__ import annotations

import itertools
from typing import Any

from ..items import ModelResponse
from ._chat_convert import to_chat_messages
from ._openai_params import chat_tools, response_format, settings_params
from ._responses_build import function_call_item, message_item
from .interface import ModelRequest
from .usage import usage_from_openai

__all__ = ["chat_params", "chat_response"]

_ids = itertools.count(1)


def chat_params(
    model: str, request: ModelRequest, warned: set[str], stream: bool
) -> dict[str, Any]:
    """The keyword arguments of ``chat.completions.create`` for ``request``."""
    settings, tools, handoffs = request.model_settings, request.tools, request.handoffs
    params: dict[str, Any] = {
        "model": model,
        "messages": to_chat_messages(request.system_instructions, request.input),
    }
    converted = chat_tools(tools, warned, handoffs or [])
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


def chat_response(completion: Any) -> ModelResponse:
    """A chat completion (the ``openai`` package's or LiteLLM's) as a Responses API response."""
    message = completion.choices[0].message if completion.choices else None
    output: list[Any] = []
    if message is not None and (message.content or getattr(message, "refusal", None)):
        output.append(message_item(message.content or message.refusal or "", f"msg_{next(_ids)}"))
    for call in (message.tool_calls if message is not None else None) or []:
        function = getattr(call, "function", None)
        if function is None:
            continue
        output.append(
            function_call_item(function.name, function.arguments or "", call.id, f"fc_{next(_ids)}")
        )
    usage = usage_from_openai(getattr(completion, "usage", None))
    return ModelResponse(output=output, usage=usage, response_id=None)
