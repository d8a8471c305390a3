"""``%agent mcp``: MCP servers for the notebook agent.

``%agent mcp add NAME [--approve RULE] [--env K=V] [--cwd DIR] -- COMMAND ARGS...`` starts a
stdio server; ``%agent mcp add NAME --url URL [--header K=V] [--sse]`` connects to an HTTP one.
(``python`` there is the kernel's own Python.) ``list``, ``log NAME``, ``restart NAME`` and
``remove NAME`` manage them; ``serve [--port P] [--notebook]`` offers the notebook's own tools
(with ``--notebook``, its cells too) to other agents. Servers live on the background loop, so they
survive cells and are closed when the extension is unloaded or the kernel exits.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ...runtime.blocking import run_blocking
from ...runtime.errors import UserError
from ...runtime.mcp.untrusted import printable

if TYPE_CHECKING:
    from ...runtime.mcp.server import MCPServer
    from ..host import NotebookHost

__all__ = ["USAGE", "mcp_magic"]

USAGE = (
    "%agent mcp [list | add NAME [--approve always|never|destructive] [--env K=V] [--cwd DIR] "
    "-- COMMAND ARGS... | add NAME --url URL [--header K=V] [--sse] | log NAME | "
    "restart NAME | remove NAME | serve [--port P] [--notebook]]"
)
_RULES = ("always", "never", "destructive")
DEFAULT_APPROVAL = "destructive"
"""In a notebook, tools a server does not mark read-only ask first unless told otherwise."""

SESSION_TIMEOUT = 30.0
"""Seconds a server added here may take to start and to list its tools (the SDK's 5 s is
short for a server that imports much, or that ``npx`` fetches first, on a busy machine; tool
calls have their own limit)."""


def mcp_magic(host: NotebookHost, words: list[str]) -> None:
    """Handle ``%agent mcp ...``."""
    command, rest = (words[0], words[1:]) if words else ("list", [])
    if command == "list" and not rest:
        _list(host)
    elif command == "add":
        _add(host, rest)
    elif command in ("log", "restart", "remove") and len(rest) == 1:
        server = host.mcp_servers.get(rest[0])
        if server is None:
            known = ", ".join(host.mcp_servers) or "none"
            raise UsageError(
                f"%agent mcp {command}: no server named {rest[0]!r} (servers: {known})."
            )
        if command == "log":
            log = getattr(server, "stderr_log", None)
            print(
                printable(log())
                if log is not None
                else f"{rest[0]!r} is an HTTP server: it has no log here."
            )
        elif command == "restart":
            run_blocking(server.cleanup())
            _connect(server)
        else:
            run_blocking(server.cleanup())
            del host.mcp_servers[rest[0]]
            print(f"jupyter_agents: removed MCP server {rest[0]!r}")
    elif command == "serve":
        from ..toolbox_server import serve_magic

        serve_magic(host, rest)
    else:
        raise UsageError(USAGE)


def _add(host: NotebookHost, words: list[str]) -> None:
    from ...mcp import MCPServerSse, MCPServerStdio, MCPServerStreamableHttp

    command: list[str] = []
    if "--" in words:
        at = words.index("--")
        words, command = words[:at], words[at + 1 :]
    if not words or words[0].startswith("-"):
        raise UsageError(f"%agent mcp add: give the server a NAME first. Usage: {USAGE}")
    name, options = words[0], _options(words[1:])
    _check_allowed(host, command, options.get("url", [None])[-1])
    if name in host.mcp_servers:
        raise UsageError(
            f"%agent mcp add: a server named {name!r} exists; %agent mcp remove {name} first."
        )
    rule = options.pop("approve", [DEFAULT_APPROVAL])[-1]
    if rule not in _RULES:
        raise UsageError(f"%agent mcp add: --approve takes {', '.join(_RULES)}; got {rule!r}.")
    common: dict[str, Any] = {
        "name": name,
        "cache_tools_list": True,
        "require_approval": rule,
        "client_session_timeout_seconds": SESSION_TIMEOUT,
    }
    url = options.pop("url", [None])[-1]
    try:
        if url is not None:
            if command:
                raise UsageError("%agent mcp add: give either --url URL or -- COMMAND, not both.")
            headers = _pairs(options.pop("header", []), "--header")
            sse = "sse" in options
            options.pop("sse", None)
            params: Any = {"url": url, "headers": headers}
            server: MCPServer = (
                MCPServerSse(params, **common) if sse else MCPServerStreamableHttp(params, **common)
            )
        elif command:
            if "header" in options or "sse" in options:
                raise UsageError("%agent mcp add: --header and --sse go with --url URL.")
            program = sys.executable if command[0] in ("python", "python3") else command[0]
            stdio: dict[str, Any] = {"command": program, "args": command[1:]}
            if "env" in options:
                stdio["env"] = _pairs(options.pop("env"), "--env")
            if "cwd" in options:
                stdio["cwd"] = options.pop("cwd")[-1]
            server = MCPServerStdio(stdio, **common)  # type: ignore[arg-type]
        else:
            raise UsageError(
                f"%agent mcp add: give -- COMMAND ARGS... or --url URL. Usage: {USAGE}"
            )
    except UserError as e:
        raise UsageError(f"%agent mcp add: {e}") from None
    if options:
        raise UsageError(f"%agent mcp add: unknown option --{next(iter(options))}. Usage: {USAGE}")
    host.mcp_servers[name] = server  # kept even if it fails now: log, restart, remove work
    _connect(server)


def _check_allowed(host: NotebookHost, command: list[str], url: str | None) -> None:
    """Refuse a server the site's ``allowed_mcp_commands`` do not list (a program by its name
    or path, a URL as written)."""
    from ...runtime.project.settings_keys import allowed_by

    allowed = host.settings.get("allowed_mcp_commands") if host.settings is not None else None
    said = url if url is not None else command[0] if command else None
    if said is None or allowed is None:
        return
    if not (allowed_by(allowed, said) or allowed_by(allowed, Path(said).name)):
        raise UsageError(
            f"%agent mcp add: {said!r} is not one of the MCP servers your settings allow "
            f"({', '.join(allowed)}; allowed_mcp_commands in {_where(host)})."
        )


def _where(host: NotebookHost) -> str:
    source = host.settings.source.get("allowed_mcp_commands") if host.settings else None
    return {"site": "the site's settings", "user": "your settings"}.get(source or "", "settings")


def _connect(server: MCPServer) -> None:
    from ...runtime.mcp.server import MCPServerError

    try:
        run_blocking(server.connect())
        tools = run_blocking(server.list_tools())
    except MCPServerError as e:
        print(f"jupyter_agents: {printable(str(e))}")
        if e.stderr:
            print("Its stderr ends with:\n" + printable(e.stderr))
        name = server.name
        print(f"(%agent mcp log {name} shows it all; %agent mcp restart {name} tries again)")
        return
    names = ", ".join(printable(t.name, keep_newlines=False) for t in tools) or "none"
    print(f"jupyter_agents: MCP server {server.name!r} is connected; its tools: {names}")


def _list(host: NotebookHost) -> None:
    if not host.mcp_servers:
        print("No MCP servers (%agent mcp add NAME -- COMMAND ARGS...).")
        return
    for name, server in host.mcp_servers.items():
        where = getattr(server, "params", {})
        target = where.get("url") or " ".join([where.get("command", ""), *where.get("args", [])])
        state = "connected" if server.connected else "not connected"
        print(f"{name}: {state}; approval {server.require_approval}; {target}")


def _options(words: list[str]) -> dict[str, list[str]]:
    """``--key value`` (and a bare ``--sse``) into lists of values by key."""
    found: dict[str, list[str]] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("--"):
            raise UsageError(f"%agent mcp add: unexpected {word!r}. Usage: {USAGE}")
        key = word[2:]
        if key == "sse":
            found["sse"] = []
            i += 1
            continue
        if i + 1 >= len(words):
            raise UsageError(f"%agent mcp add: {word} needs a value.")
        found.setdefault(key, []).append(words[i + 1])
        i += 2
    return found


def _pairs(values: list[str], flag: str) -> dict[str, str]:
    pairs = {}
    for value in values:
        key, sep, text = value.partition("=")
        if not sep or not key:
            raise UsageError(f"%agent mcp add: {flag} takes KEY=VALUE, got {value!r}.")
        pairs[key] = text
    return pairs
