"""One tool call of a batch: what it uses of its run, its state, and its pure steps.

A call goes through these steps, in order (``ToolBatch._run_one`` shows them): open it (its
kind, tool and arguments), check its arguments, decide (whether it needs approval, and the
decision), invoke it or answer the refusal, escalate (a call the sandbox stopped under
``on-failure`` asks once to run outside it: decide and invoke again), and report its output.
The steps with no I/O live here; the batch reaches deciding, invoking and reporting through a
``CallSteps`` (``.tool_steps``: the live steps, ``.tool_approvals`` and ``.tool_invoke``; a
run with a cassette wraps them, ``.tool_replay``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from ..errors import ModelBehaviorError
from ..items import ToolApprovalItem, ToolCallItem, ToolCallOutputItem
from ..modes import RunMode
from ..sandbox.policy import EscalationRequest
from ..tools.kinds import ParsedCall, ToolKind, chat_form_kind, kind_for_call
from ..tools.lookup_names import call_lookup_name
from .tool_checks import Outcome

if TYPE_CHECKING:
    from ..agent import Agent
    from ..approval_ledger import ApprovalLedger
    from ..approvals import ApprovalDecision, ApprovalHandler
    from ..context import RunContextWrapper
    from ..lifecycle import HookCaller
    from ..replay import RunReplay
    from ..run_config import RunConfig
    from ..run_state import RunState
    from ..tool_guardrails import ToolInputGuardrailResult, ToolOutputGuardrailResult
    from ..tools.kinds import LocalTool
    from ..tracing import Span
    from .progress import Paused

__all__ = [
    "ToolCall",
    "ToolRun",
    "Verdict",
    "check_arguments",
    "escalate",
    "open_call",
    "report",
    "resume_escalation",
]


Verdict: TypeAlias = Literal["run", "approved", "refused", "waiting"]
"""What the decide step concluded for a call: ``run`` (nobody needs to decide, or a recording
answers it), ``approved`` (a decision let this very call run), ``refused`` (answer the
refusal), ``waiting`` (nobody decides now: the run pauses with the call)."""


@dataclass(slots=True)  # not frozen: built for every batch, and frozen init costs twice as much
class ToolRun:
    """What the calls of one batch use of their run (the turn builds one per batch)."""

    agent: Agent[Any]
    """The agent whose model made the calls."""

    enabled: Mapping[str, LocalTool]
    """The tools of executable kinds the agent offers now, by name."""

    kinds: Mapping[str, ToolKind[Any, Any]]
    """The kind of each tool of ``enabled``, by name."""

    all_names: Sequence[str]
    """Every tool name of the agent, offered now or not (for the "not available" message)."""

    context: RunContextWrapper[Any]
    """The run's context."""

    run_config: RunConfig
    """The run's settings (tool timeout, tool-not-found behaviour, error formatter)."""

    hooks: HookCaller
    """The run's lifecycle hooks (``tool_start`` / ``tool_end``)."""

    span: Span[Any]
    """The agent's span; each invocation's span goes under it."""

    ledger: ApprovalLedger
    """Decisions made for calls (a resumed run's) and standing "always" decisions."""

    handler: ApprovalHandler | None
    """Who decides while the run waits; None: a call needing a decision pauses the run."""

    waiting: Paused
    """What a paused run saved for its calls: escalated arguments and nested runs, taken by
    the call they belong to."""

    input_results: list[ToolInputGuardrailResult]
    """Where the outcomes of tool input guardrails go."""

    output_results: list[ToolOutputGuardrailResult]
    """Where the outcomes of tool output guardrails go."""

    mode: RunMode = field(default_factory=RunMode)
    """The run's mode now (which tools it allows; whether a plan call waits for a person)."""

    replay: RunReplay | None = None
    """Records the run's calls, or answers them from a recording (the batch's steps wrap the
    live ones with it: ``.tool_replay``)."""


