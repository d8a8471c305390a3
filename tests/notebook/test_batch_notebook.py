"""notebooks/batch.ipynb in a real kernel, offline: a DataFrame classified row by row with
%%agent --over, the result as a table, a second run served from the store, and run_batch."""

from __future__ import annotations

import pytest

from .notebook_helpers import (
    NOTEBOOKS,
    RUN_TIMEOUT,
    assert_clean,
    assert_stored_without_outputs,
    cell,
    stdout,
)
from .notebook_helpers import execute as run_notebook

NOTEBOOK = NOTEBOOKS / "batch.ipynb"


def test_stored_without_outputs() -> None:
    assert_stored_without_outputs(NOTEBOOK)


@pytest.mark.kernel
@pytest.mark.timeout(RUN_TIMEOUT)
def test_classifies_the_tickets_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    nb = run_notebook(NOTEBOOK, monkeypatch, JUPYTER_AGENTS_APPROVE="auto")
    assert_clean(nb)
    table = "".join(str(o.get("data", {}).get("text/html", "")) for o in cell(nb, "table").outputs)
    for ticket, label in [
        ("T-101", "billing"),
        ("T-102", "bug"),
        ("T-103", "praise"),
        ("T-104", "question"),
    ]:
        assert ticket in table and label in table
    assert "the result is in 'labels'" in stdout(nb, "run")
    assert "model calls: 0 | from the store: 6" in stdout(nb, "calls")  # the second batch
    shown = "".join(str(o.get("data", {}).get("text/html", "")) for o in cell(nb, "python").outputs)
    assert "billing" in shown and "ok" in shown
