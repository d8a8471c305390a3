"""notebooks/steering.ipynb in a real kernel, offline and unattended: the plan demo ends with its
plan complete, the question nobody can answer reads "skipped" (not "rejected"), and what the
runs cost is listed."""

from __future__ import annotations

import nbformat
import pytest

from .notebook_helpers import (
    NOTEBOOKS,
    RUN_TIMEOUT,
    assert_clean,
    assert_stored_without_outputs,
    cell,
)
from .notebook_helpers import execute as run_notebook

NOTEBOOK = NOTEBOOKS / "steering.ipynb"


def test_stored_without_outputs() -> None:
    assert_stored_without_outputs(NOTEBOOK)


def shown(nb: nbformat.NotebookNode, cell_id: str, mime: str) -> str:
    """What the cell's outputs hold of ``mime``."""
    return "".join(str(o.get("data", {}).get(mime, "")) for o in cell(nb, cell_id).outputs)


@pytest.mark.kernel
@pytest.mark.timeout(RUN_TIMEOUT)
def test_runs_unattended_with_its_plan_complete_and_its_question_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nb = run_notebook(NOTEBOOK, monkeypatch, JUPYTER_AGENTS_APPROVAL_GRACE="1")
    assert_clean(nb)
    plan = shown(nb, "ef811d4b", "text/markdown")
    assert "plan · 3/3" in plan and "◐" not in plan  # every step done when the run says done
    assert shown(nb, "ef811d4b", "text/plain").startswith("Agent run notebook · gpt-4o-mini · done")
    asked = shown(nb, "33c97e56", "text/html")
    assert 'title="skipped"' in asked and 'title="rejected"' not in asked
    assert "asked: Which table, and how many months? · skipped" in asked
    assert "**total**" in shown(nb, "243281f6", "text/markdown")