@dataclass(slots=True)
class ToolCall:
    """One call as it goes through the steps."""

    index: int
    """Its place in the response (outputs go back in call order)."""

    item: ToolCallItem
    """The call item the run emitted."""

    kind: ToolKind[Any, Any]
    """The kind that runs it."""

    chat_form: bool
    """Whether it came in the Chat Completions form of its kind (a ``function_call``)."""

    parsed: ParsedCall
    """Its tool name, call id and the model's arguments."""

    tool: LocalTool | None
    """The enabled tool of its kind it names; None when the agent does not offer it now."""

    arguments: str
    """The arguments it runs with: the model's, then edited or escalated ones."""

    escalation: str | None = None
    """Why the sandbox stopped it, once it asks to run outside the sandbox."""

    declined: Any = None
    """What the sandboxed run produced: the answer if a person keeps it in the sandbox."""

    decision: ApprovalDecision | None = None
    """The last decision on it (reported with its output)."""

    verdict: Verdict = "run"
    """What the last decide step concluded (see ``Verdict``)."""

    asked: ToolApprovalItem | None = None
    """The approval item of the last decide step (the interruption if the run pauses)."""

    nested: RunState | None = None
    """An agent tool's nested run that paused for approvals (this run pauses with it)."""

    key: str = ""
    """The name its tool is found and approved by: ``namespace.name`` for a call to a
    namespaced function tool (``tool_namespace``), else the tool's name."""

    unknown: bool = False
    """Set when the call was running when the run this one resumes was cut off: a person
    decides whether it runs again, alone (no standing decision, no ``on_approval``)."""


def open_call(index: int, item: ToolCallItem, run: ToolRun) -> ToolCall:
    """The first step: which kind runs the call, its tool and the model's arguments."""
    raw = item.raw_item
    chat_kind = chat_form_kind(raw, run.enabled.get(getattr(raw, "name", "")))
    kind, chat_form = (chat_kind, True) if chat_kind else (_kind_of(item), False)
    parsed = kind.parse_chat_call(raw) if chat_form else kind.parse_call(raw)
    key = call_lookup_name(raw, parsed.name)  # ``namespace.name`` for a namespaced call
    tool = run.enabled.get(key)
    if tool is not None and run.kinds[key] is not kind:
        tool = None  # a tool of that name, but of another kind: not this call's
    return ToolCall(index, item, kind, chat_form, parsed, tool, parsed.arguments, key=key)


def _kind_of(item: ToolCallItem) -> ToolKind[Any, Any]:
    kind = kind_for_call(item.raw_item.type)
    if kind is None or not kind.executable:  # finish_turn only sends executable calls
        raise ModelBehaviorError(f"No tool kind runs {item.raw_item.type!r} items.")
    return kind


def check_arguments(call: ToolCall) -> Outcome | None:
    """Arguments that cannot be used at all (e.g. not a JSON object): an error for the model,
    before any approval or invocation (the run ends instead, raising ``ModelBehaviorError``,
    for a function tool whose ``failure_error_function`` is None, as in the SDK). None when
    they are usable (or there is no tool to check them against: invoking says so)."""
    if call.tool is None:
        return None
    problem = call.kind.argument_problem(call.tool, call.arguments)
    if problem is None:
        return None
    if call.kind.name == "function" and call.tool.failure_error_function is None:
        raise ModelBehaviorError(problem)  # as in the SDK: no handler, so the run ends
    return Outcome.failed(problem, "ToolArgumentsError")


def resume_escalation(call: ToolCall, waiting: Paused) -> None:
    """A call the sandbox stopped before the run paused asks again to run outside it, with
    the arguments the person was shown."""
    saved = waiting.escalations.pop(call.parsed.call_id, None)
    if saved is not None:
        call.arguments = saved
        call.escalation = str(call.kind.parsed_arguments(saved).get("justification", ""))


def escalate(call: ToolCall, outcome: Outcome) -> bool:
    """Whether the call goes round again, asking to run outside the sandbox: the sandbox
    stopped it under ``on-failure`` and it has not asked yet (a call asks once)."""
    request = outcome.value
    if not isinstance(request, EscalationRequest) or call.escalation:
        return False
    call.escalation, call.declined = request.reason, request.value
    call.arguments = call.kind.escalated_arguments(call.arguments, request.reason)
    return True


def report(call: ToolCall, outcome: Outcome, agent: Agent[Any]) -> ToolCallOutputItem:
    """The last step: the output item answering the call."""
    if isinstance(outcome.value, EscalationRequest):  # stopped again after asking: as it ran
        outcome = Outcome(outcome.value.value)
    value = outcome.value
    kind = call.kind
    to_item = kind.chat_output_item if call.chat_form else kind.output_item
    return ToolCallOutputItem(
        agent=agent,
        raw_item=to_item(call.parsed, value),
        output=value,
        approval=call.decision,
        status=outcome.status,
        error=outcome.error,
        call_item=call.item,
    )
