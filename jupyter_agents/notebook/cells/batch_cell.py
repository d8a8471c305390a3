"""``%%agent --over DATAFRAME``: the cell is a prompt template, run for every row.

The result goes to ``--out NAME`` (default ``batch_result``) and is shown as a table; rows that
wait for review (``--approve ask``, the default, which is ``run_batch(approve="review")``) get a
review table under it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from IPython.core.error import UsageError
from IPython.display import display

from ...runtime.agent import Agent
from ...runtime.batch import BatchControl, BatchResult, arun_batch
from ...runtime.batch.row import ApproveMode
from ...runtime.cost import RunCost
from ...runtime.errors import UserError
from ...runtime.run import RunConfig
from ..host import NotebookHost
from ..magics.costs import CostEntry
from ..view.batch_view import BatchView, ReviewView
from .cell_approvals import UNKNOWN_TOOL
from .cell_replay import cell_cassette, keep_recording
from .options import CellOptions

__all__ = ["run_batch_cell"]

# A person cannot be asked row by row: the cell's ``ask`` (its default, as for one run) is the
# API's ``review``, and ``review`` is taken as it is.
APPROVE: dict[str, ApproveMode] = {
    "ask": "review",
    "review": "review",
    "auto": "auto",
    "deny": "deny",
}


PLAN_SUFFIX = "\n\nFollow this plan, which the person approved for every row:\n"
"""Put after a batch's prompt when its plan was agreed (plan mode)."""


class PlanNotAgreed(Exception):
    """The person rejected the batch's plan, or the model proposed none: no row runs."""


async def agree_plan(host: NotebookHost, opts: CellOptions, task: str) -> str:
    """Plan mode for a batch or an evaluation: one run, shown in the cell, in which the model
    proposes the plan for every row and the person approves, edits or rejects it once; the
    approved plan as a checklist. ``PlanNotAgreed`` when there is none."""
    from ...runtime.agent import StopAtTools
    from ...runtime.tools.plan import latest_plan
    from . import _tool_output
    from .cell import _drive, _prepare

    cell = host.current_cell()
    planning = dataclasses.replace(opts, over=None, eval=None, out=None, mode="plan")
    run = _prepare(host, planning, task, cell=f"{cell}/plan", literal=True,
                   conversation=f"batch-plan:{cell}")  # fmt: skip
    stop_at_plan = StopAtTools(stop_at_tool_names=["update_plan"])  # the rows act, not this run
    run.agent = run.agent.clone(tool_use_behavior=stop_at_plan)
    _tool_output.install()
    run.view.display()
    run.view.set_status("running")
    await _drive(host, planning, run)
    result = host.last_result
    plan = latest_plan(result)
    if result is None or result.plan_rejected or plan is None or result.mode != "agent":
        why = getattr(result, "plan_rejected", None) or "no plan was approved"
        raise PlanNotAgreed(f"{why}; no row ran.")
    return plan.checklist()


def planning_task(what: str, total: int, template: str) -> str:
    """The planning run's prompt: the batch's task, for a plan that covers every row."""
    count = f"each of the {total} rows" if total else "each row"
    return (
        f"You will do the task below once for {count} of {what}. First propose, with "
        "update_plan, the plan you will follow for every row; nothing runs until the person "
        f"approves it.\n\nThe task (a template; {{name}} stands for a row's value):\n{template}"
    )


