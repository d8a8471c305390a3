"""Types reach users: a user's ``mypy --strict`` on a script using the public API (Agent,
Runner, tool, RunConfig) reports no error, and sees the real types (the package ships
``py.typed`` and a written-out ``__all__``), not ``Any``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("user_script.py")


@pytest.mark.timeout(300)
def test_a_users_strict_mypy_sees_the_public_api_typed(tmp_path: Path) -> None:
    copy = tmp_path / "user_script.py"  # outside the project: as a user's own file
    copy.write_text(SCRIPT.read_text())
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(copy)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    said = run.stdout + run.stderr
    notes = [line for line in said.splitlines() if "note: Revealed type" in line]
    errors = [line for line in said.splitlines() if ": error:" in line]
    assert errors == [], said
    assert len(notes) == 3, said
    runner, tool, budget = notes
    assert "def [TContext] (" in runner or "Coroutine" in runner, runner
    assert "FunctionTool" in tool, tool
    assert "float" in budget and "Any" not in budget, budget
