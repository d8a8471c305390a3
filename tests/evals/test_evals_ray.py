"""Evaluations on a local Ray (ray.init(num_cpus=2)): the cases run on Ray's actors and are
scored as their rows come back; with ``ray_keep_warm`` the next evaluation of the process runs
on the same actors (no start), each with its own agent."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd
import pytest
import ray

from jupyter_agents import Agent, release_ray_actors, tool, warm_ray_actors
from jupyter_agents.evals import evaluate, scorer
from tests.batch.row_model import RowModel
from tests.batch.test_ray_warm import local_ray  # noqa: F401  (the fixture)

pytestmark = pytest.mark.timeout(300)


@tool
def where(to: str) -> str:
    """Where the case ran: ``to|actor id|process id``."""
    return f"{to}|{ray.get_runtime_context().get_actor_id()}|{os.getpid()}"


@scorer
def answered(case: Any, run: Any) -> bool:
    """The answer is the case's own (the tool ran for it)."""
    return bool(str(run.output).split("|")[0] == case.inputs)


def actors(report: Any) -> set[str]:
    return {str(case.output).split("|")[1] for case in report.cases}


def test_two_evaluations_share_warm_actors(local_ray: Any) -> None:  # noqa: F811
    dataset = pd.DataFrame({"input": list("abcdef"), "expected": list("abcdef")})
    options: dict[str, Any] = {"backend": "ray", "ray_keep_warm": True, "cache": False}
    first = evaluate(
        Agent(name="v1", model=RowModel("where"), tools=[where]),
        dataset,
        scorers=[answered],
        concurrency=4,
        progress=None,
        **options,
    )
    assert first.averages() == {"answered": 1.0}
    assert len(actors(first)) == 2 and warm_ray_actors() == 2
    second = evaluate(
        Agent(name="v2", model=RowModel("where"), tools=[where]),
        dataset,
        scorers=[answered],
        concurrency=4,
        progress=None,
        **options,
    )
    assert second.averages() == {"answered": 1.0}
    assert actors(second) <= actors(first)  # no actor started for the second
    assert release_ray_actors() == 2
