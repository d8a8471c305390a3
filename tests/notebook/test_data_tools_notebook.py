"""notebooks/data-tools.ipynb in a real kernel, offline: the code interpreter on its own kernel
reads a CSV and plots it, notebook Python builds a summary in the notebook's namespace, and
retrieval answers from a folder of documents."""

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

NOTEBOOK = NOTEBOOKS / "data-tools.ipynb"


def test_stored_without_outputs() -> None:
    assert_stored_without_outputs(NOTEBOOK)


@pytest.mark.kernel
@pytest.mark.timeout(RUN_TIMEOUT)
def test_runs_offline_with_the_data_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    nb = run_notebook(NOTEBOOK, monkeypatch, JUPYTER_AGENTS_APPROVE="auto")
    assert_clean(nb)
    assert "rows: 12 | workspace: ['sales.csv']" in stdout(nb, "setup")
    tools = stdout(nb, "tools")
    assert "can use 'code_interpreter'" in tools and "can use 'notebook_python'" in tools
    after = stdout(nb, "after")
    assert "Feb        375   0.087" in after  # the summary the agent made, in the namespace
    shown = "".join(str(o.get("data", {}).get("text/html", "")) for o in cell(nb, "run").outputs)
    assert "north    400" in shown  # the interpreter's printed output, in the transcript
    assert "data:image/png;base64," in shown  # the plot
    assert "New or changed variables: summary (DataFrame 3×2)" in shown
    assert "indexed 1 file(s)" in stdout(nb, "docs")
    assert "[1] notes/targets.md § Sales targets &gt; North" in shown  # retrieval's answer
