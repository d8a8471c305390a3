"""The headless runner's side of the ``jupyter_agents.document`` comm: nbclient executes the
notebook and so holds the document, and answers the kernel's requests for its cells (see
``jupyter_agents/notebook/document_comm.py`` for the messages)."""

from __future__ import annotations

from typing import Any

__all__ = ["TARGET", "HeadlessDocument"]

TARGET = "jupyter_agents.document"


class HeadlessDocument:
    """Registered on a ``NotebookClient``: accepts the kernel's document comm, says hello, and
    answers each request from the client's notebook."""

    def __init__(self, client: Any, notebook: str) -> None:
        self.client = client
        self.notebook = notebook
        self.executing: int | None = None
        """The index of the cell running now."""
        client.comm_open_handlers[TARGET] = self._opened
        client.on_cell_execute = self._started
        client.on_cell_executed = self._ended  # (on_cell_complete fires once it is sent)

    def _started(self, cell: Any, cell_index: int) -> None:
        self.executing = cell_index

    def _ended(self, cell: Any, cell_index: int, execute_reply: Any = None) -> None:
        self.executing = None

    def _opened(self, msg: dict[str, Any]) -> _Comm:
        comm = _Comm(self, msg["content"]["comm_id"])
        comm.send({"type": "hello", "frontend": "headless", "notebook": self.notebook})
        return comm

    def cells(self) -> list[dict[str, Any]]:
        """Every cell as the protocol sends it."""
        found = []
        for index, cell in enumerate(self.client.nb.cells):
            found.append(
                {
                    "id": cell.get("id"),
                    "cell_type": cell.get("cell_type"),
                    "source": cell.get("source", ""),
                    "execution_count": cell.get("execution_count"),
                    "outputs": list(cell.get("outputs", [])),
                    "executing": index == self.executing,
                }
            )
        return found


class _Comm:
    """One open comm (nbclient calls ``handle_msg`` with each message the kernel sends on it)."""

    def __init__(self, document: HeadlessDocument, comm_id: str) -> None:
        self.document = document
        self.comm_id = comm_id

    def send(self, data: dict[str, Any]) -> None:
        kc = self.document.client.kc
        kc.shell_channel.send(kc.session.msg("comm_msg", {"comm_id": self.comm_id, "data": data}))

    def handle_msg(self, msg: dict[str, Any]) -> None:
        data = msg.get("content", {}).get("data")
        if not isinstance(data, dict) or data.get("type") != "request":
            return
        if data.get("op") == "cells":
            self.send({"type": "reply", "id": data.get("id"), "cells": self.document.cells()})
        else:
            self.send({"type": "reply", "id": data.get("id"), "error": "unknown request"})
