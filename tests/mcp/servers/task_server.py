"""An MCP server that runs tool calls as tasks (the 2025-11-25 revision), written with the ``mcp``
SDK's low-level server and nothing of jupyter_agents, so it checks the client from outside.

``python task_server.py [--transport stdio|streamable-http] [--port N] [--store FILE]``.

Tools:

- ``slow_report(seconds, steps)`` (``taskSupport: optional``): works ``seconds`` in ``steps``,
  sending a progress notification and a status message at each step; cancelled, it says so in
  ``history``.
- ``durable_wait(seconds)`` (``taskSupport: required``): a task kept in the ``--store`` file,
  finished ``seconds`` after its creation: it outlives the server process, so a client that
  lost the connection finds it in the next one.
- ``history()`` (no task): what happened, as JSON: tasks created per tool, cancelled, finished,
  ``tasks/get`` requests answered.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from mcp import types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

TERMINAL = ("completed", "failed", "cancelled")
RELATED = "io.modelcontextprotocol/related-task"
TOOLS = [
    types.Tool(
        name="slow_report",
        description="Work a while, reporting progress.",
        input_schema={
            "type": "object",
            "properties": {"seconds": {"type": "number"}, "steps": {"type": "integer"}},
            "required": ["seconds", "steps"],
        },
        execution=types.ToolExecution(task_support="optional"),
    ),
    types.Tool(
        name="durable_wait",
        description="Wait, in a task that outlives the server.",
        input_schema={
            "type": "object",
            "properties": {"seconds": {"type": "number"}},
            "required": ["seconds"],
        },
        execution=types.ToolExecution(task_support="required"),
    ),
    types.Tool(
        name="history",
        description="What happened.",
        input_schema={"type": "object", "properties": {}},
    ),
]


class Tasks:
    """Tasks in memory (``slow_report``) and in the store file (``durable_wait``)."""

    def __init__(self, store: Path | None) -> None:
        self.store = store
        self.live: dict[str, dict[str, Any]] = {}
        self.history: dict[str, Any] = {"created": {}, "cancelled": [], "finished": [], "gets": 0}
        self.durable: dict[str, dict[str, Any]] = {}
        if store is not None and store.exists():
            self.durable = json.loads(store.read_text())

    def save(self) -> None:
        if self.store is not None:
            self.store.write_text(json.dumps(self.durable))

    def created(self, tool: str) -> None:
        counts = self.history["created"]
        counts[tool] = counts.get(tool, 0) + 1

    def state(self, task_id: str) -> dict[str, Any]:
        if task_id in self.live:
            return self.live[task_id]
        if task_id in self.durable:
            task = self.durable[task_id]
            if task["status"] == "working" and time.time() >= task["due"]:
                task.update(status="completed", statusMessage="waited")
                self.save()
            return task
        raise MCPError(code=types.INVALID_PARAMS, message=f"Task not found: {task_id}")


def wire(task: dict[str, Any]) -> dict[str, Any]:
    said: dict[str, Any] = {
        key: task[key]
        for key in ("taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt")
        if key in task
    }
    return {**said, "ttl": 600_000, "pollInterval": 300}


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


async def slow_report(
    tasks: Tasks, task: dict[str, Any], session: Any, token: Any, args: dict[str, Any]
) -> None:
    steps = int(args["steps"])
    try:
        for step in range(1, steps + 1):
            await anyio.sleep(float(args["seconds"]) / steps)
            task.update(statusMessage=f"step {step} of {steps}", lastUpdatedAt=now())
            if token is not None:
                await session.send_progress_notification(token, step, steps, f"step {step}")
        text = f"report after {steps} steps"
        task["result"] = {"content": [{"type": "text", "text": text}], "isError": False}
        task.update(status="completed", lastUpdatedAt=now())
        tasks.history["finished"].append(task["taskId"])
    except asyncio.CancelledError:
        tasks.history["cancelled"].append(task["taskId"])
        raise


def build(tasks: Tasks) -> Server[Any]:
    running: dict[str, asyncio.Task[None]] = {}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name != "history":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="call me as a task")], is_error=True
            )
        text = json.dumps(tasks.history)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def as_task(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.params
        if ctx.method != "tools/call" or not isinstance(params, Mapping) or "task" not in params:
            return await call_next(ctx)
        name, args = params["name"], dict(params.get("arguments") or {})
        token = (params.get("_meta") or {}).get("progressToken")
        task_id = uuid.uuid4().hex
        task: dict[str, Any] = {"taskId": task_id, "status": "working", "createdAt": now()}
        task["lastUpdatedAt"] = now()
        tasks.created(name)
        if name == "durable_wait":
            task.update(due=time.time() + float(args["seconds"]), statusMessage="waiting")
            tasks.durable[task_id] = task
            tasks.save()
        else:
            task["statusMessage"] = "starting"
            tasks.live[task_id] = task
            work = slow_report(tasks, task, ctx.session, token, args)
            running[task_id] = asyncio.create_task(work)
        return {"task": wire(task)}

    async def get(ctx: Any, params: types.GetTaskRequestParams) -> dict[str, Any]:
        tasks.history["gets"] += 1
        return wire(tasks.state(params.task_id))

    async def result(ctx: Any, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        task = tasks.state(params.task_id)
        while task["status"] not in TERMINAL:
            await anyio.sleep(0.05)  # the server's own wait for its task; no client waits less
            task = tasks.state(params.task_id)
        if task["status"] == "cancelled":
            raise MCPError(code=types.INVALID_PARAMS, message="Task was cancelled")
        answer = task.get("result") or {"content": [{"type": "text", "text": "waited"}]}
        return {**answer, "_meta": {RELATED: {"taskId": params.task_id}}}

    async def cancel(ctx: Any, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        task = tasks.state(params.task_id)
        if task["status"] in TERMINAL:
            raise MCPError(code=types.INVALID_PARAMS, message="Task already ended")
        task.update(status="cancelled", statusMessage="cancelled", lastUpdatedAt=now())
        if params.task_id in running:
            running[params.task_id].cancel()
        else:
            tasks.history["cancelled"].append(params.task_id)
            tasks.save()
        return wire(task)

    class TaskServer(Server[Any]):
        def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
            capabilities = super().get_capabilities(*args, **kwargs)
            capabilities.tasks = types.ServerTasksCapability(
                list=types.TasksListCapability(),
                cancel=types.TasksCancelCapability(),
                requests=types.ServerTasksRequestsCapability(
                    tools=types.TasksToolsCapability(call=types.TasksCallCapability())
                ),
            )
            return capabilities

    server = TaskServer("tasks", on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(as_task)
    server.add_request_handler("tasks/get", types.GetTaskRequestParams, get)
    server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, result)
    server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, cancel)
    return server


async def serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", default="stdio", choices=["stdio", "streamable-http"])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--store", type=Path, default=None)
    args = parser.parse_args(argv)
    sys.stderr.write("task server starting\n")
    sys.stderr.flush()
    server = build(Tasks(args.store))
    if args.transport == "stdio":
        anyio.run(serve_stdio, server)
        return
    app = server.streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
