"""An MCP server (the ``mcp`` SDK, over stdio, or Streamable HTTP with ``--port N``) whose
tools take long or answer big, for the timeout and result-size tests.

``nap`` sleeps in the server; ``block`` waits until the call is cancelled and says so on stderr;
the ``big_*`` and ``many_*`` tools answer with huge text, many blocks, a huge embedded resource
or huge images.
"""

from __future__ import annotations

import asyncio
import base64
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mcp import types
from mcp.server.mcpserver import MCPServer

sys.path.insert(0, str(Path(__file__).parent))
if TYPE_CHECKING:  # what mypy reads: this file as part of the tests package
    from tests.mcp.servers.demo_server import red_png
else:  # run as a script, next to it
    from demo_server import red_png

server = MCPServer("slow_big")


@server.tool()
async def nap(seconds: float) -> str:
    """Sleep in the server, then answer."""
    await asyncio.sleep(seconds)
    return f"rested {seconds:g} s"


@server.tool()
async def block() -> str:
    """Wait until the call is cancelled."""
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        sys.stderr.write("block: cancelled\n")
        sys.stderr.flush()
        raise
    return "never"


@server.tool()
def big_text(chars: int) -> str:
    """HEAD, then ``chars`` x's, then TAIL."""
    return "HEAD" + "x" * chars + "TAIL"


@server.tool()
def many_blocks(count: int) -> types.CallToolResult:
    """``count`` text blocks."""
    blocks: list[types.ContentBlock] = [
        types.TextContent(type="text", text=f"block {i}") for i in range(count)
    ]
    return types.CallToolResult(content=blocks)


@server.tool()
def big_resource(chars: int) -> types.CallToolResult:
    """An embedded text resource of ``chars`` characters."""
    resource = types.TextResourceContents(uri="note://big", text="R" * chars)
    return types.CallToolResult(
        content=[types.EmbeddedResource(type="resource", resource=resource)]
    )


@server.tool()
def big_image(size: int) -> types.CallToolResult:
    """A PNG padded to about ``size`` bytes (a real PNG header and picture, then padding)."""
    data = red_png() + b"\0" * size
    encoded = base64.b64encode(data).decode()
    return types.CallToolResult(
        content=[types.ImageContent(type="image", data=encoded, mime_type="image/png")]
    )


@server.tool()
def many_images(count: int) -> types.CallToolResult:
    """``count`` small PNGs."""
    encoded = base64.b64encode(red_png()).decode()
    image = types.ImageContent(type="image", data=encoded, mime_type="image/png")
    return types.CallToolResult(content=[image] * count)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--port":  # Streamable HTTP on 127.0.0.1:PORT
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
