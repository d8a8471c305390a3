"""MCP servers reached over HTTP: Streamable HTTP (the current transport) and SSE (the older
one). Headers (a bearer token, say) go with every request."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, TypedDict
from urllib.parse import urlparse

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from ..errors import UserError
from .server import MCPServer

__all__ = [
    "MCPServerSse",
    "MCPServerSseParams",
    "MCPServerStreamableHttp",
    "MCPServerStreamableHttpParams",
]


class MCPServerStreamableHttpParams(TypedDict, total=False):
    """Where a Streamable HTTP server is (the SDK's names)."""

    url: str
    """The endpoint, e.g. ``http://127.0.0.1:8000/mcp``."""
    headers: dict[str, str]
    """Sent with every request (``Authorization``, ...)."""
    timeout: float
    """Seconds for connecting and sending (default 30)."""
    sse_read_timeout: float
    """Seconds to wait for the next event of a streamed answer (default 300)."""
    terminate_on_close: bool
    """End the server's session when closing (default True)."""


class MCPServerSseParams(TypedDict, total=False):
    """Where an SSE server is (the SDK's names)."""

    url: str
    """The SSE endpoint, e.g. ``http://127.0.0.1:8000/sse``."""
    headers: dict[str, str]
    """Sent with every request."""
    timeout: float
    """Seconds for ordinary requests (default 5)."""
    sse_read_timeout: float
    """Seconds to wait for the next event (default 300)."""


class MCPServerStreamableHttp(MCPServer):
    """A remote (or local) MCP server over Streamable HTTP; the other options are
    ``MCPServer``'s."""

    def __init__(
        self, params: MCPServerStreamableHttpParams, *, name: str | None = None, **options: Any
    ) -> None:
        self.params = params
        derived = _default_name(params, "MCPServerStreamableHttp")
        super().__init__(name or derived, **options)

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[Any]:
        params = self.params
        timeout = float(params.get("timeout", 30.0))
        client = create_mcp_http_client(
            headers=dict(params.get("headers") or {}),
            timeout=httpx2.Timeout(timeout, read=float(params.get("sse_read_timeout", 300.0))),
        )
        async with (
            client,
            streamable_http_client(
                params["url"],
                http_client=client,
                terminate_on_close=bool(params.get("terminate_on_close", True)),
            ) as streams,
        ):
            yield streams


class MCPServerSse(MCPServer):
    """An MCP server over the older HTTP + Server-Sent Events transport; the other options
    are ``MCPServer``'s."""

    def __init__(
        self, params: MCPServerSseParams, *, name: str | None = None, **options: Any
    ) -> None:
        self.params = params
        derived = _default_name(params, "MCPServerSse")
        super().__init__(name or derived, **options)

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[Any]:
        params = self.params
        async with sse_client(
            params["url"],
            headers=dict(params.get("headers") or {}),
            timeout=float(params.get("timeout", 5.0)),
            sse_read_timeout=float(params.get("sse_read_timeout", 300.0)),
        ) as streams:
            yield streams


def _default_name(params: Any, cls: str) -> str:
    """A name from the URL (``host_port``), checking that there is a usable URL."""
    url = params.get("url") if isinstance(params, dict) else None
    parsed = urlparse(url) if isinstance(url, str) else None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise UserError(f"{cls} needs params={{'url': 'http://host:port/path'}}, got {params!r}.")
    return parsed.hostname if parsed.port is None else f"{parsed.hostname}_{parsed.port}"
