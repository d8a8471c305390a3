"""A notebook executed by ``python -m jupyter_agents.headless`` keeps the saved forms of its
evaluation reports, its comparison and its batches (``saved_forms.py``), so JupyterLab draws
them when the executed notebook is opened, not only their text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest

from jupyter_agents.headless import main
from jupyter_agents.notebook.saved import saved_forms

from .notebook_helpers import OPENAI_ENV, RUN_TIMEOUT

pytest.importorskip("pydantic_evals", reason="the evals extra: pip install 'jupyter_agents[evals]'")

CELLS = [
    """%load_ext jupyter_agents
import os, tempfile
import pandas as pd
from pydantic_evals.evaluators import EqualsExpected
from jupyter_agents import Agent
from jupyter_agents.evals import compare
from jupyter_agents.testing import ScriptedModel, text
os.chdir(tempfile.mkdtemp())
qa = pd.DataFrame({"input": ["a", "b"], "expected": ["A", "B"]}, index=["x", "y"])
def agent(name, answers):
    return Agent(name=name, model=ScriptedModel(respond=lambda r: text(answers[r.user_text])))
v1 = agent("v1", {"a": "A", "b": "B"})
v2 = agent("v2", {"a": "A", "b": "<script>no</script>"})
checks = [EqualsExpected()]
rows = pd.DataFrame({"text": ["one", "two", "three"]})
%agent model ScriptedModel(respond=lambda r: text("label"))""",
    "%%agent v1 --eval qa --scorer checks --out a",
    "%%agent v2 --eval qa --scorer checks --out b",
    "compare(a, b)",
    "%%agent --over rows --out labels\nLabel: {text}",
]


def saved(cell: Any, mime: str) -> list[dict[str, Any]]:
    """The states of the cell's outputs of type ``mime``."""
    return [
        saved_forms.decode(output["data"][mime])
        for output in cell.get("outputs", [])
        if mime in output.get("data", {})
    ]


@pytest.mark.kernel
@pytest.mark.timeout(RUN_TIMEOUT)
def test_the_executed_notebook_holds_the_saved_forms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in OPENAI_ENV:
        monkeypatch.delenv(name, raising=False)
    notebook = tmp_path / "evals.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, notebook)
    assert main([str(notebook)]) == 0
    cells = nbformat.read(tmp_path / "evals.out.ipynb", as_version=4).cells

    for cell, title in [(cells[1], "v1 on qa"), (cells[2], "v2 on qa")]:
        (progress,) = saved(cell, saved_forms.BATCH_MIME_TYPE)
        assert progress["outcome"] == "done" and progress["finished"] == 2
        (report,) = saved(cell, saved_forms.EVAL_MIME_TYPE)
        assert report["mode"] == "report" and report["title"] == title
    (versus,) = saved(cells[3], saved_forms.EVAL_MIME_TYPE)
    assert (
        versus["mode"] == "compare" and versus["summary"] == "2 cases in both · 1 worse · 0 better"
    )
    assert versus["cases"][0]["output_b"] == "<script>no</script>"  # data; drawn as text
    (batch,) = saved(cells[4], saved_forms.BATCH_MIME_TYPE)
    assert batch["outcome"] == "done" and batch["line"].startswith("3/3 rows")
    for cell in cells[1:]:
        for output in cell.outputs:
            data = output.get("data", {})
            if saved_forms.WIDGET_VIEW_MIME_TYPE in data:  # every widget has its fallbacks
                assert {"text/plain", "text/html", "text/markdown"} <= set(data)
