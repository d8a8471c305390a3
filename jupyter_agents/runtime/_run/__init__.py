"""The run loop's private machinery: one run turn after turn, its tool calls and its state.

``loop`` drives the turns; ``model_call`` makes one model call; ``step`` decides what a
response means (items, tool calls, a handoff, the final output); ``tool_batch`` runs a
response's tool calls with approvals; ``mcp_approvals`` answers hosted MCP approval requests;
``state_schema`` checks saved ``RunState`` JSON. Nothing here is public.
"""
