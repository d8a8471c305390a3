"""A run's plan in its view: the header's ``plan`` and the small card of an ``update_plan`` call.

The plan tool's kind draws a call as its checklist (the call's part) and ``3/7`` (its badge);
the view draws the latest plan above the run, so the card leaves out the raw arguments. Once a
call has set a plan (its output says so: a malformed or rejected plan sets none), the header
carries it; a later plan replaces it.
"""

from __future__ import annotations

from typing import Any

from ...runtime.tools.display import ToolDisplay
from ...runtime.tools.plan import PLAN, Plan, plan_of
from . import widget_state

__all__ = ["plan_state", "show_plan"]


def plan_state(plan: Plan) -> widget_state.Plan:
    """``plan`` as the header carries it."""
    state: widget_state.Plan = {"steps": [{"step": s.step, "status": s.status} for s in plan.steps]}
    if plan.explanation:
        state["explanation"] = plan.explanation
    return state


def show_plan(
    header: widget_state.Header,
    card: widget_state.ToolBlock,
    display: ToolDisplay,
    output: Any = None,
) -> None:
    """When ``display`` is a plan call's: a readable plan leaves the raw arguments off its
    card, and the plan its ``output`` item (a ``ToolCallOutputItem``) set goes to ``header``."""
    if display.kind != PLAN.name:
        return
    if display.badge:  # the plan read: its checklist and count stand for the arguments
        card["args"], card["args_cut"] = "", None
    plan = plan_of(output) if output is not None else None
    if plan is not None:
        header["plan"] = plan_state(plan)
