"""``update_plan``: the model keeps a short checklist of its task (Codex's tool of that name).

The model sends the whole plan each time, ``{"explanation"?: str, "plan": [{"step": str,
"status": "pending" | "in_progress" | "completed"}]}``, with at most one step in progress, and
is answered ``Plan updated``. Nothing runs: the call's arguments are the point, for people to
watch. A plan that does not have that shape is an error message to the model (the call's
output, status ``error``), saying what to fix.

``PlanTool`` is its own tool kind (``"plan"``), offered as a function tool on both wire
formats; its card is small (the checklist as the call's part, ``3/7`` as the badge), because
user interfaces draw the latest plan above the run. ``latest_plan`` gives a finished run's
last plan to scripts; ``plan_of`` reads the plan one call set.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, get_args

from ..approvals import approved_call
from ..errors import ToolArgumentsError
from .capabilities import ToolCapabilities
from .display import STEP_MARKS, DisplayPart, StepStatus, ToolDisplay, output_parts
from .function.function_form import FunctionFormKind
from .kinds import ParsedCall, register_tool_kind

if TYPE_CHECKING:
    from ..approvals import NeedsApproval
    from ..context import ToolContext

__all__ = [
    "MAX_STEPS",
    "PLAN_UPDATED",
    "STEP_MARKS",
    "Plan",
    "PlanStep",
    "PlanTool",
    "StepStatus",
    "latest_plan",
    "plan_of",
]

PLAN_UPDATED = "Plan updated"
"""What the model is told when its plan was taken."""

MAX_STEPS = 50
"""The most steps a plan may have."""

MAX_TEXT = 1_000
"""The longest step or explanation, in characters."""

_STATUSES: tuple[str, ...] = get_args(StepStatus)
_SHAPE = '{"step": "...", "status": "pending" | "in_progress" | "completed"}'

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "explanation": {
            "type": "string",
            "description": "Why the plan changed, when it did (optional).",
        },
        "plan": {
            "type": "array",
            "description": "Every step of the task, in order.",
            "items": {
                "type": "object",
                "properties": {
                    "step": {"type": "string", "description": "A short sentence."},
                    "status": {"type": "string", "enum": list(_STATUSES)},
                },
                "required": ["step", "status"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["plan"],
    "additionalProperties": False,
}

_DESCRIPTION = (
    "Record your plan for the task as a checklist the user sees, and keep it current. Send "
    "every step each time, each with its status (pending, in_progress or completed); at most "
    "one step is in_progress. Mark a step completed when it is done and the next one "
    "in_progress. Give an explanation when the plan changes. Skip it for simple requests."
)


@dataclass(frozen=True)
class PlanStep:
    """One step of a plan."""

    step: str
    """What the step does, in a short sentence."""

    status: StepStatus
    """``pending``, ``in_progress`` or ``completed``."""


@dataclass(frozen=True)
class Plan:
    """The plan an ``update_plan`` call set: the whole checklist, as the model sent it."""

    steps: tuple[PlanStep, ...]
    """The steps, in order."""

    explanation: str | None = None
    """Why the plan changed, when the model said."""

    @property
    def completed(self) -> int:
        """How many steps are completed."""
        return sum(1 for s in self.steps if s.status == "completed")

    @property
    def current(self) -> PlanStep | None:
        """The step in progress, if one is."""
        return next((s for s in self.steps if s.status == "in_progress"), None)

    @property
    def progress(self) -> str:
        """Completed steps of all, e.g. ``"3/7"``."""
        return f"{self.completed}/{len(self.steps)}"

    def checklist(self) -> str:
        """The plan as text: one line per step, marked ``○`` pending, ``◐`` in progress,
        ``✓`` completed, after the explanation when there is one."""
        lines = [f"{STEP_MARKS[s.status]} {s.step}" for s in self.steps]
        return "\n".join([self.explanation, *lines] if self.explanation else lines)

    def to_json(self) -> dict[str, Any]:
        """The plan in the tool's argument shape."""
        plan = [{"step": s.step, "status": s.status} for s in self.steps]
        return (
            {"explanation": self.explanation, "plan": plan} if self.explanation else {"plan": plan}
        )

    @classmethod
    def parse(cls, arguments: str | Mapping[str, Any]) -> Plan:
        """Read ``update_plan`` arguments (JSON text or a dict).

        Raises:
            ToolArgumentsError: They are not a plan; the message (one line, for the model)
                says what to fix.
        """
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError:
                _wrong("the arguments are not valid JSON; send a JSON object")
        if not isinstance(arguments, Mapping):
            _wrong('the arguments must be a JSON object with a "plan" list')
        if extra := sorted(set(arguments) - {"explanation", "plan"}):
            _wrong(f'unknown field {extra[0]!r}; send only "plan" and "explanation"')
        explanation = arguments.get("explanation")
        if explanation is not None and not isinstance(explanation, str):
            _wrong('"explanation" must be a string')
        if isinstance(explanation, str) and len(explanation) > MAX_TEXT:
            _wrong(f'"explanation" is longer than {MAX_TEXT:,} characters; shorten it')
        items = arguments.get("plan")
        if not isinstance(items, list):
            _wrong(f'"plan" must be a list of steps like {_SHAPE}')
        if len(items) > MAX_STEPS:
            _wrong(f"the plan has {len(items)} steps; give at most {MAX_STEPS}")
        steps = tuple(_step(n, item) for n, item in enumerate(items, 1))
        running = [n for n, s in enumerate(steps, 1) if s.status == "in_progress"]
        if len(running) > 1:
            _wrong(
                f"steps {', '.join(map(str, running))} are all in_progress; at most one step "
                "may be in_progress"
            )
        note = explanation.strip() if isinstance(explanation, str) else ""
        return cls(steps=steps, explanation=note or None)


