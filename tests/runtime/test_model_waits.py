"""Waiting on a model server: the limits of one attempt (connecting, a stream's first event,
reads), what the run says it waits for, and the one line that names the server when it fails.

The servers here are plain sockets that take a request and then say nothing, or send the
response headers (and perhaps one chunk) and stall, as a hung model server does.
"""

from __future__ import annotations

import asyncio
import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from jupyter_agents import (
    Agent,
    ModelSettings,
    ModelTimeout,
    ModelTimeoutError,
    OpenAIProvider,
    RunConfig,
    Runner,
    UserError,
)
from jupyter_agents.runtime.models.provider import DEFAULT_MODEL_TIMEOUT, client_timeout
from jupyter_agents.runtime.retry import ModelRetryPolicy

pytestmark = pytest.mark.http

CHUNK = (
    b'data: {"id":"c1","object":"chat.completion.chunk","created":0,"model":"m",'
    b'"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}\n\n'
)


class _Handler(socketserver.BaseRequestHandler):
    server: StallingServer

    def handle(self) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            got = self.request.recv(65536)
            if not got:
                return
            data += got
        self.server.arrived()
        mode = self.server.mode
        if mode != "silent":
            self.request.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n"
            )
        if mode == "one-chunk":
            self.request.sendall(b"%X\r\n%s\r\n" % (len(CHUNK), CHUNK))
        self.request.settimeout(0.1)
        while not self.server.stopping.is_set():  # until the client hangs up
            try:
                if self.request.recv(65536) == b"":
                    return
            except (TimeoutError, OSError):
                continue


