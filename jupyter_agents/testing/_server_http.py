"""The standard-library HTTP machinery behind `FakeOpenAIServer`.

`ServerState` holds the scripted replies and the recorded requests behind one condition
variable; `_Handler` answers one connection; `FakeHTTPServer` runs one thread per
connection and can close them all on shutdown so no thread outlives the server.
"""

from __future__ import annotations

import json
import logging
import select
import socket
import socketserver
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from jupyter_agents.testing._server_anthropic import (
    anthropic_error,
    message_events,
    message_object,
)
from jupyter_agents.testing._server_chat import chat_chunks, chat_completion
from jupyter_agents.testing._server_embeddings import embeddings_reply
from jupyter_agents.testing._server_replies import (
    RecordedRequest,
    Reply,
    ReplyError,
    ReplyHang,
    ScriptedReply,
)
from jupyter_agents.testing._server_responses import (
    DEFAULT_MODEL,
    response_events,
    response_object,
)
from jupyter_agents.testing._server_tools import tool_schema_problem

__all__ = ["FakeHTTPServer", "ServerState"]

_log = logging.getLogger("jupyter_agents.testing.server")

_MODEL_ROUTES = {
    "/v1/responses": "responses",
    "/v1/chat/completions": "chat",
    "/v1/messages": "messages",  # Anthropic's Messages API
}
"""Paths answered from the reply queue (POST only)."""

_POLL_SECONDS = 0.05
"""How often a hanging request checks whether its client went away."""


class ServerState:
    """The scripted replies and recorded requests, shared by all handler threads."""

    def __init__(self, api_key: str, require_api_key: bool) -> None:
        self.api_key = api_key
        self.require_api_key = require_api_key
        self.validate_tool_schemas = True
        self.changed = threading.Condition()
        self.replies: deque[ScriptedReply] = deque()
        self.requests: list[RecordedRequest] = []
        self.model_request_count = 0
        self.stopping = threading.Event()
        self.player: Callable[[dict[str, str]], ScriptedReply] | None = None
        self.responder: Callable[[dict[str, Any]], ScriptedReply] | None = None
        """Answers a model request when no scripted reply is queued (from its headers)."""

    def record(
        self, request: RecordedRequest, *, take_reply: bool
    ) -> tuple[int, int, ScriptedReply | None]:
        """Record `request` and, for a model request, pop the next scripted reply.

        Args:
            request: The request to record.
            take_reply: Whether the request consumes a scripted reply.

        Returns:
            `(index, number, reply)`: the 1-based position among all requests, the
            1-based model request number (0 when `take_reply` is false), and the reply,
            `None` when none was taken or the queue was empty.
        """
        with self.changed:
            self.requests.append(request)
            index, number, reply = len(self.requests), 0, None
            if take_reply:
                self.model_request_count += 1
                number = self.model_request_count
                reply = self.replies.popleft() if self.replies else None
            self.changed.notify_all()
        return index, number, reply


