"""``run_cells`` in a real kernel, with this test as the frontend that holds the document (it
answers the ``jupyter_agents.document`` comm as the lab extension does): a cell the agent runs
prints into that cell, never into the agent's; nothing of it reaches the frontend as output of
a request it does not know; the counts stay distinct; and the kernel's interrupt stops a cell
that never awaits, and the agent's cell with it, leaving a kernel that answers."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from jupyter_agents.notebook.workspace.cell_outputs import cell_version

from .frontend import Frontend

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(120)]

TARGET = "jupyter_agents.document"
PRINTS = "print('inner')\n41 + 1"
SPINS = "print('started', flush=True)\nwhile True:\n    pass"


class Document:
    """The document side of the comm: cells by id, runs' outputs by token."""

    def __init__(self, fe: Frontend, cells: dict[str, str]) -> None:
        self.fe = fe
        self.cells = dict(cells)
        self.outputs: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        self.requests: list[dict[str, Any]] = []
        self.comm = fe.open_comm(TARGET, {"type": "open"})
        fe.send_comm(self.comm, {"type": "hello", "frontend": "test", "notebook": "t.ipynb"})
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._answer, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop answering and close the comm (the kernel forgets this frontend)."""
        self._stop.set()
        self._thread.join(5)
        kc = self.fe.kc
        kc.shell_channel.send(kc.session.msg("comm_close", {"comm_id": self.comm, "data": {}}))

    def _answer(self) -> None:
        seen = 0

        def more() -> bool:
            return len(self.fe.comm_messages(self.comm)) > seen

        while not self._stop.is_set():
            try:
                self.fe.wait_for(more, 0.5)
            except TimeoutError:
                continue
            messages = self.fe.comm_messages(self.comm)
            for data in messages[seen:]:
                self._handle(data)
            seen = len(messages)

    def _handle(self, data: Any) -> None:
        if not isinstance(data, dict):
            return
        if data.get("type") == "output":
            self.outputs.setdefault(data["run"], []).append((data["msg_type"], data["content"]))
            return
        if data.get("type") != "request":
            return
        self.requests.append(data)
        reply: dict[str, Any] = {"done": True}
        if data["op"] == "cells":
            reply = {
                "cells": [
                    {
                        "id": i,
                        "cell_type": "code",
                        "source": s,
                        "execution_count": None,
                        "outputs": [],
                        "executing": i == "agent",
                    }
                    for i, s in self.cells.items()
                ]
            }
        elif data["op"] == "run":
            reply["cell"] = data["args"]["id"]
        self.fe.send_comm(self.comm, {"type": "reply", "id": data["id"], **reply})

    def ops(self, op: str) -> list[dict[str, Any]]:
        return [r["args"] for r in self.requests if r["op"] == op]


@pytest.fixture(scope="module")
def fe() -> Iterator[Frontend]:
    frontend = Frontend(env={"JUPYTER_AGENTS_APPROVE": "auto"})
    try:
        frontend.run("%load_ext jupyter_agents", timeout=60)
        yield frontend
    finally:
        frontend.close()


def agent_running(fe: Frontend, cell: str, version: str) -> str:
    """Script the model to read ``cell`` and run it, and start the agent's cell."""
    fe.run(
        "from jupyter_agents.testing import ScriptedModel, text, tool_call\n"
        "demo = ScriptedModel([\n"
        f"    [tool_call('run_cells', {{'cells': [{{'id': {cell!r}, 'version': {version!r}}}]}},"
        " 'r1')],\n"
        "    [text('Ran it.')],\n"
        "])\n"
        "%agent model demo\n"
        "%agent tools add notebook"
    )
    return fe.execute("%%agent\nRun it.", cell_id="agent")


def test_a_cell_the_agent_runs_prints_into_that_cell_only(fe: Frontend) -> None:
    document = Document(fe, {"c1": PRINTS, "agent": "%%agent\nRun it."})
    try:
        fe.run(
            "import asyncio\nfrom jupyter_agents.notebook.host import current_host\n"
            "await current_host().document.cells()"
        )
        agent = agent_running(fe, "c1", cell_version(PRINTS))
        reply = fe.reply(agent, timeout=60)
        assert reply["content"]["status"] == "ok"
        (token,) = [a["run"] for a in document.ops("run")]
        relayed = document.outputs[token]
        assert ("stream", {"name": "stdout", "text": "inner\n"}) in relayed
        result = next(c for t, c in relayed if t == "execute_result")
        assert result["data"]["text/plain"] == "42"
        (ran,) = document.ops("ran")
        assert ran["run"] == token and ran["execution_count"] == result["execution_count"]
        # nothing of the run went out as output of the agent's cell, or of a request the
        # frontend never sent
        assert "inner" not in fe.stdout(agent)
        strays = [
            m
            for m in fe.iopub
            if m["parent_header"].get("msg_id", "").startswith("jupyter-agents-run-")
        ]
        assert strays == []
        assert reply["content"]["execution_count"] == ran["execution_count"] + 1
        after = fe.run("print('next')")
        assert after["content"]["execution_count"] == reply["content"]["execution_count"] + 1
        assert fe.stdout(after["parent_header"]["msg_id"]) == "next\n"
    finally:
        document.close()


def test_the_interrupt_stops_a_cell_that_never_awaits_and_the_agents_cell(fe: Frontend) -> None:
    document = Document(fe, {"spin": SPINS, "agent": "%%agent\nRun it."})
    try:
        fe.run(
            "from jupyter_agents.notebook.host import current_host\n"
            "await current_host().document.cells()"
        )
        agent = agent_running(fe, "spin", cell_version(SPINS))
        fe.wait_for(
            lambda: any(
                (t == "stream" and "started" in c.get("text", ""))
                for out in document.outputs.values()
                for t, c in out
            ),
            30,
            "the spinning cell to start",
        )
        fe.interrupt()
        reply = fe.reply(agent, timeout=30)
        assert reply["content"]["status"] == "error"
        (token,) = [a["run"] for a in document.ops("run")]
        errors = [c for t, c in document.outputs[token] if t == "error"]
        assert errors and errors[0]["ename"] == "KeyboardInterrupt"
        assert [a["run"] for a in document.ops("ran")] == [token]  # the cell shows it ended
        assert fe.run("print(1 + 1)")["content"]["status"] == "ok"
    finally:
        document.close()