@dataclass
class CellBatch:
    """What a batch cell (``--over``, ``--eval``) runs with: the agent, the batch's options
    from the cell's flags and the notebook's settings, its progress widget, and the cell's
    recording (every row's run, kept in the cell)."""

    agent: Agent[Any]
    options: dict[str, Any]
    """``arun_batch``'s (and ``aevaluate``'s) keyword arguments."""
    cell: str
    cassette: Any

    @classmethod
    async def start(cls, host: NotebookHost, opts: CellOptions, total: int) -> CellBatch:
        """Set the batch up and show its progress widget (``total`` rows; 0: said at start)."""
        model = host.resolve_model(opts.model) if opts.model else None
        chosen = host.choose_agent(opts.agent)
        mode = opts.mode or host.runs.mode  # every row runs in the notebook's mode
        if mode == "plan":
            mode = "agent"  # the plan was agreed before the rows (``agree_plan``)
        control = BatchControl()
        cell = host.current_cell()
        cassette = await cell_cassette(host, cell, None)
        options = {
            "concurrency": opts.concurrency,
            "max_turns": opts.max_turns,
            "run_config": RunConfig(
                model=model,
                mode=mode,
                tool_not_found_behavior=UNKNOWN_TOOL,
                **host.policy.run_config_fields(),
            ),
            "backend": opts.backend,
            "ray_keep_warm": opts.keep_warm,
            "approve": APPROVE[opts.approve],
            "fresh": opts.fresh,
            "progress": BatchView(total, control),
            "control": control,
            "cassette": cassette,
            "max_cost_usd": _least(host.costs.budget_for_cell(), chosen.budget),  # all rows
        }
        return cls(chosen.agent, options, cell, cassette)


def _least(first: Decimal | None, second: Decimal | None) -> Decimal | None:
    """The smaller budget of two (None: no budget)."""
    return second if first is None else first if second is None else min(first, second)


async def run_batch_cell(host: NotebookHost, opts: CellOptions, body: str) -> BatchResult:
    """Run the batch the cell describes; returns its result (also stored in the namespace)."""
    assert opts.over is not None
    if opts.over not in host.shell.user_ns:
        raise UsageError(f"%%agent --over: no variable named {opts.over!r}.")
    rows = host.shell.user_ns[opts.over]
    template = body.strip()
    if not template:
        raise UsageError("%%agent --over: write the prompt below the %%agent line, e.g. {text}.")
    total = len(rows) if hasattr(rows, "__len__") else 0
    if (opts.mode or host.runs.mode) == "plan":  # one plan, approved once, for every row
        try:
            plan = await agree_plan(host, opts, planning_task(opts.over, total, template))
        except PlanNotAgreed as e:
            print(f"jupyter_agents: the batch did not run: {e}")
            return BatchResult([], batch_id="", stopped=True)
        template += PLAN_SUFFIX + plan.replace("{", "{{").replace("}", "}}")
    batch = await CellBatch.start(host, opts, total)
    agent = batch.agent
    try:
        result = await arun_batch(
            agent,
            rows,
            prompt=template,
            requests_per_minute=opts.rpm,
            tokens_per_minute=opts.tpm,
            **batch.options,
        )
    except UserError as e:
        raise UsageError(f"%%agent --over: {e}") from None
    await keep_recording(host, batch.cell, batch.cassette)
    name = opts.out or "batch_result"
    host.shell.user_ns[name] = result
    display(result)
    _keep_cost(host, batch.cell, agent.name, result)
    print(f"jupyter_agents: the result is in {name!r} ({name}.to_pandas() for a DataFrame)")
    if result.waiting:
        ReviewView(result, on_result=lambda new: _replace(host, name, new)).display()
    return result


def _keep_cost(host: NotebookHost, cell: str, agent: str, result: BatchResult) -> None:
    """Say what the rows cost and what the whole batch would (the projection), and count it
    in the notebook's spend (``%agent cost``, ``%agent budget --notebook``)."""
    projection = result.cost
    if projection is None:
        return
    ran = [r for r in result.rows if r.status != "pending" and not r.from_store]
    known = all(r.cost_usd is not None for r in ran)
    spent = projection.spent_usd
    cost = RunCost(spent if known else None, spent, known)
    if ran:
        shown = str(projection) if known else f"{projection}; some rows' price is unknown"
        print(f"jupyter_agents: cost {shown}")
    tokens = sum(r.tokens for r in ran)
    host.costs.add(CostEntry(cell, agent, "batch", "batch", tokens, cost))


def _replace(host: NotebookHost, name: str, new: BatchResult) -> None:
    host.shell.user_ns[name] = new
    display(new)
