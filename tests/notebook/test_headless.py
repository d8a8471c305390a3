"""``python -m jupyter_agents.headless``: the headless main job says what happened."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from jupyter_agents.headless import main

from .notebook_helpers import NOTEBOOKS


@pytest.mark.kernel
def test_headless_run_prints_each_agent_run_and_writes_the_executed_notebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JUPYTER_AGENTS_APPROVE", "auto")
    notebook = tmp_path / "quickstart.ipynb"
    shutil.copy(NOTEBOOKS / "quickstart.ipynb", notebook)
    assert main([str(notebook)]) == 0
    shown = capsys.readouterr().out
    assert "Agent run notebook · demo-model · done" in shown
    assert "✓ send_email(to='ana@example.com'" in shown
    assert "I emailed it to ana@example.com." in shown
    assert "| send_email | Send an email. |" in shown  # %agent tools, readable
    out = tmp_path / "quickstart.out.ipynb"
    assert f"The executed notebook is {out}" in shown
    executed = nbformat.read(out, as_version=4)
    assert any(cell.get("outputs") for cell in executed.cells)


def test_a_missing_notebook_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nowhere.ipynb"]) == 2
    assert capsys.readouterr().out == "No notebook at nowhere.ipynb.\n"
