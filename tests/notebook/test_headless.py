"""``python -m jupyter_agents.headless``: the headless main job says what happened."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_agents.headless import CellFailure, advice, main, summarize

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


def test_a_stream_written_in_pieces_reads_as_its_text() -> None:
    pieces = ["Toky", "o is", " clo", "udy.\nOs", "lo is wet."]
    cell = {"outputs": [{"output_type": "stream", "name": "stdout", "text": p} for p in pieces]}
    cell["outputs"].insert(3, {"output_type": "stream", "name": "stderr", "text": "careful\n"})
    assert summarize(cell) == ["Tokyo is clo", "careful", "udy.", "Oslo is wet."]  # as written
    whole = {"outputs": [{"output_type": "stream", "name": "stdout", "text": p} for p in pieces]}
    assert summarize(whole) == ["Tokyo is cloudy.", "Oslo is wet."]


@pytest.mark.parametrize(
    ("ename", "evalue", "said"),
    [
        ("ModuleNotFoundError", "No module named 'pandas'", "pip install pandas, then run"),
        ("ModuleNotFoundError", "No module named 'sklearn.linear'", "pip install scikit-learn,"),
        ("NameError", "name 'df' is not defined", "define the name in a cell before it"),
        ("UsageError", "%agent: unknown command", "correct the magic's words"),
        ("AgentRunError", "UserError: No OpenAI API key", "its card in the executed notebook"),
        ("ValueError", "bad", "read the traceback in the executed notebook"),
    ],
)
def test_each_kind_of_failure_says_what_to_do(ename: str, evalue: str, said: str) -> None:
    assert said in advice(CellFailure(3, "x = 1", ename, evalue))


def test_help_names_every_setting_a_headless_run_reads(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    shown = capsys.readouterr().out
    package = Path(__file__).resolve().parents[2] / "jupyter_agents"
    read = set()
    for module in (
        "notebook/cells/cell.py",
        "notebook/cells/cell_approvals.py",
        "notebook/cells/options.py",
        "notebook/cells/cell_replay.py",
    ):
        read |= set(re.findall(r"JUPYTER_AGENTS_[A-Z_]+", (package / module).read_text()))
    read -= {"JUPYTER_AGENTS_REPLAY", "JUPYTER_AGENTS_NOTEBOOK"}  # a headless run needs neither
    assert read >= {"JUPYTER_AGENTS_APPROVE", "JUPYTER_AGENTS_ASK", "JUPYTER_AGENTS_APPROVAL_GRACE"}
    for name in [*sorted(read), "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_DEFAULT_MODEL"]:
        assert name in shown, f"--help does not mention {name}"
    assert "exit status" in shown and "replays it" in shown


@pytest.mark.kernel
def test_a_failed_run_ends_with_the_first_failed_cell_its_error_and_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = tmp_path / "broken.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Broken"),
        nbformat.v4.new_code_cell("import not_installed_anywhere as nia"),
        nbformat.v4.new_code_cell("%load_ext jupyter_agents\n%agent stauts"),  # printed only
        nbformat.v4.new_code_cell("nia.run()"),
    ]
    nbformat.write(nb, notebook)
    assert main([str(notebook)]) == 1
    shown = capsys.readouterr().out
    summary = shown[shown.index("3 cells failed.") :]
    assert summary.splitlines()[:3] == [
        "3 cells failed. The first: cell [2] (import not_installed_anywhere as nia)",
        "    ModuleNotFoundError: No module named 'not_installed_anywhere'",
        "    What to do: pip install not_installed_anywhere, then run the notebook again.",
    ]
    assert "Also failed: [3] UsageError, [4] NameError. Fix the first one first:" in summary
    assert f"Each cell's traceback is in {tmp_path / 'broken.out.ipynb'}." in summary
