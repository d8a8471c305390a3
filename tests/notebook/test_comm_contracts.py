"""Each comm has one typed contract, and every end keeps to it.

``notebook/document_contract.py`` and ``notebook/runs_contract.py`` type the messages of the
``jupyter_agents.document`` and ``jupyter_agents.runs`` comms; the lab extension imports
``labextension/src/{document,runs}/contract.ts``, generated from them. A field renamed on one
side only fails here (the committed TypeScript is not the Python types) or in ``tsc``.

Nothing received is trusted: each table below is a specification to extend by a line (what an
end receives, what it does). A message the contract does not allow is refused: the headless
runner answers it as an unknown request, the kernel does not take a malformed reply as done,
and the runs comm ignores a malformed decision or setting (the lab extension's own table is
``labextension/test/requests.test.ts``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import pytest

from jupyter_agents.notebook.run_registry import RunRegistry
from jupyter_agents.notebook.runs_comm import RunsChannel
from jupyter_agents.notebook.view import _state_ts
from jupyter_agents.notebook.workspace.document_comm import outcome
from jupyter_agents.notebook.workspace.headless_document import HeadlessDocument, _Comm

from ..prerequisites import needs

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"
TSC = LABEXTENSION / "node_modules" / ".bin" / "tsc"


@pytest.mark.parametrize("generated", _state_ts.FILES, ids=lambda g: g.path)
def test_the_committed_typescript_is_the_python_types(generated: _state_ts.Generated) -> None:
    committed = (LABEXTENSION / "src" / generated.path).read_text(encoding="utf-8")
    assert committed == _state_ts.render(generated), (
        f"labextension/src/{generated.path} is stale: run "
        "`python -m jupyter_agents.notebook.view._state_ts labextension/src`"
    )


@needs(
    TSC.exists() and shutil.which("node") is not None, "Node and `jlpm install` in labextension/"
)
def test_the_extension_compiles_with_them() -> None:
    done = subprocess.run(
        [str(TSC), "--noEmit", "-p", "tsconfig.json"],
        cwd=LABEXTENSION,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# -- the headless runner: what the kernel sends it -------------------------------------------

UNKNOWN = {"error": "unknown request"}

REQUESTS: list[tuple[dict[str, Any], dict[str, Any] | None]] = [
    # (the data of a comm message from the kernel, the reply's answer)
    ({"op": "explode", "args": {"id": "a", "expected": "x = 1"}}, UNKNOWN),
    ({"op": "__class__", "args": {"id": "a", "expected": "x = 1"}}, UNKNOWN),
    ({"op": "DELETE", "args": {"id": "a", "expected": "x = 1"}}, UNKNOWN),
    ({"op": "cells ", "args": {}}, UNKNOWN),
    ({"op": None, "args": {"id": "a"}}, UNKNOWN),
    ({"args": {"id": "a", "expected": "x = 1"}}, UNKNOWN),
    ({"op": ["delete"], "args": {"id": "a", "expected": "x = 1"}}, UNKNOWN),
    ({"op": "delete", "args": ["a", "x = 1"]}, UNKNOWN),
    ({"op": "delete", "args": "a"}, UNKNOWN),
    ({"op": "delete", "args": None}, UNKNOWN),
    ({"op": "delete"}, UNKNOWN),
    (
        {"op": "insert", "args": {"cell_type": "sql", "source": "select 1"}},
        {"refused": "cell_type must be one of code, markdown, raw, source text."},
    ),
    ({"op": "edit", "args": {"id": "a", "expected": "x = 1", "source": 5}}, None),
    ({"op": "delete", "args": {"id": "a", "expected": "x = 2"}}, None),
    ({"op": "delete", "args": {"id": "gone", "expected": "x = 1"}}, {"missing": "gone"}),
    ({"op": "ping"}, {"done": True}),
]
"""A ``None`` answer: refused or stale, as the table in ``test_cell_cards.py`` specifies."""


def _headless() -> tuple[HeadlessDocument, _Comm, list[dict[str, Any]]]:
    cell = nbformat.v4.new_code_cell("x = 1")
    cell["id"] = "a"
    sent: list[dict[str, Any]] = []
    kc = SimpleNamespace(
        session=SimpleNamespace(msg=lambda _type, content: content),
        shell_channel=SimpleNamespace(send=lambda content: sent.append(content["data"])),
    )
    client = SimpleNamespace(
        nb=nbformat.v4.new_notebook(cells=[cell]),
        comm_open_handlers={},
        kc=kc,
    )
    document = HeadlessDocument(client, "nb.ipynb")
    return document, document._opened({"content": {"comm_id": "c"}}), sent


@pytest.mark.parametrize(("data", "answer"), REQUESTS)
def test_the_headless_runner_answers_only_what_the_contract_allows(
    data: dict[str, Any], answer: dict[str, Any] | None
) -> None:
    document, comm, sent = _headless()
    comm.handle_msg({"content": {"data": {"type": "request", "id": 7, **data}}})
    hello, reply = sent
    assert hello["type"] == "hello" and (reply["type"], reply["id"]) == ("reply", 7)
    answered = {k: v for k, v in reply.items() if k not in ("type", "id")}
    if answer is None:
        assert "refused" in answered or "stale" in answered, answered
    else:
        assert answered == answer
    assert [(c["id"], c["source"]) for c in document.nb.cells] == [("a", "x = 1")]


@pytest.mark.parametrize("op", ["explode", "cells", "ping", "", "__init__"])
def test_a_change_the_contract_does_not_have_is_refused_even_for_a_missing_cell(op: str) -> None:
    document, _comm, _sent = _headless()
    assert document.change(op, {"id": "gone", "expected": "x = 1"}) == UNKNOWN


# -- the kernel: what a frontend replies -------------------------------------------------------

REPLIES: list[tuple[dict[str, Any], dict[str, Any] | None]] = [
    # (a reply as a frontend sent it, what the kernel reads in it; None: nothing was done)
    ({"done": True, "cell": "a", "source": "x"}, {"done": True, "cell": "a", "source": "x"}),
    ({"done": True}, {"done": True}),
    ({"done": "yes", "cell": "a"}, None),
    ({"done": 1, "cell": "a"}, None),
    ({"done": [True]}, None),
    ({}, None),
    ({"cells": []}, None),
    ({"data": "recorded"}, None),
    ({"done": True, "source": 5}, {"done": True}),
    ({"done": True, "cell": 5}, {"done": True, "cell": "5"}),
    ({"missing": "b", "done": True}, {"missing": "b"}),
    ({"missing": None, "done": True}, {"done": True}),
    ({"refused": "running", "done": True}, {"refused": "running"}),
    ({"refused": 7}, {"refused": "7"}),
    ({"refused": "", "done": True}, {"done": True}),
    ({"stale": True, "cell": "a", "source": "y"}, {"stale": True, "cell": "a", "source": "y"}),
    ({"stale": 1, "source": ["y"]}, {"stale": True, "cell": "", "source": ""}),
    ({"stale": True, "done": True}, {"stale": True, "cell": "", "source": ""}),
]


@pytest.mark.parametrize(("reply", "read"), REPLIES)
def test_the_kernel_takes_only_a_reply_the_contract_allows_as_done(
    reply: dict[str, Any], read: dict[str, Any] | None
) -> None:
    assert outcome(reply) == read


# -- the runs comm: what a frontend sends the kernel --------------------------------------------

UNCHANGED = ("ask", 5.0, "agent")
"""A new registry's settings and mode."""

