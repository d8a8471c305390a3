"""The ``jupyter_agents.document`` comm: the kernel asks the frontend that holds the notebook
document for its cells (the document belongs to the frontend, never to the kernel).

The kernel opens the comm when the extension loads; a frontend that holds the document (the
lab extension's ``document`` plugin, the headless runner) registers the target, accepts it and
says ``hello``; a frontend that connects later opens one to the kernel's target. The messages
are typed in ``document_contract.py`` (the lab extension's copy is generated from it); what
each request does:

``ping``
    nothing but the reply ``"done": true`` (what a round trip costs, benchmark NB1);
``cells``
    every cell of the document (``executing``: the cell is running now);
``insert``, ``edit``, ``delete``, ``move``
    a change, one undo step each, every ``expected`` being the whole source the change's card
    showed (``cell_cards.py``): an insert goes ``after`` or ``before`` a cell (holding
    ``expected``) or at the end; a move goes after a cell (holding ``after_expected``) or to the
    top;
``run``
    the kernel is about to run the cell (``cell_runner.py``), the source its card showed: the
    frontend checks it as for an edit (and refuses a cell that is not code or is running),
    clears its outputs and shows it running; then, with no replies, an ``output`` message for
    each output message of the run (as a kernel sends them on IOPub: ``stream``,
    ``display_data``, ``execute_result``, ``error``, ``clear_output``, ``update_display_data``);
    then ``ran``: the run ended;
``restart``
    restart the kernel when the agent's cell ends;
``cassette``, ``set_cassette``
    read or write the cell's packed recordings (null drops them).

The reply to a change (and to ``run``, ``ran``, ``restart``) is an ``Outcome``: ``done``, or
``stale`` with the cell and its source now when a cell does not hold the source expected
(nothing applied), ``missing`` for a cell that is not there, ``refused`` and why (a running
cell); any request may be answered ``error``.

A change is checked and applied by the frontend in one step, against the document as it is
then: the person may have typed since its card was shown. The kernel keeps no copy of the
cells: each card reads them afresh.

Nothing a frontend sends is trusted: malformed replies are errors for the one request that
asked (``outcome`` and ``recordings`` read them), unknown messages are ignored, and a request
nobody answers times out.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from comm import create_comm, get_comm_manager

from ..comm_names import DOCUMENT_TARGET as TARGET
from ..comm_set import CommSet

if TYPE_CHECKING:
    from ..document_contract import Call, Done, Open, Outcome, Output, Recordings, RequestHead

__all__ = ["TARGET", "DocumentChannel", "NoFrontend", "Reply", "outcome", "recordings"]

Reply = Mapping[str, object]
"""A reply as a frontend sent it (untrusted: read it with ``outcome`` or ``recordings``)."""

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
        self._comms.on_forget(self._forget)
        self._frontend: dict[int, str] = {}  # id(comm) -> what said hello on it
        self._notebook: dict[int, str] = {}  # id(comm) -> the notebook it said it holds
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[Reply]] = {}
        self._hello: asyncio.Event | None = None
        self._unanswered = False
        """A hello was waited for in vain once: nothing holds the document (nbconvert)."""

    def open(self) -> None:
        """Register the target and offer a comm to the frontend (needs a kernel)."""
        self._comms.bind_loop()
        get_comm_manager().register_target(TARGET, lambda comm, _msg: self._comms.adopt(comm))
        opening: Open = {"type": "open"}
        self._comms.adopt(create_comm(target_name=TARGET, data=opening))

    def close(self) -> None:
        self._comms.close()
        for future in self._waiting.values():
            if not future.done():
                future.cancel()

    def _forget(self, comm: Any) -> None:
        self._frontend.pop(id(comm), None)
        self._notebook.pop(id(comm), None)

    @property
    def frontend(self) -> str | None:
        """What holds the document (``"headless"``, ...), once a frontend said hello."""
        return next(iter(self._frontend.values()), None)

    @property
    def notebook(self) -> str | None:
        """The notebook's path as the frontend holding it said (its server's path; the headless
        runner's file), once one said hello: what the notebook tools' cards name."""
        return next(iter(self._notebook.values()), None)

    async def cells(self, timeout: float = REPLY_TIMEOUT) -> list[dict[str, Any]]:
        """Every cell of the document, as the frontend has it now."""
        reply = await self.request({"op": "cells"}, timeout=timeout)
        cells = reply.get("cells")
        if not isinstance(cells, list):
            raise NoFrontend("The notebook's frontend sent no cells; try again.")
        return [c for c in cells if isinstance(c, dict) and isinstance(c.get("id"), str)]

    def notify(self, data: Output, parent: dict[str, Any]) -> None:
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

    def tell(self, call: Call) -> bool:
        """Send a request without waiting for its reply (from a magic, which cannot wait: the
        reply would come in after the cell); whether a frontend was there to send it to."""
        comm = self._hello_comm()
        if comm is None:
            return False
        comm.send(_request(next(self._ids), call))
        return True

    async def request(self, call: Call, *, timeout: float = REPLY_TIMEOUT) -> Reply:
        """Ask the frontend (see the module docstring); its reply (an ``error`` one raises)."""
        comm = await self._answering()
        request = next(self._ids)
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._waiting[request] = future
        try:
            comm.send(_request(request, call))
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
            notebook = data.get("notebook")
            if isinstance(notebook, str) and len(notebook) <= 1024:  # the page's word: a name
                self._notebook[id(comm)] = notebook
            hello = self._hello
            if hello is not None:
                self._comms.on_loop(hello.set)
        elif data.get("type") == "reply" and isinstance(data.get("id"), int):
            future = self._waiting.get(data["id"])
            if future is not None and not future.done():
                loop = future.get_loop()
                loop.call_soon_threadsafe(_settle, future, data)


def _request(request: int, call: Call) -> dict[str, object]:
    """The message of request number ``request``: a ``RequestHead`` with ``call``'s fields."""
    head: RequestHead = {"type": "request", "id": request}
    return {**head, **call}


def _settle(future: asyncio.Future[Reply], data: Reply) -> None:
    if not future.done():
        future.set_result(data)


def outcome(reply: Reply) -> Outcome | None:
    """What the reply to a change (or ``run``, ``ran``, ``restart``) says, in this order:
    ``missing``, ``refused``, ``stale``, ``done``; None when it says none of them (nothing was
    done). A stale reply without its ``cell`` has ``""`` there (the caller knows which)."""
    missing = reply.get("missing")
    if missing is not None:
        return {"missing": str(missing)}
    refused = reply.get("refused")
    if refused:
        return {"refused": str(refused)}
    cell, source = reply.get("cell"), reply.get("source")
    if reply.get("stale"):
        now = source if isinstance(source, str) else ""
        return {"stale": True, "cell": str(cell) if "cell" in reply else "", "source": now}
    if reply.get("done") is not True:
        return None
    done: Done = {"done": True}
    if "cell" in reply:
        done["cell"] = str(cell)
    if isinstance(source, str):
        done["source"] = source
    return done


def recordings(reply: Reply) -> Recordings:
    """What the reply to ``cassette`` says: the packed recordings (None when there are none or
    they are not text) and whether the person asked for a live run."""
    data = reply.get("data")
    return {"data": data if isinstance(data, str) else None, "live": reply.get("live") is True}
