"""Who decides an agent cell's calls: the handler a ``%%agent`` run asks (``--approve``, the
card, the plan), what a run nobody shows says (a headless run refuses after a grace period),
the run's words for a call its mode refused, and what a call to an unknown tool does."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from ...runtime.approvals import ApprovalDecision, ApprovalHandler, ApprovalRequest, OnLoop
from ...runtime.modes import Mode, mode_refusal
from ...runtime.run_config import ToolErrorFormatter, ToolErrorFormatterArgs, ToolNotFoundBehavior
from ..magics.mode_magic import SWITCH

if TYPE_CHECKING:
    from ..host import NotebookHost
    from ..run_registry import RunRecord
    from ..view.view_protocol import LiveView
    from .options import CellOptions

__all__ = [
    "UNKNOWN_TOOL",
    "approval_grace",
    "approval_handler",
    "headless_message",
    "how_to_switch",
    "refuse_if_unseen",
]


UNKNOWN_TOOL: ToolNotFoundBehavior = "return_error_to_model"
"""What a notebook run does with a call to a tool its agent does not offer: it tells the model,
which can correct itself while a person watches, where the runtime (as the SDK) ends the run."""


def approval_grace(host: NotebookHost | None = None) -> float:
    """Seconds a pending approval waits for a frontend to show the run before it is refused:
    ``JUPYTER_AGENTS_APPROVAL_GRACE``, else the JupyterLab extension's setting, else 5."""
    if "JUPYTER_AGENTS_APPROVAL_GRACE" in os.environ:
        return float(os.environ["JUPYTER_AGENTS_APPROVAL_GRACE"])
    return host.runs.grace if host is not None else 5.0


def headless_message(tool_name: str, *, question: bool = False, plan: bool = False) -> str:
    if plan:
        return (
            "nobody can approve it here (no notebook frontend is showing this run), so the run "
            "ends without acting. Run the cell in JupyterLab to approve, edit or reject the plan"
        )
    if question:
        return (
            f"No notebook frontend is showing this run, so nobody can answer {tool_name!r}'s "
            "question; it was skipped. Run the cell interactively to answer it."
        )
    return (
        f"No notebook frontend is showing this run, so nobody can approve {tool_name!r}; the "
        "call was rejected. Run the cell interactively, or use %%agent --approve auto."
    )


def approval_handler(
    opts: CellOptions, view: LiveView, host: NotebookHost, record: RunRecord
) -> ApprovalHandler:
    """Who decides the cell's calls: ``--approve`` says, for calls. Questions (``ask_user``,
    an MCP server's) are always put to the person, unless ``JUPYTER_AGENTS_ASK=skip``; so is
    the plan of a run in ``plan`` mode, unless ``--approve deny`` (which rejects it)."""
    loop = asyncio.get_running_loop()

    def ask(request: ApprovalRequest) -> Any:
        if request.question is not None and os.environ.get("JUPYTER_AGENTS_ASK") == "skip":
            return request.skip("JUPYTER_AGENTS_ASK=skip: questions are skipped in this run")
        if request.question is None and opts.approve == "auto" and not request.plan_review:
            return ApprovalDecision.approve()  # a plan is the person's to approve, always
        if request.question is None and opts.approve == "deny":
            return ApprovalDecision.reject("denied by %%agent --approve deny")
        waiting = view.inbox(request)
        host.runs.waiting(record, request, waiting)
        if request.note is not None:  # why this call is asked (its outcome is unknown)
            view.add_notice(request.note, "warning")
        if not view.rendered.is_set():
            loop.call_later(approval_grace(host), refuse_if_unseen, view, request)
        return waiting

    return OnLoop(ask)  # it only registers the request: called on the run's loop


def how_to_switch(mode: Mode) -> ToolErrorFormatter:
    """The run's words for a call its ``mode`` refused: they name the ``%agent mode`` line
    that lets it run (every other message keeps the runtime's words)."""

    def reword(args: ToolErrorFormatterArgs[Any]) -> str | None:
        return mode_refusal(mode, args.tool_name, SWITCH) if args.kind == "mode_refused" else None

    return reword


def refuse_if_unseen(view: LiveView, request: ApprovalRequest) -> None:
    """Reject ``request`` when no frontend has shown ``view`` by now (a headless run)."""
    if view.rendered.is_set():
        return
    question = request.question is not None
    message = headless_message(request.tool_name, question=question, plan=request.plan_review)
    # A skipped question's card says why, a rejected plan's header too; a replay of the run
    # (which has no notice) reads the same.
    decided = view.decide(request.request_id, ApprovalDecision.reject(message))
    if decided and not question and not request.plan_review:
        view.add_notice(message, "warning")
