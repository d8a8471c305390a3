"""notebooks/evals.ipynb in a real kernel, offline: a dataset scored with %%agent --eval (the
report's text form, failing case first), scored again without the model, two agents compared
on 1,000 cases, and the CI gate failing on the worse one."""

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

pytest.importorskip("pydantic_evals", reason="the evals extra: pip install 'jupyter_agents[evals]'")
NOTEBOOK = NOTEBOOKS / "evals.ipynb"


def shown(nb: object, cell_id: str) -> str:
    """The text forms of what the cell displayed."""
    outputs = cell(nb, cell_id).outputs  # type: ignore[arg-type]
    return "".join(str(o.get("data", {}).get("text/plain", "")) for o in outputs)


def test_stored_without_outputs() -> None:
    assert_stored_without_outputs(NOTEBOOK)


@pytest.mark.kernel
@pytest.mark.timeout(RUN_TIMEOUT)
def test_scores_compares_and_gates_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    nb = run_notebook(NOTEBOOK, monkeypatch)
    assert_clean(nb)
    report = shown(nb, "eval")
    assert "6 cases, 5 passed, 1 failing" in report
    rows = [line.split()[0] for line in report.splitlines() if line[:1].isalpha()]
    assert rows.index("hamlet") < rows.index("france")  # the failing case first
    assert "the report is in 'report'" in stdout(nb, "eval")
    assert "model calls during rescore: 0" in stdout(nb, "rescored")
    assert "'short': 1.0" in stdout(nb, "rescored")
    versus = shown(nb, "versus")
    assert "Comparison 'v1 on thousand' (A) -> 'v2 on thousand' (B)" in versus
    assert "55 worse" in versus
    gate = stdout(nb, "gate")
    assert "FAIL EqualsExpected" in gate and "exit status 1" in gate
