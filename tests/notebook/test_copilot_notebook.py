"""notebooks/copilot.ipynb in a real kernel, offline: ask mode refuses the change, a headless
plan-mode cell is rejected without acting, the cell for Fix fails as its text says (and the
cells after it run), and the runtime's plan run acts on the edited plan. The chat, Fix and
Ctrl+I on this notebook are driven in JupyterLab by tests/e2e/test_copilot_notebook_lab.py."""

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

NOTEBOOK = NOTEBOOKS / "copilot.ipynb"
TABLE = "the table: {'Paris': 120, 'Oslo': 80, 'Lima': 95}"


def test_stored_without_outputs() -> None:
    assert_stored_without_outputs(NOTEBOOK)


@pytest.mark.kernel
@pytest.mark.timeout(RUN_TIMEOUT)
def test_shows_the_modes_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    nb = run_notebook(NOTEBOOK, monkeypatch, JUPYTER_AGENTS_APPROVAL_GRACE="1")
    assert_clean(nb)
    ask = stdout(nb, "ask-check").splitlines()
    assert ask[0].startswith("the model was told: ask mode: drop_city is not one of the")
    assert ask[1] == "describe_sales said: Paris: 120, Oslo: 80, Lima: 95"  # a read-only tool ran
    assert ask[2] == TABLE
    plan = stdout(nb, "plan-check").splitlines()
    assert plan[0] == "mode at the end: plan"
    assert plan[1].startswith("final output: The plan was rejected: nobody can approve it here")
    assert plan[2] == TABLE
    (error,) = cell(nb, "fix").outputs
    assert (error.output_type, error.ename) == ("error", "ZeroDivisionError")
    assert cell(nb, "write").source == ""  # for Ctrl+I
    runtime = stdout(nb, "runtime").splitlines()
    assert runtime == [
        "the model was told: The person approved this plan after editing it; you may act now. "
        "Carry it out step by step, keeping it updated with update_plan:",
        "mode at the end: agent",
        "final output: Reported only, as you asked.",
    ]
