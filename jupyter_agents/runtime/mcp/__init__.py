"""MCP: servers, their tools, names and schemas."""
