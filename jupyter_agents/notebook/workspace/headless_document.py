"""The headless runner's side of the ``jupyter_agents.document`` comm: nbclient executes the
notebook and so holds the document; this answers the kernel's requests for its cells and
applies the notebook agent's changes to it (``document_comm.py`` beside it says what each
request does; ``document_contract.py`` types them). Cells the agent inserts are
written to the executed notebook; the runner does not run them, but the agent may
(``run_cells``): the kernel runs them and relays their outputs here, into the cell. Cells still
waiting for their turn are not run by the agent (they run in their turn, as in a browser's Run
All)."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from ...runtime.replay.signing import inserted_mark, is_inserted_mark
from ..cells.cell_replay import METADATA
from ..document_contract import (
    CELL_TYPES,
    CHANGES,
    TARGET,
    Answer,
    Cell,
    Done,
    Hello,
    Missing,
    Outcome,
    Recordings,
    Refused,
    Stale,
)
from .cell_cards import line_feeds
from .cell_outputs import cell_source
from .output_collector import OutputCollector

__all__ = ["TARGET", "HeadlessDocument"]

CELL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A cell id nbformat accepts (an insert may ask for one: see ``notebook_edits.inserted_id``)."""

Args = Mapping[str, object]
"""A request's ``args`` as the kernel sent them (checked field by field where read)."""


