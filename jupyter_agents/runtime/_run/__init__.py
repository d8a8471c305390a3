"""The run loop's private machinery: one run turn after turn, its tool calls and its state.

``loop`` drives the turns; ``model_call`` makes one model call; ``step`` turns a response into
items and decides what it means; ``calls`` answers its calls (then a handoff, a pause or the
final output), and ``turn`` says what those steps use of the run. ``tool_batch`` runs a
response's tool calls together, each through the steps of ``tool_call`` (check arguments),
``tool_approvals`` (decide), ``tool_invoke`` (invoke) and ``tool_call`` again (escalate,
report); ``mcp_approvals`` answers hosted MCP approval requests; ``state_schema`` defines saved
``RunState`` JSON, which ``state_json`` writes and reads. Nothing here is public.
"""
