"""Scripted models over HTTP: ``JUPYTER_AGENTS_SCRIPTED_HTTP`` sends every request of every
``ScriptedModel`` through the real ``openai`` client to the local
OpenAI-compatible test server, which answers with the script.

So a notebook (or a program) written with scripted stand-ins runs, unchanged, the way it runs
against a provider: the request is built and sent by the runtime's OpenAI model, the reply
comes back as HTTP (server-sent events when streamed) and is parsed by the client. The script
still decides what the model says, with the request it was really given (its tools as objects,
not only as JSON), because the server takes the script's answer for each request from this
process.

``JUPYTER_AGENTS_SCRIPTED_HTTP=1`` starts one ``FakeOpenAIServer`` in the process (on
127.0.0.1, at the first request) and uses it; any other value is the base URL to use instead,
for example one where no server listens, to prove that a run makes no model request (every
request then fails to connect).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading
import uuid
import weakref
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..runtime.errors import UserError
from ..runtime.items import ModelResponse, TResponseStreamEvent
from ..runtime.models.interface import ModelRequest
from ._steps import ModelStep, model_call, output_items
from .server import FakeOpenAIServer, Reply, ReplyError, ReplyItem, ReplyText, ReplyToolCall

if TYPE_CHECKING:
    from .scripted import ScriptedModel

__all__ = ["ENV", "HEADER", "scripted_base_url", "stop_server"]

ENV = "JUPYTER_AGENTS_SCRIPTED_HTTP"
HEADER = "x-jupyter-agents-script"
"""The request header naming the scripted request a server request stands for."""

API_KEY = "scripted-http"

_lock = threading.Lock()
_server: FakeOpenAIServer | None = None
_pending: dict[str, tuple[ScriptedModel, Any]] = {}
"""Requests on their way to the server, by the token in their header."""
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Any]] = (
    weakref.WeakKeyDictionary()
)
"""One ``AsyncOpenAI`` client per event loop and base URL, kept: a client made for each request
spent 20 to 60 ms making its TLS context and connection (a thousand-case evaluation took a
minute instead of seconds)."""


def scripted_base_url() -> str | None:
    """The base URL scripted models send their requests to (None: they answer in process)."""
    value = os.environ.get(ENV, "").strip()
    if value in ("", "0"):
        return None
    if value != "1":
        return value
    global _server
    with _lock:
        if _server is None:
            _server = FakeOpenAIServer(api_key=API_KEY, player=_play)
            _server.start()
        return _server.base_url


def stop_server() -> None:
    """Stop the process's server (the next scripted request starts another)."""
    global _server
    with _lock:
        server, _server = _server, None
    if server is not None:
        server.stop()


def _step_outputs(step: ModelStep) -> list[Any] | None:
    """A step in the SDK's form as its output items (None: it raises or responds)."""
    if step.error is not None or step.responder is not None:
        return None
    return output_items(step)


def _play(headers: dict[str, str]) -> Reply | ReplyError:
    """The script's answer to the server request carrying ``headers`` (server thread)."""
    with _lock:
        entry = _pending.pop(headers.get(HEADER, ""), None)
    if entry is None:
        return ReplyError(400, f"{HEADER}: no scripted request with this token is waiting.")
    model, request = entry
    try:
        played = model._record(request, model_call(request, streamed=request.stream))
    except UserError as e:
        return ReplyError(500, str(e))
    outputs = played if isinstance(played, list) else _step_outputs(played)
    if outputs is None:
        return ReplyError(500, "ScriptedModel over HTTP plays steps' output items only.")
    usage = model._usage(request, outputs)
    replies: list[Any] = []
    for output in outputs:
        raw = output.model_dump(exclude_none=True)
        if raw.get("type") == "message":
            replies.append(ReplyText("".join(p.get("text", "") for p in raw.get("content", []))))
        elif raw.get("type") == "function_call":
            replies.append(ReplyToolCall(raw["name"], raw["arguments"], raw["call_id"]))
        else:
            replies.append(ReplyItem(raw))
    return Reply(
        replies,
        usage=(usage.input_tokens, usage.output_tokens),
        chunk_size=model.chunk_size,
        delay_between_chunks=model.delay,
    )


def _sent(
    model: ScriptedModel, call: ModelRequest, stream: bool
) -> tuple[_Remote, ModelRequest, str]:
    """The OpenAI model to send ``call`` with, the call as sent, and its token."""
    from openai import AsyncOpenAI

    from ..runtime.models.openai_responses import OpenAIResponsesModel

    base = scripted_base_url()
    assert base is not None
    token = uuid.uuid4().hex
    with _lock:
        _pending[token] = (model, model._request(call, stream=stream))
    settings = call.model_settings
    headers = {**(settings.extra_headers or {}), HEADER: token}
    sent = dataclasses.replace(
        call, model_settings=dataclasses.replace(settings, extra_headers=headers)
    )
    with _lock:  # a client belongs to the loop it was made on (its connections do)
        per_loop = _clients.setdefault(asyncio.get_running_loop(), {})
        client = per_loop.get(base)
        if client is None:
            client = per_loop[base] = AsyncOpenAI(base_url=base, api_key=API_KEY, max_retries=0)
    return _Remote(OpenAIResponsesModel(model.name, client)), sent, token


@dataclasses.dataclass
class _Remote:
    """The OpenAI model a scripted request is sent with (on its loop's kept client)."""

    model: Any

    async def respond(self, call: ModelRequest) -> ModelResponse:
        response: ModelResponse = await self.model.respond(call)
        return response

    def stream(self, call: ModelRequest) -> AsyncIterator[TResponseStreamEvent]:
        events: AsyncIterator[TResponseStreamEvent] = self.model.stream(call)
        return events


async def respond_over_http(model: ScriptedModel, call: ModelRequest) -> ModelResponse:
    """``model``'s answer to ``call``, through the openai client and the test server."""
    remote, sent, token = _sent(model, call, stream=False)
    try:
        return await remote.respond(sent)
    finally:
        with _lock:
            _pending.pop(token, None)


async def stream_over_http(
    model: ScriptedModel, call: ModelRequest
) -> AsyncIterator[TResponseStreamEvent]:
    """``model``'s streamed answer to ``call``, through the openai client and the test server."""
    remote, sent, token = _sent(model, call, stream=True)
    try:
        async for event in remote.stream(sent):
            yield event
    finally:
        with _lock:
            _pending.pop(token, None)
