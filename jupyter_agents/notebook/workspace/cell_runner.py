"""Running a notebook cell for the agent while the agent's own cell is still running
(``run_cells``), as if the person had run it: the code runs in the user's namespace through
IPython (magics, history, ``In``/``Out``, the execution count), its outputs go to that cell in
the document, and the agent gets them back.

The agent's ``%%agent`` cell holds the kernel's shell channel (an async cell awaiting its run),
so an execute request for another cell would wait behind it. Instead the code runs right here,
on the kernel's event loop, inside the run's own task, under a parent message of its own (a
made-up ``execute_request`` id; ipykernel keeps parent messages in context variables, so only
this task's output carries it). The kernel's session routes every output message with that
parent to the run instead of the frontend (a wrapper around ``session.send``, installed once):
the run collects them for the model and relays each one over the document comm, from whatever
thread sent it, so printed text reaches the cell while a long cell is still running.

Execution counts: IPython numbers a cell as it starts, and the kernel replies to the agent's
cell with the count after the last cell that started; so when the agent's cell ends, having
run cells, the count moves on by one and the agent's cell shows the number after theirs
(``[3]`` agent, cells ``[4]`` and ``[5]``: the agent's cell ends as ``[6]``, never as a number
one of them has).

Interrupt: for a synchronous cell the kernel's interrupt raises ``KeyboardInterrupt`` in the
code (as it does for any cell), and is then passed on to the agent's cell, which stops too.
``input()`` in such a cell asks in the agent's cell, where the kernel's stdin request goes.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..cells import _tool_output
from .output_collector import OUTPUT_MESSAGES, OutputCollector

__all__ = ["CellRun", "CellRunner", "Relay", "follow_cells"]

Relay = Callable[[str, dict[str, Any]], None]
"""Called with each output message (type, content) of a run, on any thread."""

TOKEN_PREFIX = "jupyter-agents-run-"


@dataclass
class CellRun:
    """What running one cell did."""

    execution_count: int | None
    outputs: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    """``"NameError: name 'x' is not defined"`` when the cell failed."""
    interrupted: bool = False


class CellRunner:
    """Runs cells in the kernel of ``shell`` (an ipykernel ``ZMQInteractiveShell``)."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.kernel = shell.kernel
        self._routes = _routes_for(self.kernel.session)
        follow_cells(shell)

    async def run(self, source: str, cell_id: str, relay: Relay) -> CellRun:
        """Run ``source`` as cell ``cell_id``; each output is relayed as it comes."""
        token = TOKEN_PREFIX + uuid.uuid4().hex
        collector = OutputCollector()

        def deliver(msg_type: str, content: dict[str, Any]) -> None:
            clean = _json(content)
            collector.add(msg_type, clean)
            with contextlib.suppress(Exception):  # a frontend gone must not fail the run
                relay(msg_type, clean)

        self._routes[token] = deliver
        agent_parent = self.shell.get_parent()
        try:
            # A task of its own: the parent set inside it stays in its copy of the context.
            run = await asyncio.ensure_future(self._execute(source, cell_id, token))
        finally:
            self._routes.pop(token, None)
            self.shell.set_parent(agent_parent)  # setting a parent also sets a global fallback
        run.outputs = collector.outputs
        if _RUNNING.get(id(self.shell), 0) > 0:  # inside a running cell (the agent's)
            _RAN_CELLS.add(id(self.shell))
        return run

    async def _execute(self, source: str, cell_id: str, token: str) -> CellRun:
        shell = self.shell
        _tool_output.sink.set(None)  # what the cell prints is its output, not the tool call's
        header = self.kernel.session.msg_header("execute_request")
        header["msg_id"] = token
        shell.set_parent(
            {
                "header": header,
                "msg_id": token,
                "msg_type": "execute_request",
                "parent_header": {},
                "metadata": {"cellId": cell_id},
                "content": {"code": source},
            }
        )
        preprocessing = None
        try:
            transformed = shell.transform_cell(source)
        except Exception:
            transformed, preprocessing = source, sys.exc_info()
        _INNER.set(True)
        synchronous = not shell.should_run_async(
            source, transformed_cell=transformed, preprocessing_exc_tuple=preprocessing
        )
        result = None
        try:
            with _interrupts_raise(synchronous) as interrupted:
                try:
                    result = await shell.run_cell_async(
                        source,
                        store_history=True,
                        silent=False,
                        transformed_cell=transformed,
                        preprocessing_exc_tuple=preprocessing,
                        cell_id=cell_id,
                    )
                except KeyboardInterrupt:  # landed outside the cell's code
                    shell.showtraceback()
                finally:
                    shell.events.trigger("post_execute")
                    shell.events.trigger("post_run_cell", result)
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
        run = CellRun(execution_count=getattr(result, "execution_count", None))
        error = None if result is None else result.error_before_exec or result.error_in_exec
        if error is not None:
            run.error = f"{type(error).__name__}: {error}"[:500]
        if interrupted:
            run.interrupted = True
            run.error = run.error or "KeyboardInterrupt"
        return run