class StallingServer(socketserver.ThreadingTCPServer):
    """Takes each request, then: ``silent`` answers nothing, ``headers`` sends the response
    headers of a stream and stalls, ``one-chunk`` sends one Chat Completions chunk too."""

    daemon_threads = True

    def __init__(self, mode: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode = mode
        self.requests = 0
        self.first = threading.Event()
        self.second = threading.Event()
        self.stopping = threading.Event()

    def arrived(self) -> None:
        self.requests += 1
        self.first.set()
        if self.requests == 2:
            self.second.set()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


def stalling(mode: str) -> Any:
    @pytest.fixture
    def server() -> Iterator[StallingServer]:
        started = StallingServer(mode)
        thread = threading.Thread(target=started.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        try:
            yield started
        finally:
            started.stopping.set()
            started.shutdown()
            started.server_close()

    return server


silent_server = stalling("silent")
headers_server = stalling("headers")
one_chunk_server = stalling("one-chunk")


def agent_at(
    base_url: str, *, timeout: Any = None, api: str = "chat", key: str = "sk-test"
) -> Agent[Any]:
    provider = OpenAIProvider(base_url=base_url, api_key=key, use_responses=api != "chat")
    return Agent(
        name="a", model=provider.get_model("m"), model_settings=ModelSettings(timeout=timeout)
    )


def retries(attempts: int) -> RunConfig:
    return RunConfig(model_retry=ModelRetryPolicy(max_attempts=attempts, initial_delay=0.01))


async def run(agent: Agent[Any], stream: bool, config: RunConfig) -> Any:
    if not stream:
        return await Runner.run(agent, "hi", run_config=config)
    result = Runner.run_streamed(agent, "hi", run_config=config)
    async for _ in result.stream_events():
        pass
    return result


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- the limits and their defaults ------------------------------------------------------------


def test_the_defaults_are_a_few_seconds_to_connect_and_bounded_waits() -> None:
    assert ModelTimeout() == ModelTimeout(connect=5, first_event=30, read=120)
    assert ModelTimeout.of(None) == ModelTimeout()
    assert DEFAULT_MODEL_TIMEOUT == 120
    timeout = client_timeout(None)
    assert (timeout.connect, timeout.read) == (5, 120)
    # a number is every wait of an attempt; connecting stays short
    assert ModelTimeout.of(60) == ModelTimeout(connect=5, first_event=60, read=60)
    assert ModelTimeout.of(2) == ModelTimeout(connect=2, first_event=2, read=2)
    # a stream's first event also waits on reads: the client's read limit is at least its
    assert client_timeout(ModelTimeout(first_event=300)).read == 300


def test_timeout_settings_are_checked_and_serialised() -> None:
    settings = ModelSettings(timeout={"read": 600})  # a documented dict
    assert settings.timeout == ModelTimeout(read=600)
    assert settings.to_json_dict()["timeout"] == {"connect": 5, "first_event": 30, "read": 600}
    assert ModelSettings(timeout=90).resolve(ModelSettings(timeout=ModelTimeout())).timeout == (
        ModelTimeout()
    )
    for bad in (0, -1, True, "10"):
        with pytest.raises(UserError, match="timeout must be a positive number"):
            ModelSettings(timeout=bad)  # type: ignore[arg-type]
    with pytest.raises(UserError, match="Unknown ModelTimeout fields: total"):
        ModelSettings(timeout={"total": 5})
    with pytest.raises(UserError, match=r"ModelTimeout.read must be positive and finite"):
        ModelTimeout(read=float("inf"))


# -- connection errors name the server ---------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_a_refused_port_names_the_url(stream: bool) -> None:
    port = closed_port()
    agent = agent_at(f"http://127.0.0.1:{port}/v1")
    with pytest.raises(openai.APIConnectionError) as caught:
        await run(agent, stream, retries(2))
    assert str(caught.value) == (
        f"Could not connect to the model at http://127.0.0.1:{port}/v1/chat/completions: "
        "connection refused (2 attempts). Is the server running, and is its URL right "
        "(OPENAI_BASE_URL, or the model's base_url)?"
    )


async def test_an_unknown_host_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    guarded = socket.getaddrinfo

    def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name.endswith(".invalid"):  # what a resolver answers for these, offline
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return guarded(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    agent = agent_at("http://model.invalid:8000/v1", api="responses")
    with pytest.raises(openai.APIConnectionError) as caught:
        await run(agent, True, retries(1))
    line = str(caught.value)
    assert line.startswith(
        "Could not connect to the model at http://model.invalid:8000/v1/responses: "
        "unknown host model.invalid."
    )
    assert "\n" not in line


async def test_a_tls_failure_is_named() -> None:
    with socket.socket() as listener:  # speaks plain bytes where TLS is expected
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]

        def answer() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.recv(1024)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

        threading.Thread(target=answer, daemon=True).start()
        agent = agent_at(f"https://127.0.0.1:{port}/v1")
        with pytest.raises(openai.APIConnectionError) as caught:
            await run(agent, False, retries(1))
    assert str(caught.value).startswith(
        f"Could not connect to the model at https://127.0.0.1:{port}/v1/chat/completions: "
        "TLS failed ("
    )


# -- a server that takes the request and stalls --------------------------------------------


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_a_stream_whose_server_sends_only_headers_ends_at_its_first_event_limit(
    headers_server: StallingServer, api: str
) -> None:
    agent = agent_at(headers_server.base_url, timeout=ModelTimeout(first_event=0.4), api=api)
    started = time.monotonic()
    with pytest.raises(ModelTimeoutError) as caught:
        await run(agent, True, retries(2))
    assert time.monotonic() - started < 10
    assert headers_server.requests == 2  # the first event limit is retried like a timeout
    assert str(caught.value) == (
        f"No answer from the model at {headers_server.base_url} within 0.4 s (2 attempts): it "
        "took the request and sent nothing. ModelSettings(timeout=ModelTimeout(first_event=...)) "
        "waits longer."
    )
    assert caught.value.timeout_seconds == 0.4


async def test_a_server_that_never_answers_ends_a_stream_at_its_first_event_limit(
    silent_server: StallingServer,
) -> None:
    agent = agent_at(silent_server.base_url, timeout=ModelTimeout(first_event=0.4))
    with pytest.raises(ModelTimeoutError, match=r"^No answer from the model at http://127"):
        await run(agent, True, retries(1))


async def test_a_stream_that_stalls_after_its_first_event_ends_at_the_read_limit(
    one_chunk_server: StallingServer,
) -> None:
    limits = ModelTimeout(first_event=0.4, read=0.4)
    agent = agent_at(one_chunk_server.base_url, timeout=limits)
    result = Runner.run_streamed(agent, "hi", run_config=retries(3))
    seen = []
    with pytest.raises(openai.APITimeoutError) as caught:
        async for event in result.stream_events():
            seen.append(event)
    assert any(getattr(e, "data", None) is not None for e in seen)  # the first chunk came
    assert one_chunk_server.requests == 1  # part of the answer was delivered: no retry
    assert str(caught.value) == (
        f"The model at {one_chunk_server.base_url}/chat/completions sent nothing for 0.4 s "
        "(read timeout). ModelSettings(timeout=ModelTimeout(read=...)) waits longer."
    )


async def test_a_plain_call_to_a_silent_server_ends_at_the_read_limit(
    silent_server: StallingServer,
) -> None:
    agent = agent_at(silent_server.base_url, timeout=0.4)
    with pytest.raises(openai.APITimeoutError) as caught:
        await run(agent, False, retries(2))
    assert str(caught.value).startswith(
        f"The model at {silent_server.base_url}/chat/completions sent nothing for 0.4 s "
        "(2 attempts) (read timeout)."
    )


async def test_a_stopped_run_is_not_a_timeout(silent_server: StallingServer) -> None:
    agent = agent_at(silent_server.base_url, timeout=ModelTimeout(first_event=30))
    result = Runner.run_streamed(agent, "hi", run_config=retries(1))

    async def stop_when_sent() -> None:
        await asyncio.to_thread(silent_server.first.wait, 10)
        result.cancel()

    stopper = asyncio.ensure_future(stop_when_sent())
    async for _ in result.stream_events():
        pass
    await stopper
    assert result.is_cancelled and result.model_wait is None


# -- what the run says it waits for --------------------------------------------------------


async def test_the_run_tells_which_server_and_attempt_it_waits_for(
    silent_server: StallingServer,
) -> None:
    agent = agent_at(silent_server.base_url, timeout=ModelTimeout(first_event=0.5))
    result = Runner.run_streamed(agent, "hi", run_config=retries(3))
    assert result.model_wait is None  # nothing was sent yet
    consumed = asyncio.ensure_future(run_to_the_end(result))
    await asyncio.to_thread(silent_server.second.wait, 10)  # the second attempt was sent
    wait = result.model_wait
    assert wait is not None
    assert (wait.where(), wait.attempt, wait.attempts) == (
        f"127.0.0.1:{silent_server.server_address[1]}",
        2,
        3,
    )
    assert time.monotonic() - wait.since >= 0.5  # since the call's first attempt
    with pytest.raises(ModelTimeoutError, match=r"\(3 attempts\)"):
        await consumed
    assert result.model_wait is None


async def run_to_the_end(result: Any) -> None:
    async for _ in result.stream_events():
        pass


async def test_a_streaming_answer_is_not_waited_for(openai_server: Any) -> None:
    from jupyter_agents.testing.server import Reply, ReplyText

    openai_server.enqueue(Reply([ReplyText("one two three four")], chunk_size=3))
    agent = agent_at(openai_server.base_url, key=openai_server.api_key)
    result = Runner.run_streamed(agent, "hi", run_config=retries(1))
    waits = []
    async for event in result.stream_events():
        if event.type == "raw_response_event":
            waits.append(result.model_wait)
    assert waits and waits == [None] * len(waits)
    assert result.final_output == "one two three four"
