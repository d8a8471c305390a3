"""Several MCP servers connected at once, with a report of which failed."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from .server import MCPServer

__all__ = ["MCPServerManager"]


class MCPServerManager:
    """Connects ``servers`` together (``async with MCPServerManager([...]) as manager``) and
    keeps the ones that started in ``active_servers`` (give those to
    ``Agent(mcp_servers=...)``); the others are in ``failed_servers`` with their errors in
    ``errors``. ``strict=True`` raises the first error instead.
    """

    def __init__(
        self,
        servers: Iterable[MCPServer],
        *,
        connect_timeout_seconds: float | None = 10.0,
        strict: bool = False,
    ) -> None:
        self.servers = list(servers)
        self.connect_timeout_seconds = connect_timeout_seconds
        self.strict = strict
        self.errors: dict[str, BaseException] = {}
        """Why each failed server failed, by server name."""

    @property
    def active_servers(self) -> list[MCPServer]:
        """The servers that are connected."""
        return [s for s in self.servers if s.name not in self.errors and s.connected]

    @property
    def failed_servers(self) -> list[MCPServer]:
        """The servers that did not connect."""
        return [s for s in self.servers if s.name in self.errors]

    async def connect_all(self) -> list[MCPServer]:
        """Connect every server at once; returns the active ones."""
        await self._connect(self.servers)
        return self.active_servers

    async def reconnect(self, *, failed_only: bool = True) -> list[MCPServer]:
        """Try the failed servers again (or, with ``failed_only=False``, restart all)."""
        chosen = self.failed_servers if failed_only else self.servers
        if not failed_only:
            await asyncio.gather(*(s.cleanup() for s in chosen), return_exceptions=True)
        await self._connect(chosen)
        return self.active_servers

    async def cleanup_all(self) -> None:
        """Close every server (errors in closing are ignored: each is closed anyway)."""
        await asyncio.gather(*(s.cleanup() for s in self.servers), return_exceptions=True)

    async def __aenter__(self) -> MCPServerManager:
        await self.connect_all()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.cleanup_all()

    def __repr__(self) -> str:
        return (
            f"<MCPServerManager active={[s.name for s in self.active_servers]} "
            f"failed={[s.name for s in self.failed_servers]}>"
        )

    async def _connect(self, servers: list[MCPServer]) -> None:
        async def one(server: MCPServer) -> None:
            try:
                await asyncio.wait_for(server.connect(), self.connect_timeout_seconds)
            except asyncio.TimeoutError:
                await server.cleanup()
                self.errors[server.name] = TimeoutError(
                    f"MCP server {server.name!r} did not connect within "
                    f"{self.connect_timeout_seconds:g} s."
                )
            except Exception as e:
                self.errors[server.name] = e
            else:
                self.errors.pop(server.name, None)

        await asyncio.gather(*(one(s) for s in servers))
        if self.strict and self.errors:
            raise next(iter(self.errors.values()))