@contextlib.contextmanager
def _interrupts_raise(active: bool) -> Iterator[list[bool]]:
    """While a synchronous cell runs, the kernel's interrupt raises ``KeyboardInterrupt`` in
    it (the agent's async cell has ipykernel cancel it instead, which cannot stop code that
    never awaits); afterwards the interrupt is passed on to the handler it replaced."""
    hit: list[bool] = []
    if not active or threading.current_thread() is not threading.main_thread():
        yield hit
        return

    def raise_interrupt(signum: int, frame: Any) -> None:
        hit.append(True)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, raise_interrupt)
    try:
        yield hit
    finally:
        signal.signal(signal.SIGINT, previous)
        if hit and callable(previous) and previous is not signal.default_int_handler:
            previous(signal.SIGINT, None)  # ipykernel's: cancels the agent's cell


def _json(content: dict[str, Any]) -> dict[str, Any]:
    """The content as the frontend will get it (images as base64 text, not bytes)."""
    from jupyter_client.jsonutil import json_default

    loaded = json.loads(json.dumps(content, default=json_default))
    return loaded if isinstance(loaded, dict) else {}


_INNER: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "jupyter_agents_inner_cell", default=False
)
_RAN_CELLS: set[int] = set()
"""``id()`` of the shells whose running cell (the agent's) has run cells."""
_RUNNING: dict[int, int] = {}
"""Cells running now per shell (not counting the ones run here)."""


def follow_cells(shell: Any) -> None:
    """Follow the cells ``shell`` runs (once; the extension calls it when it loads): when a
    cell that ran cells ends, the count moves on (see the module docstring). Cells run from
    outside any cell (an MCP client's ``run_cells``) move nothing."""
    if id(shell) in _RUNNING:
        return
    _RUNNING[id(shell)] = 0

    def before(info: Any = None) -> None:
        if not _INNER.get():
            _RUNNING[id(shell)] += 1

    def after(result: Any = None) -> None:
        if _INNER.get():
            return
        _RUNNING[id(shell)] = max(_RUNNING[id(shell)] - 1, 0)
        if id(shell) in _RAN_CELLS:
            _RAN_CELLS.discard(id(shell))
            shell.execution_count += 1

    shell.events.register("pre_run_cell", before)
    shell.events.register("post_run_cell", after)


_ROUTES: dict[int, dict[str, Callable[[str, dict[str, Any]], None]]] = {}
_ROUTES_LOCK = threading.Lock()


def _routes_for(session: Any) -> dict[str, Callable[[str, dict[str, Any]], None]]:
    """The runs that ``session``'s output messages are routed to by parent id (the wrapper
    around its ``send`` installed the first time)."""
    with _ROUTES_LOCK:
        routes = _ROUTES.get(id(session))
        if routes is not None:
            return routes
        routes = _ROUTES[id(session)] = {}
        send = session.send

        def routed_send(stream: Any, msg_or_type: Any, *args: Any, **kwargs: Any) -> Any:
            if routes:
                msg_type, content, parent = _parts(msg_or_type, args, kwargs)
                deliver = routes.get(str(parent.get("msg_id", ""))) if parent else None
                if deliver is not None and msg_type in OUTPUT_MESSAGES:
                    deliver(msg_type, content if isinstance(content, dict) else {})
                    return None
            return send(stream, msg_or_type, *args, **kwargs)

        session.send = routed_send
        return routes


def _parts(msg_or_type: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, Any, Any]:
    """The type, content and parent header of what ``Session.send`` was given."""
    if isinstance(msg_or_type, dict):
        header = msg_or_type.get("header") or {}
        return (
            str(header.get("msg_type", "")),
            msg_or_type.get("content"),
            _header(msg_or_type.get("parent_header")),
        )
    content = args[0] if args else kwargs.get("content")
    parent = args[1] if len(args) > 1 else kwargs.get("parent")
    return str(msg_or_type), content, _header(parent)


def _header(parent: Any) -> dict[str, Any]:
    if not isinstance(parent, dict):
        return {}
    inner = parent.get("header")
    return inner if isinstance(inner, dict) else parent
