"""notebooks/notebook-agent.ipynb run by the headless runner (``python -m
jupyter_agents.headless``), offline: the scripted model reads the notebook and a DataFrame,
inserts a table cell and a chart cell and runs them; the executed notebook holds both, with
their outputs, and the namespace has what they made."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from .notebook_helpers import NOTEBOOKS, assert_stored_without_outputs

NOTEBOOK = NOTEBOOKS / "notebook-agent.ipynb"


def test_stored_without_outputs() -> None:
    assert_stored_without_outputs(NOTEBOOK)


@pytest.mark.kernel
@pytest.mark.timeout(180)
def test_the_headless_runner_builds_the_analysis_in_new_cells(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / NOTEBOOK.name
    shutil.copy(NOTEBOOK, path)
    run = subprocess.run(
        [sys.executable, "-m", "jupyter_agents.headless", str(path)],
        capture_output=True,
        text=True,
        timeout=170,
        env={"JUPYTER_AGENTS_APPROVE": "auto", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = nbformat.read(path.with_suffix(".out.ipynb"), as_version=4)
    nbformat.validate(out)
    original = [c.get("id") for c in nbformat.read(NOTEBOOK, as_version=4).cells]
    assert [c.get("id") for c in out.cells[: len(original)]] == original
    table, chart = out.cells[len(original) :]  # the agent's two cells, at the end
    assert table.source.startswith("by_region = sales.groupby")
    assert chart.source.startswith("import matplotlib.pyplot as plt")
    shown = table.outputs[0]["data"]["text/plain"]
    assert "north       400" in shown and "west        201" in shown
    assert any("image/png" in o.get("data", {}) for o in chart.outputs)  # the chart itself
    agent = next(c for c in out.cells if c.get("id") == "run")
    assert table.execution_count < chart.execution_count < agent.execution_count
    after = next(c for c in out.cells if c.get("id") == "after")
    assert after.outputs[0]["text"] == "True north\n"
    assert "North sells most (400 in Q1)" in run.stdout
