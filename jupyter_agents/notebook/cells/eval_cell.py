"""``%%agent --eval DATASET [--scorer VAR ...]``: evaluate the cell's agent on a dataset.

``DATASET`` is a variable (a ``pydantic_evals.Dataset``, a list of ``Case``, a DataFrame with
``input`` / ``expected`` columns) or the path of a YAML / JSON dataset file; each ``--scorer``
names a variable holding one more evaluator (or a list of them). The cell, when not empty, is
the prompt template of every case (``{input}``: the case's input). The cases run as a batch
(``--concurrency``, ``--backend``, ``--fresh``, ``--rpm``, ``--tpm`` and ``--approve`` as for
``--over``), recorded in the cell, so running the cell again replays them without the model;
the report goes to ``--out`` (default ``eval_report``) and is shown as the report widget.
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError
from IPython.display import display

from ...runtime.errors import UserError
from ..host import NotebookHost
from .batch_cell import PLAN_SUFFIX, CellBatch, PlanNotAgreed, agree_plan, planning_task
from .cell_replay import keep_recording
from .options import CellOptions

__all__ = ["run_eval_cell"]


def _dataset(host: NotebookHost, name: str) -> Any:
    if name in host.shell.user_ns:
        return host.shell.user_ns[name]
    if name.isidentifier():
        raise UsageError(f"%%agent --eval: no variable named {name!r} (nor a dataset file).")
    return name  # a file's path: evaluate() says what is wrong with it


def _scorers(host: NotebookHost, names: tuple[str, ...]) -> list[Any]:
    from pydantic_evals.evaluators import Evaluator

    found: list[Any] = []
    for name in names:
        if name not in host.shell.user_ns:
            raise UsageError(f"%%agent --eval: no variable named {name!r} for --scorer.")
        value = host.shell.user_ns[name]
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        if not all(isinstance(v, Evaluator) for v in values):
            raise UsageError(
                f"%%agent --eval: --scorer {name} is not a scorer (an Evaluator such as "
                "EqualsExpected(), ToolTrajectory(...) or scorer(fn))."
            )
        found += values
    return found


async def run_eval_cell(host: NotebookHost, opts: CellOptions, body: str) -> Any:
    """Run the evaluation the cell describes; returns its report (also in the namespace)."""
    assert opts.eval is not None
    try:
        from ...evals import aevaluate
    except ImportError:
        raise UsageError(
            "%%agent --eval needs pydantic-evals: pip install 'jupyter_agents[evals]'."
        ) from None
    dataset = _dataset(host, opts.eval)
    scorers = _scorers(host, opts.scorers)
    prompt = body.strip() or None
    if (opts.mode or host.runs.mode) == "plan":  # one plan, approved once, for every case
        template = prompt or "{input}"
        try:
            plan = await agree_plan(host, opts, planning_task(opts.eval, 0, template))
        except PlanNotAgreed as e:
            print(f"jupyter_agents: the evaluation did not run: {e}")
            return None
        prompt = template + PLAN_SUFFIX + plan.replace("{", "{{").replace("}", "}}")
    batch = await CellBatch.start(host, opts, 0)  # the batch says how many cases at start
    try:
        report = await aevaluate(
            batch.agent,
            dataset,
            scorers=scorers,
            name=f"{batch.agent.name} on {opts.eval}",
            prompt=prompt,
            requests_per_minute=opts.rpm,
            tokens_per_minute=opts.tpm,
            **batch.options,
        )
    except UserError as e:
        raise UsageError(f"%%agent --eval: {e}") from None
    await keep_recording(host, batch.cell, batch.cassette)
    name = opts.out or "eval_report"
    host.shell.user_ns[name] = report
    display(report)
    print(f"jupyter_agents: the report is in {name!r} ({name}.to_pandas() for a DataFrame)")
    return report
