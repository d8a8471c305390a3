"""``python -m jupyter_agents.headless``: the headless main job says what happened."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_agents.headless import main

from .notebook_helpers import NOTEBOOKS, OPENAI_ENV, RUN_TIMEOUT


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


@pytest.mark.kernel
def test_a_headless_run_talks_to_its_kernel_over_ipc_and_prints_no_tcp_warning(
    tmp_path: Path,
) -> None:
    notebook = tmp_path / "quickstart.ipynb"
    shutil.copy(NOTEBOOKS / "quickstart.ipynb", notebook)
    env = {k: v for k, v in os.environ.items() if k not in OPENAI_ENV}
    env["JUPYTER_AGENTS_APPROVE"] = "auto"
    done = subprocess.run(
        [sys.executable, "-m", "jupyter_agents.headless", notebook.name],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    assert "Agent run notebook · demo-model · done" in done.stdout
    assert "Kernel is running over TCP" not in done.stderr, done.stderr
    left = {p.name for p in tmp_path.iterdir()} - {"quickstart.ipynb", "quickstart.out.ipynb"}
    assert not [name for name in left if "kernel" in name or "ipc" in name]  # sockets went too
