"""The gate given only a baseline: ``python -m jupyter_agents.evals run MODULE:FUNCTION``
saves a report that remembers its function, and ``gate BASELINE.json`` runs that function
again; with the runs in a cassette, offline (the model there raises if it is asked)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jupyter_agents

ROOT = Path(jupyter_agents.__file__).resolve().parents[1]

SUITE = """
import os
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import EqualsExpected
from jupyter_agents import Agent
from jupyter_agents.evals import evaluate
from jupyter_agents.testing import ScriptedModel, text

RIGHT = {"France": "Paris", "Japan": "Tokyo", "Peru": "Lima", "Chad": "N'Djamena"}
DATASET = Dataset(
    name="capitals",
    cases=[Case(name=c, inputs=c, expected_output=a) for c, a in RIGHT.items()],
    evaluators=[EqualsExpected()],
)


def model(answers):
    if os.environ.get("SUITE_OFFLINE"):
        def refuse(request):
            raise RuntimeError("the model was asked while offline")
        return ScriptedModel(respond=refuse)
    return ScriptedModel(respond=lambda request: text(answers[request.user_text]))


def run():
    agent = Agent(name="capitals", model=model(RIGHT))
    return evaluate(agent, DATASET, cassette="capitals.cassette", cache=False, progress=None)


async def worse():
    from jupyter_agents.evals import aevaluate
    agent = Agent(name="capitals", model=model(RIGHT | {"Chad": "Abuja"}))
    return await aevaluate(agent, DATASET, cache=False, progress=None)


def not_a_report():
    return 42


def broken():
    raise ValueError("no dataset here")
"""


def cli(tmp_path: Path, *args: str, offline: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SUITE_OFFLINE", None)
    if offline:
        env["SUITE_OFFLINE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "jupyter_agents.evals", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=False,
    )


def test_a_baseline_remembers_its_evaluation_and_the_gate_runs_it_offline(tmp_path: Path) -> None:
    (tmp_path / "suite.py").write_text(SUITE)
    made = cli(tmp_path, "run", "suite:run", "--out", "baseline.json")
    assert made.returncode == 0, made.stdout + made.stderr
    assert made.stdout.strip() == "capitals: 4 cases, saved to baseline.json"
    saved = json.loads((tmp_path / "baseline.json").read_text())
    assert saved["source"] == "suite:run" and saved["averages"] == {"EqualsExpected": 1.0}
    assert (tmp_path / "capitals.cassette").exists()

    # Offline: the cassette answers every case, so the model (which would raise) is not asked.
    same = cli(tmp_path, "gate", "baseline.json", "--max-drop", "0.02", offline=True)
    assert (same.returncode, same.stdout.strip()) == (
        0,
        "ok   EqualsExpected: 1.0000 -> 1.0000 (+0.0000)",
    ), same.stderr

    worse = cli(tmp_path, "gate", "baseline.json", "--run", "suite:worse", "--max-drop", "0.02")
    assert worse.returncode == 1, worse.stdout + worse.stderr
    assert worse.stdout.strip() == "FAIL EqualsExpected: 1.0000 -> 0.7500 (-0.2500)"


def test_a_gate_without_anything_to_compare_says_what_to_give(tmp_path: Path) -> None:
    (tmp_path / "suite.py").write_text(SUITE)
    assert cli(tmp_path, "run", "suite:run", "--out", "base.json").returncode == 0
    data = json.loads((tmp_path / "base.json").read_text())
    (tmp_path / "plain.json").write_text(json.dumps(data | {"source": None}))
    (tmp_path / "foreign.json").write_text(json.dumps(data | {"source": "os:getcwd"}))
    cases = [
        (("gate", "plain.json"), "the baseline names no evaluation to run"),
        # A report file is data: it cannot make the gate call an installed module's function.
        (("gate", "foreign.json"), "'os:getcwd', which is not a module under this folder"),
        (("gate", "foreign.json", "--run", "os:getcwd"), "returned str, not an EvalReport"),
        (("gate", "base.json", "--run", "nowhere:run"), "cannot import 'nowhere'"),
        (("gate", "base.json", "--run", "suite"), "'suite' is not MODULE:FUNCTION"),
        (("gate", "base.json", "--run", "suite:missing"), "suite has no function 'missing'"),
        (("gate", "base.json", "--run", "suite:not_a_report"), "returned int, not an EvalReport"),
        (("gate", "base.json", "base.json", "--run", "suite:run"), "not both"),
        (("run", "suite:broken"), "suite:broken failed: ValueError: no dataset here"),
    ]
    for args, says in cases:
        done = cli(tmp_path, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        line = done.stdout.strip()
        assert says in line and "\n" not in line and "Traceback" not in done.stderr, args