def _step(number: int, item: Any) -> PlanStep:
    if not isinstance(item, Mapping):
        _wrong(f"step {number} must be an object like {_SHAPE}")
    if extra := sorted(set(item) - {"step", "status"}):
        _wrong(f'step {number} has unknown field {extra[0]!r}; give only "step" and "status"')
    text, status = item.get("step"), item.get("status")
    if not isinstance(text, str):
        _wrong(f'step {number} needs "step", a short sentence (a string)')
    if not text.strip():
        _wrong(f'step {number} is empty; give "step" a short sentence')
    if len(text) > MAX_TEXT:
        _wrong(f"step {number} is longer than {MAX_TEXT:,} characters; shorten it")
    if status not in _STATUSES:
        _wrong(
            f"step {number} has status {json.dumps(status)}; use pending, in_progress or completed"
        )
    return PlanStep(step=" ".join(text.split()), status=status)


def _wrong(problem: str) -> NoReturn:
    raise ToolArgumentsError(f"update_plan: {problem}. Call update_plan again with the fix.")


@dataclass
class PlanTool(ToolCapabilities):
    """The ``update_plan`` tool: the model keeps a plan (a checklist) that people watch.

    ``Agent(tools=[PlanTool()])``. The notebook agent has it by default. After a run,
    ``latest_plan`` gives its last plan. In ``plan`` mode each call is the plan a person
    approves (or edits, or rejects) before the run may act (``runtime/modes.py``).
    """

    plans: ClassVar[bool] = True

    name: str = "update_plan"
    """The name the model calls it by."""

    description: str = _DESCRIPTION
    """What the model is told about it."""

    is_enabled: Any = True
    """Whether the model sees the tool; a callable ``(run_context, agent)`` decides per turn."""

    needs_approval: NeedsApproval = False
    """As for any tool (a plan changes nothing, so nobody is asked by default)."""

    params_json_schema: dict[str, Any] = field(
        default_factory=lambda: _SCHEMA, init=False, repr=False, compare=False
    )
    """The JSON schema of the arguments (the plan's, always)."""

    def validate_arguments(self, arguments: dict[str, Any]) -> str | None:
        """Why ``arguments`` are not a plan (one line), or None when they are."""
        try:
            Plan.parse(arguments)
        except ToolArgumentsError as e:
            return str(e)
        return None


