"""A local server that replays recorded provider traffic over real HTTP.

`RecordedServer` listens on 127.0.0.1 and answers each request with the next exchange of a
recording (`jupyter_agents.testing._recording`): the recorded status, headers and body byte for
byte, JSON or server-sent events, errors included, so the real ``openai`` client and LiteLLM
parse exactly what the provider sent. It also checks what the client sent where it matters
(the recording's ``checks``): a request that fails one is answered as the provider answers it
(``on_mismatch``), and the failure fails the test when the server stops, as do a request the
recording does not expect and an exchange never requested.

Example:
    ```python
    with replay_recording("tests/fixtures/provider_traffic/deepseek/tools.json") as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key)
        ...
    ```
"""

from __future__ import annotations

import json
import socket
import socketserver
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from jupyter_agents.testing._recording import (
    Recording,
    ServedResponse,
    check_failures,
)

__all__ = ["ReceivedCall", "RecordedServer", "replay_recording"]


@dataclass(frozen=True)
class ReceivedCall:
    """One request the server received."""

    method: str
    """The HTTP method."""

    path: str
    """The path, without the query."""

    headers: dict[str, str]
    """The headers, names in lower case."""

    body: Any
    """The JSON body (None when there was none, or it was not JSON)."""


class RecordedServer:
    """Serves one recording's exchanges, in order, to whoever asks."""

    api_key = "test-key"
    """A placeholder key for clients that insist on one (never checked)."""

    def __init__(self, recording: Recording) -> None:
        """Prepare the server (``start`` or ``with`` runs it).

        Args:
            recording: The conversation to replay.
        """
        self.recording = recording
        self.received: list[ReceivedCall] = []
        """Every request received, in order."""
        self.failures: list[str] = []
        """What went wrong on the server's side (failed checks, unexpected requests)."""
        self._next = 0
        self._lock = threading.Lock()
        self._http: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The server's root, ``http://127.0.0.1:PORT`` (LiteLLM's ``api_base`` for Anthropic)."""
        assert self._http is not None, "the server is not running"
        return f"http://127.0.0.1:{self._http.server_port}"

    @property
    def base_url(self) -> str:
        """``url`` + ``/v1``: the ``openai`` client's ``base_url`` (and LiteLLM's ``api_base``
        for OpenAI-compatible providers)."""
        return f"{self.url}/v1"

    def start(self) -> RecordedServer:
        """Listen on a free port, answering on a background thread."""
        self._http = _HTTPServer(("127.0.0.1", 0), self)
        self._thread = threading.Thread(
            target=self._http.serve_forever, name="RecordedServer", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and close every connection."""
        if self._http is None:
            return
        self._http.shutdown()
        self._http.close_connections()
        self._http.server_close()
        assert self._thread is not None
        self._thread.join(5)
        self._http = None

    def __enter__(self) -> RecordedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def problems(self) -> list[str]:
        """Failed checks, unexpected requests and exchanges never requested, one line each."""
        left = len(self.recording.exchanges) - self._next
        unused = [f"{left} recorded exchange(s) never requested"] if left > 0 else []
        return [*self.failures, *unused]

    def take(self, call: ReceivedCall) -> ServedResponse:
        """Record ``call`` and choose its answer: the next exchange's response, or what the
        provider answers a request that fails the exchange's checks."""
        with self._lock:
            self.received.append(call)
            number = len(self.received)
            if self._next >= len(self.recording.exchanges):
                return self._fail(f"request {number} ({call.method} {call.path}) was not recorded")
            exchange = self.recording.exchanges[self._next]
            self._next += 1
        if (call.method, call.path) != (exchange.method, exchange.path):
            where = f"{exchange.method} {exchange.path}"
            return self._fail(f"request {number} went to {call.method} {call.path}, not {where}")
        failures = check_failures(call.body, exchange.checks)
        if not failures:
            return exchange.response
        self.failures.extend(f"request {number}: {failure}" for failure in failures)
        return exchange.on_mismatch or _error(400, "; ".join(failures))

    def _fail(self, message: str) -> ServedResponse:
        self.failures.append(message)
        return _error(500, message)


def _error(status: int, message: str) -> ServedResponse:
    body = {"error": {"message": f"RecordedServer: {message}", "type": "recording_mismatch"}}
    headers = {"Content-Type": "application/json"}
    return ServedResponse(status, headers, json.dumps(body).encode(), False)


@contextmanager
def replay_recording(path: str | Path) -> Iterator[RecordedServer]:
    """Run a ``RecordedServer`` for the recording at ``path`` for a ``with`` block.

    When the block ends, a failed check, an unexpected request or an exchange never requested
    fails it with an ``AssertionError`` (raised from the block's own error, if it had one: a
    client error is often the provider's answer to the request that failed the check).
    """
    server = RecordedServer(Recording.load(path))
    with server:
        try:
            yield server
        except Exception as error:
            problems = server.problems()
            if problems:
                raise AssertionError(_report(server, problems)) from error
            raise
    problems = server.problems()
    if problems:
        raise AssertionError(_report(server, problems))


def _report(server: RecordedServer, problems: list[str]) -> str:
    lines = "\n".join(f"  - {problem}" for problem in problems)
    return f"Replaying {server.recording.name}:\n{lines}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "RecordedServer/1.0"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the test's report says what matters

    def do_GET(self) -> None:
        self._answer()

    do_POST = do_PUT = do_DELETE = do_GET

    def _answer(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {name.lower(): value for name, value in self.headers.items()}
        call = ReceivedCall(self.command, self.path.partition("?")[0], headers, body)
        try:
            self._send(self.server.owner.take(call))
        except ConnectionError:
            self.close_connection = True

    def _send(self, response: ServedResponse) -> None:
        self.send_response(response.status)
        for name, value in response.headers.items():
            self.send_header(name, value)
        if not response.events:
            self.send_header("Content-Length", str(len(response.body)))
            self.end_headers()
            self.wfile.write(response.body)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in _events(response.body):
            self.wfile.write(b"%X\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")


def _events(body: bytes) -> list[bytes]:
    """``body`` cut after each blank line (each piece ends with it): the events as sent."""
    pieces = body.split(b"\n\n")
    events = [piece + b"\n\n" for piece in pieces[:-1]]
    if pieces[-1]:
        events.append(pieces[-1])
    return events


class _HTTPServer(ThreadingHTTPServer):
    """A threading server that can end its open (keep-alive) connections on stop."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], owner: RecordedServer) -> None:
        self.owner = owner
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # no getfqdn: it can stall
        self.server_name, self.server_port = "127.0.0.1", int(self.server_address[1])

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._open_lock:
                self._open.discard(request)

    def close_connections(self) -> None:
        with self._open_lock:
            connections = list(self._open)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, OSError)):
            super().handle_error(request, client_address)
