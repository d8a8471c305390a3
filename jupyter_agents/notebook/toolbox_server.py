"""``serve_toolbox()`` and ``%agent mcp serve``: the notebook's tools for other agents.

The tools defined in cells (the toolbox), and with ``--notebook`` the notebook agent's own
(reading, changing and running this notebook's cells), are served over Streamable HTTP MCP on
127.0.0.1 with a random bearer token. The serving cell shows one live view: every call from
outside appears in it as a card, and a call that needs approval waits there for Approve or
Reject. Calls run on the kernel's own loop, as a ``%%agent`` run's tools do.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from IPython.core.error import UsageError

from ..runtime.approvals import OnLoop
from ..runtime.errors import UserError
from ..runtime.mcp.one_call import CallOutcome, run_one_call
from ..runtime.mcp.toolbox_server import ToolboxServer
from ..runtime.run_config import RunConfig
from ..runtime.tools.live_output import tool_output_sink, tool_progress_sink
from .cells.cell_approvals import approval_grace, refuse_if_unseen
from .host import NotebookHost, current_host

__all__ = ["serve_magic", "serve_toolbox"]


def serve_toolbox(
    tools: list[Any] | None = None,
    *,
    port: int = 0,
    token: str | None = None,
    name: str = "notebook",
    view: Any = None,
    notebook: bool = False,
) -> ToolboxServer:
    """Serve ``tools`` (default: the notebook's toolbox, as it grows) over MCP; returns the
    running server (``.url``, ``.token``, ``.client_config()``, ``.stop()``). Calls show in
    ``view`` (a ``RunView``, for a frontend of your own) or, by default, in a new view in this
    cell's output. ``notebook``: the notebook agent's tools too (``NotebookTools``: the
    outside agent reads, changes and runs this notebook's cells, each change approved here)."""
    host = current_host()
    extra: list[Any] = []
    if notebook:
        from .workspace.notebook_tools import NotebookTools

        extra = NotebookTools(own_cell=lambda: "")  # an outside agent has no cell of its own
    if tools is None:
        if host is None:
            raise UserError(
                "serve_toolbox() serves the notebook's tools: run %load_ext jupyter_agents "
                "first, or give tools=[...]."
            )
        toolbox = host.toolbox
        listed: Any = lambda: [*toolbox.tools, *extra]  # noqa: E731 (as it is at each call)
    else:
        listed = [*tools, *extra]
    if host is not None and host.toolbox_server is not None:
        host.toolbox_server.stop()
    shown_here = view is None
    if view is None:
        view = _view(host)
    try:
        kernel_loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        kernel_loop = None

    def ask(request: Any) -> Any:
        waiting = view.inbox(request)
        rendered = getattr(view, "rendered", None)
        if rendered is not None and not rendered.is_set():
            asyncio.get_running_loop().call_later(
                approval_grace(host), refuse_if_unseen, view, request
            )
        return waiting

    async def run_here(tool: Any, arguments: dict[str, Any]) -> CallOutcome:
        streaming = tool_output_sink.set(view.tool_output_text)
        reporting = tool_progress_sink.set(_also(view.tool_progress, tool_progress_sink.get()))
        try:
            return await run_one_call(
                tool,
                arguments,
                approval_handler=OnLoop(ask),
                on_event=lambda e: _show(view, e),
                run_config=_policy_config(host),  # as it is now: %agent policy may change
            )
        finally:
            tool_progress_sink.reset(reporting)
            tool_output_sink.reset(streaming)

    async def run_call(tool: Any, arguments: dict[str, Any]) -> CallOutcome:
        if kernel_loop is None or kernel_loop.is_closed():
            return await run_here(tool, arguments)
        future = asyncio.run_coroutine_threadsafe(run_here(tool, arguments), kernel_loop)
        return await asyncio.wrap_future(future)

    server = ToolboxServer(listed, name=name, port=port, token=token, run_call=run_call)
    try:
        server.start()
    except UserError as e:
        raise UsageError(f"%agent mcp serve: {e}") from None
    if shown_here:
        view.display()
    view.set_status("serving", server.url)
    view.add_notice(
        f"Serving this notebook's tools over MCP at {server.url}. Clients send the header "
        "Authorization: Bearer <token>; the server's token and client_config() have it. "
        "Calls appear here; those that need approval wait for your click.",
        "info",
    )
    server.on_stop = lambda: view.finish("done", "stopped serving")
    if host is not None:
        host.toolbox_server = server
    return server


def serve_magic(host: NotebookHost, words: list[str]) -> None:
    """``%agent mcp serve [--port P] [--notebook]`` (and ``%agent mcp serve stop``)."""
    if words == ["stop"]:
        if host.toolbox_server is None:
            print("jupyter_agents: the toolbox is not being served.")
            return
        host.toolbox_server.stop()
        host.toolbox_server = None
        print("jupyter_agents: stopped serving the toolbox.")
        return
    port, notebook, rest = 0, "--notebook" in words, [w for w in words if w != "--notebook"]
    if rest[:1] == ["--port"] and len(rest) == 2 and rest[1].isdigit():
        port = int(rest[1])
    elif rest:
        raise UsageError("%agent mcp serve [--port P] [--notebook] | %agent mcp serve stop")
    server = serve_toolbox(port=port, notebook=notebook)
    host.shell.user_ns["toolbox_server"] = server
    config = json.dumps(server.client_config())
    print(
        f"jupyter_agents: serving {len(server.tools())} tool(s) at {server.url}; "
        "the variable toolbox_server holds the server (toolbox_server.client_config() gives "
        f"a client its URL and token: {len(config)} characters of JSON)."
    )


def _view(host: NotebookHost | None) -> Any:
    if host is None or getattr(host.shell, "kernel", None) is None:
        from .view.text_view import TextView

        return TextView(agent="MCP server", model="toolbox")
    from .view.run_view import RunView

    return RunView(agent="MCP server", model="toolbox", standing=host.standing)


def _show(view: Any, event: Any) -> None:
    """The parts of a one-call run the serving view shows: the call's card, not the stand-in
    model's agent."""
    if getattr(event, "type", None) in ("run_item_stream_event", "raw_response_event"):
        view.on_event(event)


def _also(
    show: Callable[[str, float, float | None, str], None],
    task: Callable[[str, float, float | None, str], None] | None,
) -> Callable[[str, float, float | None, str], None]:
    """A progress sink for a served call: its card in the serving cell, and the task it runs
    as (its status message, which the client polls), if any."""

    def report(call_id: str, done: float, total: float | None, message: str) -> None:
        show(call_id, done, total, message)
        if task is not None:
            task(call_id, done, total, message)

    return report


def _policy_config(host: NotebookHost | None) -> RunConfig | None:
    """The notebook's ``%agent policy`` as a run config (what ``%%agent`` runs get)."""
    return RunConfig(**host.policy.run_config_fields()) if host is not None else None