FRONTEND: list[tuple[dict[str, Any], list[dict[str, Any]], tuple[str, float, str]]] = [
    # (a message from a frontend, what the kernel sends back, its settings and mode after)
    ({"type": "decide", "run": 1, "request": "r1", "approved": True}, [], UNCHANGED),
    ({"type": "decide", "run": "run-1", "request": None, "approved": True}, [], UNCHANGED),
    ({"type": "decide", "run": "run-1"}, [], UNCHANGED),
    (
        {"type": "decide", "run": "run-1", "request": "r1", "approved": True},
        [{"type": "decided", "run": "run-1", "request": "r1", "ok": False}],
        UNCHANGED,
    ),
    ({"type": "settings", "approve": "sometimes", "grace": 2}, [], UNCHANGED),
    ({"type": "settings", "approve": "AUTO", "grace": 2}, [], UNCHANGED),
    ({"type": "settings", "approve": "auto", "grace": "2"}, [], UNCHANGED),
    ({"type": "settings", "approve": "auto", "grace": True}, [], UNCHANGED),
    ({"type": "settings", "approve": "auto", "grace": 601}, [], UNCHANGED),
    ({"type": "settings", "approve": "auto"}, [], UNCHANGED),
    ({"type": "Settings", "approve": "auto", "grace": 2}, [], UNCHANGED),
    ({"type": "settings", "approve": "deny", "grace": 2}, [], ("deny", 2.0, "agent")),
    ({"type": "stop", "run": 1}, [], UNCHANGED),
    ({"type": "snapshot", "runs": []}, [], UNCHANGED),
    (
        {"type": "hello"},
        [{"type": "snapshot", "runs": []}, {"type": "mode", "mode": "agent"}],
        UNCHANGED,
    ),
    ({"type": "set_mode", "mode": "plan"}, [], ("ask", 5.0, "plan")),
    ({"type": "set_mode", "mode": "Plan"}, [], UNCHANGED),
    ({"type": "set_mode", "mode": "yolo"}, [], UNCHANGED),
    ({"type": "set_mode", "mode": ["ask"]}, [], UNCHANGED),
    ({"type": "set_mode"}, [], UNCHANGED),
    ({"type": "mode", "mode": "ask"}, [], UNCHANGED),  # the kernel's message
]


@pytest.mark.parametrize(("data", "sent", "settings"), FRONTEND)
def test_the_runs_comm_ignores_a_message_the_contract_does_not_allow(
    data: dict[str, Any], sent: list[dict[str, Any]], settings: tuple[str, float, str]
) -> None:
    registry = RunRegistry()
    channel = RunsChannel(registry, interval=0)
    comm = SimpleNamespace(sent=[], on_msg=lambda _cb: None, on_close=lambda _cb: None)
    comm.send = comm.sent.append
    channel._comms.adopt(comm)
    channel._on_msg(comm, {"content": {"data": data}})
    assert comm.sent == sent
    assert (registry.default_approve, registry.grace, registry.mode) == settings
