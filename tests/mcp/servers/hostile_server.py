"""A hostile MCP server over stdio, written by hand (newline-delimited JSON-RPC, no SDK), so it
can say what the SDK would never let a server say.

``python hostile_server.py MODE``:

- ``names``: tools whose names and descriptions carry control characters, terminal escapes,
  bidi overrides, newlines, and a description of a megabyte;
- ``silent-list``: initialises, then never answers ``tools/list``;
- ``odd-blocks``: a call answers with content blocks of types no one knows, next to text;
- ``flood``: writes to stderr as fast as it can, all the time (a tool call still works);
- ``progress``: a call sends a thousand progress notifications with long, escaped messages.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

ESC = "\x1b"
NAMES = [
    f"paint{ESC}[31mred{ESC}[0m",
    "two\nlines",
    "safe\u202egnp.exe",
    "bell\x07\x00nul",
]


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
    return [{"name": "ask", "description": "Answer.", "inputSchema": schema}]


def answer(mode: str, message: dict[str, Any]) -> dict[str, Any] | None:
    method = message.get("method")
    if method == "initialize":
        return {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
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
        result = answer(mode, message)
        if result is None:
            continue
        send({"id": message["id"], "result": result})


if __name__ == "__main__":
    main()
