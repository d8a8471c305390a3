"""The CI gate: ``python -m jupyter_agents.evals gate BASELINE CURRENT --max-drop D`` exits 0
(no scorer dropped more than D), 1 (one did, or went missing) or 2 (bad input), one line per
scorer or one line of error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import jupyter_agents
from jupyter_agents.evals import CaseResult, CaseRun, EvalReport, Score
from jupyter_agents.evals.gate import main

ROOT = Path(jupyter_agents.__file__).resolve().parents[1]


def report(name: str, passed: list[bool], quality: list[float]) -> EvalReport:
    cases = [
        CaseResult(
            key=str(i),
            name=f"case {i}",
            inputs=f"q{i}",
            run=CaseRun(output="a"),
            scores={"correct": Score("correct", ok), "quality": Score("quality", q)},
        )
        for i, (ok, q) in enumerate(zip(passed, quality, strict=True))
    ]
    return EvalReport(name=name, cases=cases)


def gate(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "jupyter_agents.evals", "gate", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


@pytest.fixture
def reports(tmp_path: Path) -> dict[str, Path]:
    base = report("base", [True] * 9 + [False], [0.8] * 10)
    same = report("same", [True] * 9 + [False], [0.81] * 10)
    worse = report("worse", [True] * 7 + [False] * 3, [0.8] * 10)
    paths = {n: r.to_json(tmp_path / f"{n}.json") for n, r in [("base", base), ("same", same)]}
    paths["worse"] = worse.to_json(tmp_path / "worse.json")
    (tmp_path / "other.json").write_text(json.dumps({"format": "something else"}))
    (tmp_path / "broken.json").write_text("{")
    paths["other"], paths["broken"] = tmp_path / "other.json", tmp_path / "broken.json"
    return paths


def test_the_gate_passes_an_unchanged_report(reports: dict[str, Path]) -> None:
    done = gate(reports["base"], reports["same"], "--max-drop", "0.02")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "ok   correct: 0.9000 -> 0.9000 (+0.0000)",
        "ok   quality: 0.8000 -> 0.8100 (+0.0100)",
    ]


def test_the_gate_fails_a_drop_larger_than_allowed(reports: dict[str, Path]) -> None:
    done = gate(reports["base"], reports["worse"], "--max-drop", "0.02")
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == "FAIL correct: 0.9000 -> 0.7000 (-0.2000)"
    assert gate(reports["base"], reports["worse"], "--max-drop", "0.25").returncode == 0


@pytest.mark.parametrize(
    ("baseline", "current", "says"),
    [
        ("missing", "base", "Cannot read"),
        ("base", "other", "Not an evaluation report"),
        ("broken", "base", "is not JSON"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    reports: dict[str, Path], tmp_path: Path, baseline: str, current: str, says: str
) -> None:
    paths = {**reports, "missing": tmp_path / "missing.json"}
    done = gate(paths[baseline], paths[current])
    assert done.returncode == 2
    assert len(done.stdout.splitlines()) == 1 and says in done.stdout


def test_bad_options_exit_2(reports: dict[str, Path]) -> None:
    assert main(["gate", str(reports["base"]), str(reports["same"]), "--max-drop", "x"]) == 2
    assert main(["gate", str(reports["base"]), str(reports["same"]), "--max-drop", "-1"]) == 2
    assert main(["gate", str(reports["base"])]) == 2
    assert main(["nope"]) == 2


def test_a_scorer_missing_now_fails_and_a_new_one_passes(tmp_path: Path) -> None:
    base = report("base", [True], [1.0])
    current = report("current", [True], [1.0])
    for case in current.cases:
        case.scores = {"correct": case.scores["correct"], "new": Score("new", 0.5)}
    lines = []
    out = tmp_path / "out.txt"
    with out.open("w") as stream:
        code = main(
            [
                "gate",
                str(base.to_json(tmp_path / "a.json")),
                str(current.to_json(tmp_path / "b.json")),
            ],
            out=stream,
        )
    lines = out.read_text().splitlines()
    assert code == 1
    assert "FAIL quality: 1.0000 -> missing from the current report" in lines
    assert "ok   new: new, 0.5000" in lines
