"""The gate on a realistic scale: 1,000 cases, a baseline agent right on 95% of them, a worse
one on 90%, and the same agent run again. Which cases an agent gets right follows each case's
difficulty (drawn per seed), and each run flips 1% of its answers at random (the noise of a
model run twice). With ``--max-drop 0.02`` the gate must catch the worse agent for all of ten
seeds and pass the unchanged one for all of ten."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import EqualsExpected

from jupyter_agents.evals import EvalReport, aevaluate
from jupyter_agents.evals.gate import main

from .agents import answering

CASES = 1_000
DATASET = Dataset[str, str, None](
    name="thousand",
    cases=[
        Case(name=f"case {i}", inputs=f"case {i}", expected_output=f"answer {i}")
        for i in range(CASES)
    ],
    evaluators=[EqualsExpected()],
)


async def run(seed: int, quality: float, take: str, difficulty: list[float]) -> EvalReport:
    noise = random.Random(f"{seed}/{take}")
    right = {i for i, d in enumerate(difficulty) if (d < quality) != (noise.random() < 0.01)}

    def answer(prompt: str) -> str:
        i = int(prompt.split()[1])
        return f"answer {i}" if i in right else "no idea"

    agent = answering(f"agent {take}", answer)
    return await aevaluate(agent, DATASET, concurrency=64, cache=False, progress=None)


@pytest.mark.parametrize("seed", range(10))
async def test_the_gate_catches_a_5_point_drop_and_passes_an_unchanged_agent(
    seed: int, tmp_path: Path
) -> None:
    rng = random.Random(seed)
    difficulty = [rng.random() for _ in range(CASES)]
    baseline = await run(seed, 0.95, "baseline", difficulty)
    worse = await run(seed, 0.90, "worse", difficulty)
    again = await run(seed, 0.95, "again", difficulty)
    base_path = baseline.to_json(tmp_path / "baseline.json")
    assert abs(baseline.averages()["EqualsExpected"] - 0.95) < 0.03
    drop = baseline.averages()["EqualsExpected"] - worse.averages()["EqualsExpected"]
    assert 0.03 < drop < 0.07
    gate = ["gate", str(base_path), "--max-drop", "0.02"]
    with (tmp_path / "out").open("w") as out:
        assert main([*gate[:2], str(worse.to_json(tmp_path / "worse.json")), *gate[2:]], out) == 1
        assert main([*gate[:2], str(again.to_json(tmp_path / "again.json")), *gate[2:]], out) == 0
