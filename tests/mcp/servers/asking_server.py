"""An MCP server that asks its client questions (``elicitation/create``), written with the
``mcp`` SDK: ``python asking_server.py [--transport stdio|streamable-http] [--port N]``."""

from __future__ import annotations

import argparse
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field


class Booking(BaseModel):
    date: str = Field(description="The day, as YYYY-MM-DD")
    party: int = Field(description="How many people")
    room: Literal["main", "garden"] = "main"
    outside: bool = False


class Nothing(BaseModel):
    note: str


def build() -> MCPServer:
    server = MCPServer("asking", instructions="Books tables, asking the user for details.")

    @server.tool()
    async def book_table(restaurant: str, ctx: Context) -> str:
        """Book a table at RESTAURANT; asks the user when and for how many."""
        answer = await ctx.elicit(f"Booking {restaurant}: which day, and for how many?", Booking)
        if answer.action != "accept":
            return f"not booked ({answer.action})"
        data = answer.data
        where = f"{data.room}, outside={data.outside}"
        return f"booked {restaurant} on {data.date} for {data.party} ({where})"

    @server.tool()
    async def shout(ctx: Context) -> str:
        """Asks with a message full of control characters."""
        answer = await ctx.elicit("\x1b[2Jcleared\u202eesrever\x07", Nothing)
        return f"{answer.action}: {answer.data.note if answer.action == 'accept' else ''}"

    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", default="stdio", choices=["stdio", "streamable-http"])
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    options: dict[str, Any] = {}
    if args.transport != "stdio":
        options = {"host": "127.0.0.1", "port": args.port}
    build().run(args.transport, **options)


if __name__ == "__main__":
    main()
