"""An MCP server for the tests, written with the ``mcp`` SDK.

``python demo_server.py [--transport stdio|streamable-http|sse] [--port N] [--hang-on-start]
[--long-names]``. Its tools cover every kind of result: text, structured, image, error,
embedded resource; a slow tool that reports progress, one that crashes the server, tools
annotated read-only and destructive, and one that adds a tool (the list-changed notification).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import struct
import sys
import time
import zlib
from typing import Any

from mcp import types
from mcp.server.mcpserver import Context, MCPServer


def red_png(size: int = 4) -> bytes:
    """A real ``size`` x ``size`` red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * size for _ in range(size))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def build(long_names: bool) -> MCPServer:
    server = MCPServer("demo", instructions="A server for the jupyter_agents tests.")

    @server.tool()
    def echo(text: str) -> str:
        """Say the text back."""
        return text

    @server.tool()
    def add(a: int, b: int) -> dict[str, int]:
        """Add two integers."""
        return {"sum": a + b}

    @server.tool()
    def image() -> types.CallToolResult:
        """A small red picture."""
        data = base64.b64encode(red_png()).decode()
        return types.CallToolResult(
            content=[types.ImageContent(type="image", data=data, mime_type="image/png")]
        )

    @server.tool()
    def fail(message: str) -> types.CallToolResult:
        """Answer with an error."""
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=message)], is_error=True
        )

    @server.tool()
    async def slow(ctx: Context, seconds: float = 1.0, steps: int = 4) -> str:
        """Take a while, reporting progress."""
        for step in range(1, steps + 1):
            await asyncio.sleep(seconds / steps)
            await ctx.report_progress(step, steps, f"step {step} of {steps}")
        return "done"

    @server.tool()
    def crash() -> str:
        """Kill the server."""
        sys.stderr.write("crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)

    @server.tool(annotations=types.ToolAnnotations(destructive_hint=True, title="Delete a note"))
    def delete_note(name: str) -> str:
        """Delete a note."""
        return f"deleted {name}"

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True, title="Read a note"))
    def read_note(name: str) -> str:
        """Read a note."""
        return f"the note {name} says hi"

    @server.tool()
    def note_resource() -> types.CallToolResult:
        """A note as an embedded resource."""
        resource = types.TextResourceContents(uri="note://hello", text="hello from a resource")
        return types.CallToolResult(
            content=[types.EmbeddedResource(type="resource", resource=resource)]
        )

    @server.tool()
    async def add_tool(name: str, ctx: Context) -> str:
        """Add a tool called NAME."""

        def made() -> str:
            return f"I am {name}"

        server.add_tool(made, name=name, description=f"A tool added at run time: {name}")
        await ctx.session.send_tool_list_changed()
        return f"added {name}"

    @server.tool()
    def maybe(text: str, times: int | None = None) -> str:
        """An optional argument (strict mode sends it as null)."""
        return f"{text} x{times}" if times is not None else f"{text} (no times given)"

    @server.resource("note://hello")
    def hello_note() -> str:
        return "hello from a resource"

    @server.prompt()
    def greet(name: str) -> str:
        """A greeting prompt."""
        return f"Please greet {name} warmly."

    if long_names:
        server.add_tool(lambda: "long", name="t" * 70, description="A tool with a long name.")
        server.add_tool(lambda: "weird", name="weird.name with spaces", description="Odd name.")
    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", default="stdio", choices=["stdio", "streamable-http", "sse"])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--hang-on-start", action="store_true")
    parser.add_argument("--long-names", action="store_true")
    args = parser.parse_args(argv)
    sys.stderr.write("demo server starting\n")
    sys.stderr.flush()
    if args.hang_on_start:
        sys.stderr.write("hanging\n")
        sys.stderr.flush()
        while True:
            time.sleep(3600)
    server = build(args.long_names)
    options: dict[str, Any] = {}
    if args.transport != "stdio":
        options = {"host": "127.0.0.1", "port": args.port}
    server.run(args.transport, **options)


if __name__ == "__main__":
    main()
