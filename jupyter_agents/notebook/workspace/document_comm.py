"""The ``jupyter_agents.document`` comm: the kernel asks the frontend that holds the notebook
document for its cells (the document belongs to the frontend, never to the kernel).

The kernel opens the comm when the extension loads; a frontend that holds the document (the
lab extension's ``document`` plugin, the headless runner) registers the target, accepts it and
says ``hello``; a frontend that connects later opens one to the kernel's target. Messages, all
JSON objects with a ``type``:

kernel → frontend
    ``{"type": "request", "id": n, "op": "ping"}``: nothing but the reply ``"done": true``
    (what a round trip costs, benchmark NB1);
    ``{"type": "request", "id": n, "op": "cells"}``: every cell of the document;
    ``{"type": "request", "id": n, "op": OP, "args": {...}}`` for a change, one undo step each,
    every ``expected`` being the whole source the change's card showed (``cell_cards.py``):
    ``insert`` (``cell_type``, ``source``, and ``after`` or ``before`` a cell id with
    ``expected``, that cell's source, or neither: at the end), ``edit`` (``id``, ``expected``,
    ``source``: the new one), ``delete`` (``id``, ``expected``), ``move`` (``id``,
    ``expected``, ``after``: a cell id with ``after_expected``, or null for the top);
    ``run`` (``id``, ``expected``, ``run``: a token): the kernel is about to run the cell
    (``cell_runner.py``), the source its card showed: the frontend checks it as for an edit
    (and refuses a cell that is not code or is running), clears its outputs and shows it
    running; then, with no replies,
    ``{"type": "output", "run": token, "msg_type": str, "content": {...}}`` for each output
    message of the run (as a kernel sends them on IOPub: ``stream``, ``display_data``,
    ``execute_result``, ``error``, ``clear_output``, ``update_display_data``); then ``ran``
    (``run``, ``execution_count``): the run ended;
    ``restart`` (``after``: the agent's cell id): restart the kernel when that cell ends;
    ``cassette`` (``id``): reply ``"data"``, the cell's packed recordings (or null);
    ``set_cassette`` (``id``, ``data``: packed recordings, or null to drop them).
frontend → kernel
    ``{"type": "hello", "frontend": str, "notebook": str}``;
    ``{"type": "reply", "id": n, "cells": [cell, ...]}`` where a cell is ``{"id", "cell_type",
    "source", "execution_count", "outputs", "executing"}`` as nbformat has them (``executing``:
    the cell is running now); for a change ``{"type": "reply", "id": n, "done": true, "cell":
    id}``, or ``"stale": true`` with the ``cell`` and its ``source`` now when a cell does not
    hold the source expected (nothing applied), ``"missing": id`` for a cell that is not
    there, ``"refused": why`` (a running cell); ``{"type": "reply", "id": n, "error": str}``;
    ``run`` and ``ran`` reply ``"done": true`` (or as a change does).

A change is checked and applied by the frontend in one step, against the document as it is
then: the person may have typed since its card was shown. The kernel keeps no copy of the
cells: each card reads them afresh.

Nothing a frontend sends is trusted: malformed replies are errors for the one request that
asked, unknown messages are ignored, and a request nobody answers times out.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from comm import create_comm, get_comm_manager

from ..comm_set import CommSet

__all__ = ["TARGET", "DocumentChannel", "NoFrontend"]

TARGET = "jupyter_agents.document"

REPLY_TIMEOUT = 20.0
"""Seconds a frontend has to answer a request."""

HELLO_WAIT = 5.0
"""Seconds a request waits for a frontend's hello on a comm still open (the page may not have
answered yet when Run All reaches an agent cell right after ``%load_ext``)."""


class NoFrontend(Exception):
    """No frontend holding the notebook answered (its message says what to do)."""


class DocumentChannel:
    """The open ``jupyter_agents.document`` comms of this kernel and the requests in flight."""

    def __init__(self) -> None:
        self._comms = CommSet("document", self._on_msg)
        self._comms.on_forget(lambda comm: self._frontend.pop(id(comm), None))
        self._frontend: dict[int, str] = {}  # id(comm) -> what said hello on it
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._hello: asyncio.Event | None = None
        self._unanswered = False
        """A hello was waited for in vain once: nothing holds the document (nbconvert)."""

    def open(self) -> None:
        """Register the target and offer a comm to the frontend (needs a kernel)."""
        self._comms.bind_loop()
        get_comm_manager().register_target(TARGET, lambda comm, _msg: self._comms.adopt(comm))
        self._comms.adopt(create_comm(target_name=TARGET, data={"type": "open"}))

    def close(self) -> None:
        self._comms.close()
        for future in self._waiting.values():
            if not future.done():
                future.cancel()

    @property
    def frontend(self) -> str | None:
        """What holds the document (``"headless"``, ...), once a frontend said hello."""
        return next(iter(self._frontend.values()), None)

    async def cells(self, timeout: float = REPLY_TIMEOUT) -> list[dict[str, Any]]:
        """Every cell of the document, as the frontend has it now."""
        reply = await self.request("cells", timeout=timeout)
        cells = reply.get("cells")
        if not isinstance(cells, list):
            raise NoFrontend("The notebook's frontend sent no cells; try again.")
        return [c for c in cells if isinstance(c, dict) and isinstance(c.get("id"), str)]

    def notify(self, data: dict[str, Any], parent: dict[str, Any]) -> None:
        """Send ``data`` to the frontend without waiting for a reply, from any thread, as part
        of the request ``parent`` (the agent cell's: a headless runner only reads messages of
        the cell it runs). Nothing is sent with no frontend."""
        comm = self._hello_comm()
        kernel = getattr(comm, "kernel", None)
        if comm is None or kernel is None:
            return
        content = {"comm_id": comm.comm_id, "data": data}
        kernel.session.send(
            kernel.iopub_socket, "comm_msg", content, parent=parent, ident=comm.topic
        )

    def tell(self, op: str, args: dict[str, Any]) -> bool:
        """Send a request without waiting for its reply (from a magic, which cannot wait: the
        reply would come in after the cell); whether a frontend was there to send it to."""
        comm = self._hello_comm()
        if comm is None:
            return False
        comm.send({"type": "request", "id": next(self._ids), "op": op, "args": args})
        return True

    async def request(
        self, op: str, args: dict[str, Any] | None = None, *, timeout: float = REPLY_TIMEOUT
    ) -> dict[str, Any]:
        """Ask the frontend (see the module docstring); its reply."""
        comm = await self._answering()
        request = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request] = future
        message: dict[str, Any] = {"type": "request", "id": request, "op": op}
        if args is not None:
            message["args"] = args
        try:
            comm.send(message)
            reply = await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise NoFrontend(
                f"The notebook's frontend did not answer within {timeout:g} s; try again."
            ) from None
        finally:
            self._waiting.pop(request, None)
        error = reply.get("error")
        if error is not None:
            raise NoFrontend(f"The notebook's frontend could not answer: {str(error)[:200]}")
        return reply

    async def ready(self) -> str | None:
        """What holds the document (``frontend``), waiting a moment for its hello while a
        comm is open but its frontend has not spoken yet (a cell run right after
        ``%load_ext`` may start before the page's hello is read)."""
        if not self._frontend and self._comms.comms and not self._unanswered:
            self._hello = self._hello or asyncio.Event()
            try:
                await asyncio.wait_for(self._hello.wait(), HELLO_WAIT)
            except asyncio.TimeoutError:
                self._unanswered = True  # nothing holds it (nbconvert): do not wait each time
        return self.frontend

    async def _answering(self) -> Any:
        """The comm of a frontend that said hello (waiting a moment for one while a comm is
        open but its frontend has not spoken yet)."""
        await self.ready()
        comm = self._hello_comm()
        if comm is not None:
            return comm
        raise NoFrontend(
            "No notebook frontend is connected, so the notebook's cells cannot be read: "
            "open it in JupyterLab with the jupyter-agents extension, or run it with "
            "python -m jupyter_agents.headless."
        )

    def _hello_comm(self) -> Any:
        """The open comm of a frontend that said hello (None when there is none)."""
        return next((c for c in list(self._comms.comms) if id(c) in self._frontend), None)

    # -- comms -----------------------------------------------------------------------------

    def _on_msg(self, comm: Any, msg: dict[str, Any]) -> None:
        data = (msg.get("content") or {}).get("data")
        if not isinstance(data, dict):
            return
        if data.get("type") == "hello":
            name = data.get("frontend")
            self._frontend[id(comm)] = name if isinstance(name, str) else "unknown"
            hello = self._hello
            if hello is not None:
                self._comms.on_loop(hello.set)
        elif data.get("type") == "reply" and isinstance(data.get("id"), int):
            future = self._waiting.get(data["id"])
            if future is not None and not future.done():
                loop = future.get_loop()
                loop.call_soon_threadsafe(_settle, future, data)


def _settle(future: asyncio.Future[dict[str, Any]], data: dict[str, Any]) -> None:
    if not future.done():
        future.set_result(data)
