"""A hostile MCP server over stdio, written by hand (newline-delimited JSON-RPC, no SDK), so it
can say what the SDK would never let a server say.

``python hostile_server.py MODE``:

- ``names``: tools whose names and descriptions carry control characters, terminal escapes,
  bidi overrides, newlines, and a description of a megabyte;
- ``silent-list``: initialises, then never answers ``tools/list``;
- ``odd-blocks``: a call answers with content blocks of types no one knows, next to text;
- ``flood``: writes to stderr as fast as it can, all the time (a tool call still works);
- ``progress``: a call sends a thousand progress notifications with long, escaped messages;
- ``task-*``: it runs calls as tasks, and lies about them (``TASK_MODES``); it writes the
  method of each request it answers to stderr, before answering.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

ESC = "\x1b"
TASKS: dict[str, Any] = {"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}
NAMES = [
    f"paint{ESC}[31mred{ESC}[0m",
    "two\nlines",
    "safe\u202egnp.exe",
    "bell\x07\x00nul",
]


TASK_MODES = {
    "task-poll-huge": "a poll interval of thirty years",
    "task-poll-negative": "a negative poll interval",
    "task-markup": "a status message of markup, escapes, bidi marks and 10,000 characters",
    "task-unknown-status": "a status MCP does not have",
    "task-id-number": "a task id that is a number",
    "task-other-result": "a result that names another task",
    "task-other-get-id": "a state of another task",
    "task-lost": "a task it no longer knows",
}
MARKUP = f"<script>alert(1)</script><b>bold</b>{ESC}[2J{ESC}[H\u202eesrever" + "m" * 10_000
GETS = [0]


def task(mode: str, status: str) -> dict[str, Any]:
    """The task as this server describes it, in ``mode``."""
    polls = {"task-poll-huge": 10**12, "task-poll-negative": -1000}
    said: dict[str, Any] = {
        "taskId": 12345 if mode == "task-id-number" else "t1",
        "status": status,
        "createdAt": "2026-01-01T00:00:00Z",
        "lastUpdatedAt": "2026-01-01T00:00:00Z",
        "ttl": 60_000,
        "pollInterval": polls.get(mode, 100),
    }
    if mode == "task-markup":
        said["statusMessage"] = MARKUP
    return said


def task_answer(mode: str, message: dict[str, Any]) -> dict[str, Any]:
    """``{"result": ...}`` or ``{"error": ...}`` for a task request (and task calls)."""
    method = message.get("method")
    if method == "tools/call":
        return {"result": {"task": task(mode, "working")}}
    if method == "tasks/get":
        GETS[0] += 1
        if mode == "task-lost":
            return {"error": {"code": -32602, "message": "Task not found: t1"}}
        done = GETS[0] >= (1 if mode == "task-poll-huge" else 3)
        said = task(mode, "completed" if done else "working")
        if mode == "task-unknown-status":
            said["status"] = "exploded"
        if mode == "task-other-get-id":
            said["taskId"] = "t2"
        return {"result": said}
    if method == "tasks/cancel":
        return {"result": task(mode, "cancelled")}
    other = "t2" if mode == "task-other-result" else "t1"
    related = {"io.modelcontextprotocol/related-task": {"taskId": other}}
    return {"result": {"content": [{"type": "text", "text": "answered"}], "_meta": related}}


def tools(mode: str) -> list[dict[str, Any]]:
    schema = {"type": "object", "properties": {}}
    if mode == "names":
        described = [
            f"Clears the screen {ESC}[2J{ESC}[H and rings \x07; \u202eesrever",
            "ok",
            "x" * 1_000_000,
            "tab\tand\nnewline stay",
        ]
        return [
            {"name": n, "description": d, "inputSchema": schema}
            for n, d in zip(NAMES, described, strict=True)
        ]
    ask = {"name": "ask", "description": "Answer.", "inputSchema": schema}
    if mode in TASK_MODES:
        ask["execution"] = {"taskSupport": "optional"}
    return [ask]


def answer(mode: str, message: dict[str, Any]) -> dict[str, Any] | None:
    method = message.get("method")
    if method == "initialize":
        return {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}, **TASKS} if mode in TASK_MODES else {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"},
        }
    if method == "tools/list":
        return None if mode == "silent-list" else {"tools": tools(mode)}
    if method == "tools/call":
        if mode == "odd-blocks":
            content = [
                {"type": "hologram", "data": "AAAA"},
                {"type": "text", "text": "plain words"},
                {"type": "x\x1b[31m", "blob": "?"},
            ]
        else:
            content = [{"type": "text", "text": "answered"}]
        return {"content": content, "isError": False}
    if method == "ping":
        return {}
    return None


def flood() -> None:
    line = "noise " * 1000 + "\n"
    while True:
        sys.stderr.write(line)


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def progress(message: dict[str, Any]) -> None:
    token = ((message.get("params") or {}).get("_meta") or {}).get("progressToken")
    if token is None:
        return
    text = f"{ESC}[2J{ESC}[H" + "p" * 10_000 + "\u202e"
    for step in range(1000):
        params = {"progressToken": token, "progress": step, "total": 1000, "message": text}
        send({"method": "notifications/progress", "params": params})


def main() -> None:
    mode = sys.argv[1]
    if mode == "flood":
        threading.Thread(target=flood, daemon=True).start()
    for raw in sys.stdin:
        message = json.loads(raw)
        if "id" not in message:
            continue  # a notification
        if mode == "progress" and message.get("method") == "tools/call":
            progress(message)
        method = str(message.get("method"))
        if mode in TASK_MODES:
            sys.stderr.write(f"{method}\n")
            sys.stderr.flush()
        if mode in TASK_MODES and (method.startswith("tasks/") or method == "tools/call"):
            send({"id": message["id"], **task_answer(mode, message)})
            continue
        result = answer(mode, message)
        if result is None:
            continue
        send({"id": message["id"], "result": result})


if __name__ == "__main__":
    main()
