"""Small pieces of a Chat Completions request and answer: the SDK's ``ChatCmplHelpers``
(``agents.models.chatcmpl_helpers``), the ``User-Agent`` header the Chat Completions models
send, and the contextvar that overrides it."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from importlib import metadata
from typing import Any

from ..model_settings import ModelSettings
from .provider import is_official_openai_client

__all__ = ["HEADERS", "HEADERS_OVERRIDE", "ChatCmplHelpers", "request_headers"]


def _version() -> str:
    """This project's installed version (the runtime does not import the package itself)."""
    try:
        return metadata.version("jupyter_agents")
    except metadata.PackageNotFoundError:
        return "0"


HEADERS = {"User-Agent": f"Agents/Python {_version()}"}
"""The headers every Chat Completions request carries (the SDK's product token, this
project's version)."""

HEADERS_OVERRIDE: ContextVar[dict[str, str] | None] = ContextVar(
    "openai_chatcompletions_headers_override", default=None
)
"""Set it to replace ``HEADERS`` for the requests made in the current context."""


def request_headers(settings: ModelSettings) -> dict[str, str]:
    """A request's headers: ``HEADERS``, the settings' own, then ``HEADERS_OVERRIDE``'s."""
    return {**HEADERS, **(settings.extra_headers or {}), **(HEADERS_OVERRIDE.get() or {})}


def _field(source: Any, name: str) -> Any:
    """A field of a typed object or of a plain mapping."""
    if isinstance(source, Mapping):
        return source.get(name)
    return getattr(source, name, None)


class ChatCmplHelpers:
    """Helpers the Chat Completions models share."""

    @classmethod
    def is_openai(cls, client: Any) -> bool:
        """Whether ``client`` talks to OpenAI's own endpoint."""
        return is_official_openai_client(client)

    @classmethod
    def get_store_param(cls, client: Any, model_settings: ModelSettings) -> bool | None:
        """``store``: the settings', else True at OpenAI (as the Responses API), else unset."""
        if model_settings.store is not None:
            return model_settings.store
        return True if cls.is_openai(client) else None

    @classmethod
    def get_stream_options_param(
        cls, client: Any, model_settings: ModelSettings, stream: bool
    ) -> dict[str, bool] | None:
        """``stream_options``: ``include_usage`` from the settings, else True at OpenAI."""
        if not stream:
            return None
        include = model_settings.include_usage
        if include is None and cls.is_openai(client):
            include = True
        return {"include_usage": include} if include is not None else None

    @classmethod
    def convert_logprobs_for_output_text(cls, logprobs: Any) -> list[Any] | None:
        """A choice's token logprobs as an output text's ``logprobs`` (None for none)."""
        if not logprobs:
            return None
        from openai.types.responses.response_output_text import Logprob, LogprobTopLogprob

        return [
            Logprob(
                token=lp.token,
                logprob=lp.logprob,
                bytes=lp.bytes or [],
                top_logprobs=[
                    LogprobTopLogprob(token=t.token, logprob=t.logprob, bytes=t.bytes or [])
                    for t in lp.top_logprobs
                ],
            )
            for lp in logprobs
        ]

    @classmethod
    def convert_logprobs_for_text_delta(cls, logprobs: Any) -> list[Any] | None:
        """A chunk's token logprobs as a text delta event's ``logprobs`` (None for none)."""
        if not logprobs:
            return None
        from openai.types.responses.response_text_delta_event import (
            Logprob,
            LogprobTopLogprob,
        )

        return [
            Logprob(
                token=lp.token,
                logprob=lp.logprob,
                top_logprobs=[
                    LogprobTopLogprob(token=t.token, logprob=t.logprob) for t in lp.top_logprobs
                ]
                or None,
            )
            for lp in logprobs
        ]

    @classmethod
    def convert_url_citations(cls, raw_annotations: Any) -> list[Any]:
        """A message's URL citations (objects or plain dicts) as output text annotations;
        an incomplete citation is skipped."""
        if not isinstance(raw_annotations, list | tuple):
            return []
        from openai.types.responses.response_output_text import AnnotationURLCitation
        from pydantic import ValidationError

        found: list[Any] = []
        for annotation in raw_annotations:
            citation = _field(annotation, "url_citation")
            if _field(annotation, "type") != "url_citation" or citation is None:
                continue
            fields = {name: _field(citation, name) for name in _CITATION_FIELDS}
            try:
                found.append(
                    AnnotationURLCitation.model_validate(fields | {"type": "url_citation"})
                )
            except ValidationError:
                continue
        return found

    @classmethod
    def clean_gemini_tool_call_id(cls, tool_call_id: str, model: str | None = None) -> str:
        """A Gemini tool call's id without LiteLLM's ``__thought__`` suffix (which other
        models refuse); any other id as it is."""
        if model and "gemini" in model.lower() and "__thought__" in tool_call_id:
            return tool_call_id.split("__thought__")[0]
        return tool_call_id


_CITATION_FIELDS = ("start_index", "end_index", "url", "title")
