"""An assist in a real kernel, sent as the lab sends it: an execute request (not stored in the
history) of ``await assist("<the request as an ASCII JSON literal>")``, with a document
frontend (this test, on the ``jupyter_agents.document`` comm) holding the notebook's cells: the
prompt is built from the cell the page holds, its error and the variables its traceback names,
and the run's widget comes out of that request. A request the kernel cannot serve is refused in
one line and runs nothing."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from .conftest import kernel_value, script
from .frontend import Frontend
from .test_agent_cells import final_state
from .test_chat_kernel import send_call, widget_of

pytestmark = pytest.mark.kernel

ENTRY = "jupyter_agents.notebook.assists.run"

ERROR = {
    "output_type": "error",
    "ename": "ZeroDivisionError",
    "evalue": "division by zero <b>{__import__('os')}</b>",
    "traceback": ["\x1b[0;31mZeroDivisionError\x1b[0m", "----> 1 print(total / count)"],
}
CELLS = [
    {"id": "bad", "cell_type": "code", "source": "print(total / count)", "outputs": [ERROR]},
]


def send_assist(fe: Frontend, request: dict[str, Any]) -> str:
    return send_call(fe, ENTRY, "assist", request)


_pages: dict[int, str] = {}
_answered: dict[str, int] = {}
"""The requests of each page comm answered so far."""


def page(fe: Frontend) -> str:
    """A document comm opened as the lab opens it, with its hello: this test holds the
    notebook (one per kernel: the kernel asks the first frontend that said hello)."""
    if id(fe) not in _pages:
        comm = fe.open_comm("jupyter_agents.document", {"type": "open"})
        fe.send_comm(comm, {"type": "hello", "frontend": "jupyterlab", "notebook": "t.ipynb"})
        _pages[id(fe)] = comm
    return _pages[id(fe)]


def answer(fe: Frontend, comm: str, msg_id: str, timeout: float = 60) -> dict[str, Any]:
    """Answer the kernel's document requests (``cells`` from CELLS, every other one: no such
    cell) until ``msg_id`` has its execute reply; that reply."""
    answered = _answered.get(comm, 0)
    deadline = time.monotonic() + timeout
    while msg_id not in fe._replies:
        assert time.monotonic() < deadline, "the assist did not end"
        requests = [m for m in fe.comm_messages(comm) if m.get("type") == "request"]
        for request in requests[answered:]:
            reply: dict[str, Any] = {"type": "reply", "id": request["id"]}
            if request.get("op") == "cells":
                reply["cells"] = CELLS
            else:
                reply["missing"] = str((request.get("args") or {}).get("id"))
            fe.send_comm(comm, reply)
        answered = _answered[comm] = len(requests)
        fe._receive(0.1)
    return fe.reply(msg_id)


def test_a_fix_runs_on_the_cell_the_page_holds(fe: Frontend) -> None:
    script(fe, '["The count is 0: give it a value."]')
    fe.run("total, count = 10, 0")
    comm = page(fe)
    count = kernel_value(fe, "get_ipython().execution_count")
    msg_id = send_assist(fe, {"kind": "fix", "cell": "bad"})
    reply = answer(fe, comm, msg_id)
    assert reply["content"]["status"] == "ok", reply["content"]
    view = widget_of(fe, msg_id)
    assert final_state(fe, view)["header"]["status"] == "done"
    prompt = kernel_value(fe, "demo.requests[0].user_text")
    assert prompt.startswith("Fix cell 1 of the notebook (id bad, version ")
    assert "ZeroDivisionError: division by zero <b>{__import__('os')}</b>" in prompt
    assert "total: int" in prompt and "count: int" in prompt
    tools = kernel_value(fe, "[t.name for t in demo.requests[0].tools]")
    assert {"edit_cell", "run_cells"} <= set(tools)
    assert kernel_value(fe, "get_ipython().execution_count") == count  # not in the history


@pytest.mark.parametrize(
    ("request_", "problem"),
    [
        ({"kind": "fix", "cell": "../x"}, "must be a cell id"),
        ({"kind": "fix", "cell": "nope"}, "no cell with id 'nope'"),
        ({"kind": "generate", "cell": "bad", "prompt": "x", "code": "1"}, "unknown fields"),
    ],
)
def test_a_request_it_cannot_serve_is_one_line(
    fe: Frontend, request_: dict[str, Any], problem: str
) -> None:
    script(fe, '["never"]')
    comm = page(fe)
    msg_id = send_assist(fe, request_)
    reply = answer(fe, comm, msg_id)
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "UsageError"
    assert problem in reply["content"]["evalue"]
    assert kernel_value(fe, "len(demo.requests)") == 0
    assert json.dumps(request_)  # sent as JSON, nothing else
