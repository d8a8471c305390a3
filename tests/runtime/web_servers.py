"""A local HTTP server for the web tools' tests: routes answer with what a test sets (a page,
a redirect, a raw response, an endless body, an answer held back until an event is set), and
every request it received is kept. It listens on 127.0.0.1 only: nothing leaves the machine.
Given an ``ssl.SSLContext`` it speaks HTTPS."""

from __future__ import annotations

import http.server
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

__all__ = ["Reply", "Seen", "WebServer", "web_server"]


@dataclass
class Reply:
    """What a route answers."""

    body: bytes = b""
    content_type: str | None = "text/html; charset=utf-8"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    """Written as the whole response instead (status line and headers included)."""
    endless: bool = False
    """Send ``body`` over and over, with no length, until the client goes away."""
    wait: threading.Event | None = None
    """Answer only once this is set."""


@dataclass(frozen=True)
class Seen:
    """A request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    web: WebServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that went away mid-answer (a cut body, a timeout) is expected here


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        web = self.server.web
        headers = {k.lower(): v for k, v in self.headers.items()}
        web.seen.append(Seen(self.command, self.path, headers, body))
        reply = web.routes.get(self.path.split("?", 1)[0])
        if reply is None:
            reply = Reply(b"not here", "text/plain", 404)
        if reply.wait is not None:
            reply.wait.wait(30)
        if reply.raw is not None:
            self.wfile.write(reply.raw)
            self.close_connection = True
            return
        self.send_response(reply.status)
        if reply.content_type is not None:
            self.send_header("Content-Type", reply.content_type)
        for key, value in reply.headers.items():
            self.send_header(key, value)
        if not reply.endless:
            self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.wfile.write(reply.body)
        while reply.endless:
            self.wfile.write(reply.body)  # until the client closes: BrokenPipeError ends it

    def log_message(self, *args: Any) -> None:
        pass


class WebServer:
    """The server: set ``routes[path]``, read ``seen`` afterwards."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.routes: dict[str, Reply] = {}
        self.seen: list[Seen] = []
        self._server = _Server(("127.0.0.1", 0), _Handler)
        if tls is not None:  # HTTPS: the handshake happens on the handler's first read
            self._server.socket = tls.wrap_socket(
                self._server.socket, server_side=True, do_handshake_on_connect=False
            )
        self.scheme = "https" if tls is not None else "http"
        self._server.web = self
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        self._thread.start()

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        """The address of ``path`` on this server, through ``host``."""
        return f"{self.scheme}://{host}:{self.port}{path}"

    @property
    def paths(self) -> list[str]:
        """The paths requested, in order."""
        return [seen.path for seen in self.seen]

    def close(self) -> None:
        for reply in self.routes.values():
            if reply.wait is not None:
                reply.wait.set()
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def web_server() -> Iterator[WebServer]:
    """A local web server for one test."""
    server = WebServer()
    try:
        yield server
    finally:
        server.close()
