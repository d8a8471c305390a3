"""Run modes: ``ask`` (nothing changes), ``plan`` (a plan a person approves before anything
changes) and ``agent`` (the default: every tool, under the approval and sandbox policies).

The mode is the run's policy, not a request to the model: a tool that is not allowed in the
run's mode is not offered to the model, and a call to it (a name from the history, a
hallucination, another agent's tool) is refused without asking anyone; the model is told why.

- ``ask``: only tools that declare ``read_only`` (reading cells, outputs, variables and files,
  retrieval, searches) are offered. Nothing else: no shell, patch, code, MCP or agent tool,
  whatever it says of itself (an MCP server's ``readOnlyHint`` is its own claim, untrusted).
- ``plan``: the same, plus the tools that keep the plan (``plans``: ``update_plan``); a plan
  call waits for a person (Approve / Edit / Reject, never "always"). Approved, as sent or as
  the person edited it, the call sets that plan, the model is told the approved plan, and the
  run goes on in ``agent`` mode; rejected, the run ends with the person's reason as its
  final output.
- ``agent``: no restriction from the mode.

Handoffs stay offered: the mode belongs to the run, so the agent handed to runs under it too.
The mode a run is in now (a plan approved turns ``plan`` into ``agent``) is saved with its
``RunState``; a resumed run takes the stricter of that and ``RunConfig.mode``. A recorded run
replays its decisions, so its mode changes the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, TypeVar, get_args

from .tools.lookup_names import call_lookup_name

if TYPE_CHECKING:
    from .items import ToolCallOutputItem
    from .tools.capabilities import ToolCapabilities

__all__ = [
    "MODES",
    "Mode",
    "RunMode",
    "allowed_in",
    "locked_mode",
    "mode_refusal",
    "offered_in",
    "reviews_plan",
    "stricter",
]

Mode = Literal["ask", "plan", "agent"]
"""What a run may do (see the module docstring)."""

MODES: Final[tuple[Mode, ...]] = get_args(Mode)
"""Every ``Mode``."""

T = TypeVar("T", bound="ToolCapabilities")

PLAN_REJECTED = "The plan was rejected"
"""The start of a run's final output when a person rejected its plan."""


def locked_mode(mode: Mode) -> Mode:
    """``mode``, or the site's locked mode when that is stricter (``project/settings.py``)."""
    from .project.settings import site_locks

    lock = site_locks().get("mode")
    return mode if lock is None else stricter(lock.value, mode)


def stricter(first: Mode, second: Mode) -> Mode:
    """The stricter of two modes (``ask`` before ``plan`` before ``agent``): a resumed run's
    mode, from the one it was saved in and the one it is resumed with (a saved state, maybe a
    file someone sent, can make a run stricter, never freer)."""
    return first if MODES.index(first) <= MODES.index(second) else second


def allowed_in(mode: Mode, tool: ToolCapabilities) -> bool:
    """Whether ``tool`` may be offered and called in ``mode``."""
    return mode == "agent" or tool.read_only is True or reviews_plan(mode, tool)


def offered_in(mode: Mode, tools: Sequence[T]) -> list[T]:
    """The tools of ``tools`` a run in ``mode`` offers the model."""
    if mode == "agent":
        return list(tools)
    return [tool for tool in tools if allowed_in(mode, tool)]


def reviews_plan(mode: Mode, tool: ToolCapabilities | None) -> bool:
    """Whether a call of ``tool`` in ``mode`` is a plan a person approves before the run may
    act (``plan`` mode, a tool that keeps the plan)."""
    return mode == "plan" and tool is not None and tool.plans is True


def mode_refusal(mode: Mode, tool_name: str, switch: str | None = None) -> str:
    """What the model is told of a call ``mode`` does not allow (``switch``: how the person
    changes the mode, e.g. ``%agent mode agent``). It is true of any name the model sends: a
    tool that acts, and one that does not exist."""
    allowed = "tools that only read" if mode == "ask" else "tools that only read, and update_plan"
    how = f"switch with {switch}" if switch else "the person can switch to agent mode"
    return (
        f"{mode} mode: {tool_name} is not one of the {allowed}, so it was not run (nothing "
        f"may change in {mode} mode; {how}). Do not call it again in this mode."
    )


@dataclass
class RunMode:
    """The mode a run is in now, and how its plan review ended (saved with its state)."""

    mode: Mode = "agent"
    """The mode now (``plan`` becomes ``agent`` once a person approves the plan)."""

    rejected: str | None = None
    """Set when a person rejected the run's plan: the run's final output."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            from .errors import UserError  # not at import: %load_ext imports this module

            raise UserError(f"RunConfig.mode must be 'ask', 'plan' or 'agent', not {self.mode!r}.")

    def settle(
        self, outputs: Sequence[ToolCallOutputItem], tools: Mapping[str, ToolCapabilities]
    ) -> None:
        """After a batch of calls: a plan a person approved turns ``plan`` into ``agent``; a
        rejected one ends the run (``rejected``). ``tools``: the batch's tools by name."""
        if self.mode != "plan":
            return
        for output in outputs:
            call = output.call_item
            name = getattr(call.raw_item, "name", None) if call is not None else None
            if name and call is not None:
                name = call_lookup_name(call.raw_item, name)
            decision = output.approval
            if decision is None or not reviews_plan(self.mode, tools.get(name or "")):
                continue
            if not decision.approved:
                reason = (decision.message or "").strip()
                self.rejected = f"{PLAN_REJECTED}: {reason}" if reason else f"{PLAN_REJECTED}."
                return
            if output.status == "ok":
                self.mode = "agent"