class PlanKind(FunctionFormKind[PlanTool, str]):
    """The plan tool's kind: a function tool on both wire formats (not strict: "explanation"
    is optional), checked before it runs."""

    def __init__(self) -> None:
        super().__init__(name="plan", tool_classes=(PlanTool,), executable=True)

    def argument_problem(self, tool: PlanTool, arguments: str) -> str | None:
        try:
            Plan.parse(arguments)
        except ToolArgumentsError as e:
            return str(e)
        return None

    async def invoke(self, tool: PlanTool, ctx: ToolContext[Any], arguments: str) -> str:
        plan = Plan.parse(arguments)  # checked before, but a resumed run may bring other ones
        if approved_call.get() != ctx.tool_call_id:
            return PLAN_UPDATED
        sent = getattr(ctx.tool_call, "arguments", None)
        try:
            edited = sent is None or Plan.parse(sent) != plan
        except ToolArgumentsError:
            edited = True
        return approved_text(plan, edited=edited)

    def output_item(self, call: ParsedCall, value: str) -> dict[str, Any]:
        return self.chat_output_item(call, value)

    def describe(self, raw: Any, output: object = None) -> ToolDisplay:
        call = self.parse_chat_call(raw)
        told = () if output is None else output_parts(output)
        try:
            plan = Plan.parse(call.arguments)
        except ToolArgumentsError:  # shown as sent: the card's arguments and the error
            arguments = self.parsed_arguments(call.arguments)
            return ToolDisplay(kind=self.name, title=call.name, arguments=arguments, parts=told)
        return ToolDisplay(
            kind=self.name,
            title=call.name,
            arguments=plan.to_json(),
            parts=(DisplayPart("text", plan.checklist(), role="call"), *told),
            badge=plan.progress,
        )


def approved_text(plan: Plan, *, edited: bool) -> str:
    """What the model is told when a person approved its plan (``edited``: changed it first):
    the plan it now carries out, in full, so an edit is what it works from."""
    how = "approved this plan after editing it" if edited else "approved this plan"
    return (
        f"The person {how}; you may act now. Carry it out step by step, keeping it updated "
        f"with update_plan:\n{plan.checklist()}"
    )


def plan_of(output_item: Any, call_item: Any = None) -> Plan | None:
    """The plan an ``update_plan`` call set: ``output_item`` is a ``ToolCallOutputItem``
    (``call_item``: its call, when the item does not carry it). None when the call was not a
    plan tool's, or did not set a plan (malformed, rejected, failed)."""
    if getattr(output_item, "type", None) != "tool_call_output_item":
        return None
    call_item = getattr(output_item, "call_item", None) or call_item
    decision = getattr(output_item, "approval", None)
    if call_item is None or output_item.status != "ok" or (decision and not decision.approved):
        return None
    raw = call_item.raw_item
    if getattr(raw, "type", None) != "function_call" or not _is_plan_call(call_item, output_item):
        return None
    edited = decision.arguments if decision is not None else None  # the person's plan wins
    try:
        return Plan.parse(edited if edited is not None else raw.arguments or "")
    except ToolArgumentsError:
        return None


def _is_plan_call(call_item: Any, output_item: Any) -> bool:
    recorded = getattr(output_item, "display", None)  # a replayed call: the kind recorded it
    if isinstance(recorded, ToolDisplay):
        return recorded.kind == PLAN.name
    named = getattr(getattr(call_item, "agent", None), "tool_named", None)
    return callable(named) and isinstance(named(call_item.raw_item.name), PlanTool)


def latest_plan(run: Any) -> Plan | None:
    """The last plan a run set, or None when it set none.

    ``run`` is a run's result (its ``new_items``) or a list of run items.
    """
    items: Iterable[Any] = getattr(run, "new_items", run)
    calls: dict[str, Any] = {}
    plan = None
    for item in items:
        if getattr(item, "type", None) == "tool_call_item" and item.call_id:
            calls[item.call_id] = item
        elif (found := plan_of(item, calls.get(getattr(item, "call_id", "")))) is not None:
            plan = found
    return plan


PLAN = PlanKind()
"""The kind of the plan tool."""

register_tool_kind(PLAN)