class HeadlessDocument:
    """Registered on a ``NotebookClient``: accepts the kernel's document comm, says hello, and
    answers each request from (and applies each change to) the client's notebook."""

    def __init__(self, client: Any, notebook: str) -> None:
        self.client = client
        self.nb = client.nb
        """The document (nbclient works on a copy of its list of cells: see ``execute``)."""
        self.notebook = notebook
        self.executing: Any = None
        """The cell running now."""
        self.waiting: set[int] = set()
        """``id()`` of the cells still to run in this execution."""
        self.runs: dict[str, tuple[Any, OutputCollector]] = {}
        """The cells the agent runs now, by the run's token."""
        self.restart_pending = False
        """Restart the kernel when the cell running now ends (``restart_kernel``)."""
        self.claimed: set[int] = set()
        """``id()`` of cells a replayed run inserted again: they were there, and are the
        agent's now (not run in their turn)."""
        self.lifted: list[tuple[int, Any]] = []
        """Cells an agent inserted in an earlier run, unchanged since, with their places: out
        of the notebook until the agent inserts them again (see ``_start_clean``)."""
        client.comm_open_handlers[TARGET] = self._opened
        client.on_cell_execute = self._started
        client.on_cell_executed = self._ended  # (on_cell_complete fires once it is sent)

    async def execute(self) -> Any:
        """nbclient's ``async_execute``, over the cells as they were when it began: a cell the
        agent inserts is not run, one it deletes is skipped, and each runs at its index now."""
        client = self.client
        client.reset_execution_trackers()
        async with client.async_setup_kernel():
            self._send_cell_ids()
            info = await client.async_wait_for_reply(client.kc.kernel_info())
            if info is not None and "language_info" in info["content"]:
                self.nb.metadata["language_info"] = info["content"]["language_info"]
            self._start_clean()
            cells = list(self.nb.cells)
            self.waiting = {id(c) for c in cells}
            for cell in cells:
                self.waiting.discard(id(cell))
                index = self._index(cell)
                if index is None or id(cell) in self.claimed:
                    continue  # deleted by the agent before its turn, or inserted by it again
                # nbclient puts the cell back at the index it began with when it ends: into a
                # copy of the list, as the agent may have inserted or deleted cells meanwhile;
                # the kernel's counts, not nbclient's own, as the agent's runs count too
                client.nb = copy.copy(self.nb)
                client.nb["cells"] = list(self.nb.cells)
                try:
                    await client.async_execute_cell(cell, index)
                finally:
                    client.nb = self.nb
                if self.restart_pending:
                    self.restart_pending = False
                    await self._restart()
            client.set_widgets_metadata()
        self._put_back_lifted()
        return self.nb

    def _start_clean(self) -> None:
        """Start as a fresh Run All of the notebook as first written: no outputs left from an
        earlier execution (the agent reads the cells), and the cells an agent inserted then,
        unchanged since, taken out (a replay of that run inserts them again, with the same ids,
        where they were; a person's edit keeps a cell where it is). Only this person's keyed
        mark lifts a cell: a notebook someone sent cannot hide a cell from its Run All."""
        kept = []
        for index, cell in enumerate(self.nb.cells):
            if cell.get("cell_type") == "code":
                cell["outputs"], cell["execution_count"] = [], None
            ours = cell.get("metadata", {}).get(METADATA)
            made = ours.get("inserted") if isinstance(ours, dict) else None
            if made is not None and is_inserted_mark(made, cell_source(cell)):
                self.lifted.append((index, cell))
            else:
                kept.append(cell)
        self.nb.cells = kept

    def _put_back_lifted(self) -> None:
        """Cells taken out at the start that no run inserted again (it went another way)
        return to their places: nothing the notebook held is lost."""
        present = {c.get("id") for c in self.nb.cells}
        for index, cell in self.lifted:
            if cell.get("id") not in present:
                self.nb.cells.insert(min(index, len(self.nb.cells)), cell)

    def _send_cell_ids(self) -> None:
        """Execute requests carry the cell's id (``metadata.cellId``), as JupyterLab's do, so
        the agent knows its own cell (nbclient sends none)."""
        channel = self.client.kc.shell_channel
        send = channel.send

        def with_cell_id(msg: dict[str, Any]) -> None:
            running = self.executing
            if msg.get("msg_type") == "execute_request" and running is not None:
                msg.setdefault("metadata", {})["cellId"] = running.get("id")
            send(msg)

        channel.send = with_cell_id

    async def _restart(self) -> None:
        """Restart the kernel (the agent's ``restart_kernel``, approved); the cells after run
        in the fresh one, as they would in a browser."""
        from jupyter_core.utils import ensure_async

        client = self.client
        await ensure_async(client.km.restart_kernel(now=False))
        await ensure_async(client.kc.wait_for_ready(timeout=client.startup_timeout))

    def _index(self, cell: Any) -> int | None:
        return next((i for i, c in enumerate(self.nb.cells) if c is cell), None)

    def _started(self, cell: Any, cell_index: int) -> None:
        self.executing = cell

    def _ended(self, cell: Any, cell_index: int, execute_reply: Any = None) -> None:
        self.executing = None
        count = ((execute_reply or {}).get("content") or {}).get("execution_count")
        if isinstance(count, int) and cell.get("execution_count") is not None:
            cell["execution_count"] = count  # the reply's: after the cells an agent ran

    def _opened(self, msg: dict[str, Any]) -> _Comm:
        comm = _Comm(self, msg["content"]["comm_id"])
        hello: Hello = {"type": "hello", "frontend": "headless", "notebook": self.notebook}
        comm.send(hello)
        return comm

    def cells(self) -> list[Cell]:
        """Every cell as the protocol sends it."""
        return [
            {
                "id": cell.get("id"),
                "cell_type": cell.get("cell_type"),
                "source": cell_source(cell),
                "execution_count": cell.get("execution_count"),
                "outputs": list(cell.get("outputs", [])),
                "executing": cell is self.executing or self._run_of(cell) is not None,
            }
            for cell in self.nb.cells
        ]

    def _run_of(self, cell: Any) -> str | None:
        return next((token for token, (c, _) in self.runs.items() if c is cell), None)

    # -- changes -----------------------------------------------------------------------------

    def change(self, op: str, args: Args) -> Answer:
        """Apply one change (checked against the notebook as it is now); the reply."""
        cells = self.nb.cells
        if op not in CHANGES:
            return {"error": "unknown request"}
        if op == "insert":
            return self._insert(args)
        if op == "ran":
            return self._ran(args)
        if op in ("cassette", "set_cassette"):
            return self._cassette(op, args)
        if op == "open_notebook":
            return {"refused": "a headless run has no page to open a notebook in."}
        if op == "restart":
            running = self.executing
            if running is None or running.get("id") != args.get("after"):
                return {"refused": "the agent's cell is not the one running."}
            self.restart_pending = True
            return {"done": True}
        index = self._find(args.get("id"))
        if index is None:
            return {"missing": str(args.get("id"))}
        cell = cells[index]
        if cell is self.executing or self._run_of(cell) is not None:
            return {"refused": "that cell is running now; it cannot be changed."}
        if op == "run":
            return self._run(cell, args)
        if op in ("edit", "delete", "move") and cell_source(cell) != args.get("expected"):
            return _stale(cell)  # not the source its card showed: the person changed it since
        if op == "edit":
            source = args.get("source")
            if not isinstance(source, str):
                return {"refused": "the new source must be text."}
            source = line_feeds(source)
            cell["source"] = source
            return {"done": True, "cell": cell["id"], "source": source}
        if op == "delete":
            del cells[index]
            return {"done": True, "cell": cell["id"]}
        return self._move(index, args)

    def _move(self, index: int, args: Args) -> Outcome:
        cells = self.nb.cells
        cell = cells[index]
        after = args.get("after")
        target = -1 if after is None else self._find(after)
        if target is None:
            return {"missing": str(after)}
        if target == index:
            return {"refused": "a cell cannot go after itself."}
        if after is not None and cell_source(cells[target]) != args.get("after_expected"):
            return _stale(cells[target])
        del cells[index]
        place = self._find(after) if after is not None else None
        cells.insert(0 if place is None else place + 1, cell)
        return {"done": True, "cell": cell["id"]}

    def _run(self, cell: Any, args: Args) -> Outcome:
        if cell.get("cell_type") != "code":
            return {"refused": "only code cells run."}
        if id(cell) in self.waiting:
            return {"refused": "that cell runs later in this run of the notebook, in its turn."}
        if cell_source(cell) != args.get("expected"):
            return _stale(cell)
        token = args.get("run")
        if not isinstance(token, str) or token in self.runs:
            return {"refused": "a run needs a token of its own."}
        cell["outputs"] = []
        cell["execution_count"] = None
        self.runs[token] = (cell, OutputCollector())
        return {"done": True, "cell": cell["id"]}

    def output(self, token: Any, msg_type: Any, content: Any) -> None:
        """One output message of a cell the agent runs: into the cell."""
        import nbformat

        run = self.runs.get(token) if isinstance(token, str) else None
        if run is None or not isinstance(msg_type, str):
            return
        cell, collected = run
        collected.add(msg_type, content)
        cell["outputs"] = nbformat.from_dict(collected.outputs)  # type: ignore[no-untyped-call]

    def _ran(self, args: Args) -> Outcome:
        token = args.get("run")
        run = self.runs.pop(token, None) if isinstance(token, str) else None
        if run is None:
            return {"missing": str(token)}
        count = args.get("execution_count")
        run[0]["execution_count"] = count if isinstance(count, int) else None
        return {"done": True, "cell": run[0]["id"]}

    def _cassette(self, op: str, args: Args) -> Recordings | Done | Missing | Refused:
        """A cell's recordings (``cell_replay.py``), kept in its metadata."""
        index = self._find(args.get("id"))
        if index is None:
            return {"missing": str(args.get("id"))}
        metadata = self.nb.cells[index].setdefault("metadata", {})
        ours = metadata.get(METADATA) if isinstance(metadata.get(METADATA), dict) else {}
        if op == "cassette":
            data = ours.get("cassette")
            return {"data": data if isinstance(data, str) else None}
        data = args.get("data")
        if data is None:
            ours.pop("cassette", None)
        elif isinstance(data, str):
            ours["cassette"] = data
        else:
            return {"refused": "recordings are packed text."}
        if ours:
            metadata[METADATA] = ours
        else:
            metadata.pop(METADATA, None)
        return {"done": True}

    def _find(self, cell_id: object) -> int | None:
        return next((i for i, c in enumerate(self.nb.cells) if c.get("id") == cell_id), None)

    def _insert(self, args: Args) -> Outcome:
        import nbformat

        kind, source = args.get("cell_type"), args.get("source")
        if not isinstance(kind, str) or kind not in CELL_TYPES or not isinstance(source, str):
            return {"refused": f"cell_type must be one of {', '.join(CELL_TYPES)}, source text."}
        source = line_feeds(source)
        make = {
            "code": nbformat.v4.new_code_cell,
            "markdown": nbformat.v4.new_markdown_cell,
            "raw": nbformat.v4.new_raw_cell,
        }[kind]
        cells = self.nb.cells
        proposed = args.get("id")
        if isinstance(proposed, str) and CELL_ID.fullmatch(proposed):
            there = self._find(proposed)
            if there is not None:
                held = cells[there]
                if held.get("cell_type") == kind and cell_source(held) == source:
                    return self._claim(held)  # as the recorded run left it: not twice
                proposed = None  # a cell of that id holds something else: a new id
        cell = make(source)  # type: ignore[no-untyped-call]
        if isinstance(proposed, str) and CELL_ID.fullmatch(proposed):
            cell["id"] = proposed
        cell["metadata"][METADATA] = {"inserted": inserted_mark(source)}
        after, before = args.get("after"), args.get("before")
        if after is not None or before is not None:
            found = self._find(after if after is not None else before)
            if found is None:
                return {"missing": str(after if after is not None else before)}
            if cell_source(cells[found]) != args.get("expected"):
                return _stale(cells[found])  # the cell it goes next to, as its card showed it
            cells.insert(found + 1 if after is not None else found, cell)
        else:
            cells.append(cell)
        return {"done": True, "cell": cell["id"], "source": source}

    def _claim(self, cell: Any) -> Done:
        """An insert of the cell the notebook already holds (a replayed run inserting what its
        recording did): this run's own, as if just inserted, so it does not run again in its
        turn and the agent may run it."""
        self.waiting.discard(id(cell))
        self.claimed.add(id(cell))
        return {"done": True, "cell": cell["id"], "source": cell_source(cell)}


