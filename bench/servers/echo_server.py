"""The MCP server M1 measures against: one ``echo`` tool, over stdio or Streamable HTTP."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("echo")


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
