"""What an MCP tool answered, read by the kind of its content: a block may be text, an image,
audio, a link or an embedded resource, so a test names the kind it expects."""

from __future__ import annotations

from mcp.types import CallToolResult, TextContent

__all__ = ["text_of"]


def text_of(result: CallToolResult, index: int = 0) -> str:
    """The text of ``result``'s content block ``index``, asserted to be a text block."""
    block = result.content[index]
    assert isinstance(block, TextContent), block
    return block.text