def _stale(cell: Any) -> Stale:
    """The reply for a cell that does not hold the source a change expected: nothing done."""
    return {"stale": True, "cell": cell.get("id"), "source": cell_source(cell)}


class _Comm:
    """One open comm (nbclient calls ``handle_msg`` with each message the kernel sends on it)."""

    def __init__(self, document: HeadlessDocument, comm_id: str) -> None:
        self.document = document
        self.comm_id = comm_id

    def send(self, data: Mapping[str, object]) -> None:
        kc = self.document.client.kc
        kc.shell_channel.send(kc.session.msg("comm_msg", {"comm_id": self.comm_id, "data": data}))

    def handle_msg(self, msg: dict[str, Any]) -> None:
        data = msg.get("content", {}).get("data")
        if isinstance(data, dict) and data.get("type") == "output":
            self.document.output(data.get("run"), data.get("msg_type"), data.get("content"))
            return
        if not isinstance(data, dict) or data.get("type") != "request":
            return
        request, op = data.get("id"), data.get("op")
        reply: Answer
        if op == "ping":
            reply = {"done": True}
        elif op == "cells":
            reply = {"cells": self.document.cells()}
        elif op in CHANGES and isinstance(data.get("args"), dict):
            reply = self.document.change(op, data["args"])
        else:
            reply = {"error": "unknown request"}
        self.send({"type": "reply", "id": request, **reply})
