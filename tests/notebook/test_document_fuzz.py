"""Junk and valid changes, at random, against the headless runner's document: the notebook
stays valid (nbformat), nothing raises, and a change naming a source the cell no longer holds
never applies (nor does a move or an insert next to a cell that no longer holds the source
its card showed)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import nbformat
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_agents.notebook.workspace.headless_document import HeadlessDocument

IDS = ["a", "b", "c", "gone", "", None, 3, ["a"]]
SOURCES = st.one_of(st.text(max_size=20), st.none(), st.integers(), st.lists(st.text(max_size=3)))
ARGS = st.fixed_dictionaries(
    {},
    optional={
        "id": st.sampled_from(IDS),
        "after": st.sampled_from(IDS),
        "before": st.sampled_from(IDS),
        "expected": SOURCES,
        "after_expected": SOURCES,
        "source": SOURCES,
        "cell_type": st.sampled_from(["code", "markdown", "raw", "heading", None, 1]),
    },
)
OPS = st.sampled_from(["insert", "edit", "delete", "move", "cells", "explode", ""])


class FakeClient:
    def __init__(self) -> None:
        cells = [nbformat.v4.new_code_cell(s) for s in ("x = 1", "y = 2", "# c")]
        for cell, cell_id in zip(cells, "abc", strict=True):
            cell["id"] = cell_id
        self.nb = nbformat.v4.new_notebook(cells=cells)
        self.comm_open_handlers: dict[str, Any] = {}
        self.kc = SimpleNamespace()


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(OPS, ARGS), max_size=12))
def test_random_changes_leave_a_valid_notebook(changes: list[tuple[str, dict[str, Any]]]) -> None:
    client = FakeClient()
    document = HeadlessDocument(client, "nb.ipynb")
    for op, args in changes:
        before = {c["id"]: c["source"] for c in client.nb.cells}
        reply = document.change(op, args)
        assert isinstance(reply, dict)
        if op in ("edit", "delete", "move") and reply.get("done"):
            assert before[args["id"]] == args["expected"]  # applied only to what was shown
        anchor = args.get("after")
        if op == "insert" and anchor is None:
            anchor = args.get("before")
        if op in ("insert", "move") and anchor is not None and reply.get("done"):
            shown = args.get("expected" if op == "insert" else "after_expected")
            assert before[anchor] == shown  # next to the cell as its card showed it
        nbformat.validate(client.nb)
    assert len({c["id"] for c in client.nb.cells}) == len(client.nb.cells)  # ids stay unique