def _error_body(message: str, type_: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


class _Handler(BaseHTTPRequestHandler):
    """Answers the requests of one connection (HTTP/1.1, keep-alive)."""

    protocol_version = "HTTP/1.1"
    server_version = "FakeOpenAIServer/1.0"
    server: FakeHTTPServer
    _request_id = "req_0000"

    def log_message(self, format: str, *args: Any) -> None:
        _log.debug("%s - " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    do_PUT = do_PATCH = do_DELETE = do_POST

    def _handle(self) -> None:
        try:
            self._dispatch()
        except ConnectionError:
            # The client went away (cancelled, timed out); nothing left to tell it.
            self.close_connection = True

    @property
    def _state(self) -> ServerState:
        return self.server.state

    def _dispatch(self) -> None:
        path, _, query = self.path.partition("?")
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            self._send_json(411, _error_body("Send a Content-Length.", "invalid_request_error"))
            return
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = _parse_object(raw)
        headers = {name.lower(): value for name, value in self.headers.items()}
        request = RecordedRequest(self.command, path, headers, body, query)
        route = _MODEL_ROUTES.get(path) if self.command == "POST" else None
        answer = self._answer_without_reply(route, raw, body, headers)
        index, number, reply = self._state.record(request, take_reply=answer is None)
        self._request_id = f"req_{index:04d}"
        if answer is None and reply is None and self._state.player is not None:
            reply = self._state.player(headers)
        if answer is None and reply is None and self._state.responder is not None:
            assert body is not None
            reply = self._state.responder(body)
        if answer is not None:
            self._send_json(*answer)
        elif reply is None:
            message = f"FakeOpenAIServer: no scripted reply left for {self.command} {path}."
            error = _error_body(message, "server_error", "no_scripted_reply")
            self._send_json(500, anthropic_error(500, message) if route == "messages" else error)
        else:
            assert route is not None and body is not None
            self._serve_reply(route, reply, body, number)

    def _answer_without_reply(
        self, route: str | None, raw: bytes, body: dict[str, Any] | None, headers: dict[str, str]
    ) -> tuple[int, dict[str, Any]] | None:
        """The status and body to answer with instead of a scripted reply, if any.

        Non-model routes, a wrong API key and a malformed body are answered here and
        leave the reply queue alone.
        """
        if route is None:
            return self._non_model_route(body)
        expected = f"Bearer {self._state.api_key}"
        anthropic_key = route == "messages" and headers.get("x-api-key") == self._state.api_key
        if self._state.require_api_key and not (
            anthropic_key or headers.get("authorization") == expected
        ):
            message = (
                f"FakeOpenAIServer: expected the header 'Authorization: {expected}' (or "
                "'x-api-key' on /v1/messages); build the client with api_key=server.api_key."
            )
            return 401, _error_body(message, "invalid_request_error", "invalid_api_key")
        if body is None:
            message = f"FakeOpenAIServer: the body must be a JSON object, got {raw[:200]!r}."
            return 400, _error_body(message, "invalid_request_error")
        if self._state.validate_tool_schemas and route != "messages":
            problem = tool_schema_problem(
                body.get("tools"), "chat" if route == "chat" else "responses"
            )
            if problem is not None:
                error = _error_body(problem, "invalid_request_error", "invalid_function_parameters")
                error["error"]["param"] = "tools"
                return 400, error
        return None

    def _non_model_route(self, body: dict[str, Any] | None) -> tuple[int, dict[str, Any]]:
        path = self.path.partition("?")[0]
        if self.command == "POST" and path == "/v1/embeddings":
            return embeddings_reply(body)
        model = {"id": DEFAULT_MODEL, "object": "model", "created": 0, "owned_by": "fake"}
        if self.command == "GET" and path == "/v1/models":
            return 200, {"object": "list", "data": [model]}
        if self.command == "GET" and path.startswith("/v1/models/"):
            return 200, {**model, "id": path.removeprefix("/v1/models/")}
        message = f"FakeOpenAIServer: no route for {self.command} {path}."
        return 404, _error_body(message, "invalid_request_error", "unknown_url")

    def _serve_reply(
        self, route: str, reply: ScriptedReply, body: dict[str, Any], number: int
    ) -> None:
        if isinstance(reply, ReplyError):
            self._send_error_reply(reply, route)
            return
        if isinstance(reply, ReplyHang):
            self._hang()
            return
        if reply.delay and self._state.stopping.wait(reply.delay):
            self.close_connection = True
            return
        created = int(time.time())
        if route == "messages":
            if body.get("stream"):
                events = message_events(reply, body, sequence=number)
                self._stream(reply, events, named_events=True)
            else:
                self._send_json(200, message_object(reply, body, sequence=number))
        elif body.get("stream"):
            if route == "responses":
                events = response_events(reply, body, sequence=number, created_at=created)
            else:
                events = chat_chunks(reply, body, sequence=number, created=created)
            self._stream(reply, events, named_events=route == "responses")
        elif route == "responses":
            self._send_json(200, response_object(reply, body, sequence=number, created_at=created))
        else:
            self._send_json(200, chat_completion(reply, body, sequence=number, created=created))

    def _send_error_reply(self, reply: ReplyError, route: str) -> None:
        headers: dict[str, str] = {}
        if reply.retry_after is not None:
            headers["Retry-After"] = f"{reply.retry_after:g}"
            if route != "messages":  # Anthropic sends Retry-After alone
                headers["retry-after-ms"] = str(round(reply.retry_after * 1000))
        body = _error_body(reply.message, reply.type_, reply.code)
        if route == "messages":
            body = anthropic_error(reply.status, reply.message)
        self._send_json(reply.status, body, headers)

    def _send_json(
        self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", self._request_id)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, reply: Reply, events: Iterator[dict[str, Any]], named_events: bool) -> None:
        """Send `events` as server-sent events, one HTTP chunk (and flush) per event."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("x-request-id", self._request_id)
        self.end_headers()
        for count, payload in enumerate(events):
            if reply.abort_after_events is not None and count >= reply.abort_after_events:
                # Closing without the terminating chunk makes the body incomplete.
                self.close_connection = True
                return
            pause = reply.delay_between_chunks
            if count and pause and self._state.stopping.wait(pause):
                self.close_connection = True
                return
            data = json.dumps(payload)
            event = f"event: {payload['type']}\n" if named_events else ""
            self._write_chunk(f"{event}data: {data}\n\n".encode())
        if not named_events:
            self._write_chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _hang(self) -> None:
        """Answer nothing until the client disconnects or the server stops."""
        self.close_connection = True
        while not self._state.stopping.wait(_POLL_SECONDS):
            if self._peer_closed():
                return

    def _peer_closed(self) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True


def _parse_object(raw: bytes) -> dict[str, Any] | None:
    """The JSON object in `raw`, or `None` if it is empty, invalid or not an object."""
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class FakeHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server that tracks its connections so `stop` can end them."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], state: ServerState) -> None:
        self.state = state
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host name (getfqdn), which can stall.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve_connection,
            args=(request, client_address),
            name="FakeOpenAIServer-connection",
            daemon=True,
        )
        with self._connections_lock:
            self._connections[request] = thread
        thread.start()

    def _serve_connection(self, request: socket.socket, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self._connections_lock:
                self._connections.pop(request, None)

    def close_connections(self, timeout: float) -> None:
        """Shut down every open connection and join its thread.

        Args:
            timeout: Seconds to wait for each connection thread.
        """
        with self._connections_lock:
            connections = list(self._connections.items())
        for connection, _ in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for _, thread in connections:
            thread.join(timeout)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if self.state.stopping.is_set() or isinstance(error, ConnectionError):
            _log.debug("connection from %s ended: %r", client_address, error)
            return
        super().handle_error(request, client_address)


def select_model_requests(requests: Iterable[RecordedRequest]) -> list[RecordedRequest]:
    """The requests that were model calls (POSTs to the Responses or Chat endpoints)."""
    return [r for r in requests if r.method == "POST" and r.path in _MODEL_ROUTES]
