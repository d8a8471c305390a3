"""The steps of one tool call, each on its own, and the order the batch runs them in.

A call goes: open, check arguments, (resume a saved escalation), decide when it needs approval,
invoke or answer the refusal, escalate (then decide and invoke once more), report. These tests
drive each step with fake tools, kinds and handlers (no model, no run), and the batch with fake
steps that record what ran.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Callable
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest
from openai.types.responses import ResponseFunctionToolCall

from jupyter_agents.runtime._run import tool_batch, tool_steps
from jupyter_agents.runtime._run.progress import Paused
from jupyter_agents.runtime._run.tool_approvals import MAX_EDIT_ATTEMPTS, Approvals, needs_approval
from jupyter_agents.runtime._run.tool_batch import ToolBatch
from jupyter_agents.runtime._run.tool_call import (
    ToolCall,
    ToolRun,
    check_arguments,
    escalate,
    open_call,
    report,
    resume_escalation,
)
from jupyter_agents.runtime._run.tool_checks import Outcome
from jupyter_agents.runtime._run.tool_invoke import invoke
from jupyter_agents.runtime.agent import Agent
from jupyter_agents.runtime.agent_tool import AgentTool, NestedRunPaused, nested_resume
from jupyter_agents.runtime.approval_ledger import ApprovalLedger
from jupyter_agents.runtime.approvals import ApprovalDecision, ApprovalRequest, approved_call
from jupyter_agents.runtime.context import RunContextWrapper
from jupyter_agents.runtime.errors import ModelBehaviorError
from jupyter_agents.runtime.events import RunItemStreamEvent
from jupyter_agents.runtime.items import ToolApprovalItem, ToolCallItem
from jupyter_agents.runtime.lifecycle import HookCaller
from jupyter_agents.runtime.replay import Cassette, RunReplay
from jupyter_agents.runtime.run_config import RunConfig
from jupyter_agents.runtime.sandbox.policy import EscalationRequest
from jupyter_agents.runtime.tool_guardrails import ToolGuardrailFunctionOutput, tool_input_guardrail
from jupyter_agents.runtime.tools import FunctionTool
from jupyter_agents.runtime.tools.kinds import FUNCTION, ToolKind, kind_for_tool
from jupyter_agents.runtime.tools.shell.shell_tool import ShellResult, ShellTool
from jupyter_agents.runtime.tracing import NO_OP_SPAN

AGENT = Agent(name="steps")
SCHEMA = {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": False}


def function_tool(
    name: str = "f",
    *,
    returns: Callable[[Any, str], Any] | None = None,
    needs_approval: Any = False,
    **fields: Any,
) -> FunctionTool:
    """A function tool whose invocation is ``returns(ctx, arguments)`` (default: the text)."""

    async def on_invoke(ctx: Any, arguments: str) -> Any:
        return returns(ctx, arguments) if returns is not None else f"ran {arguments}"

    return FunctionTool(
        name=name,
        description="",
        params_json_schema=SCHEMA,
        on_invoke_tool=on_invoke,
        needs_approval=needs_approval,
        **fields,
    )


def shell_tool(**fields: Any) -> ShellTool:
    """A shell whose commands never run: its executor answers."""
    return ShellTool(executor=lambda request: ShellResult([]), **fields)


def kind_of(tool: Any) -> ToolKind[Any, Any]:
    kind = kind_for_tool(tool)
    assert kind is not None, tool
    return kind


def make_run(
    *tools: Any,
    handler: Any = None,
    ledger: ApprovalLedger | None = None,
    waiting: Paused | None = None,
    run_config: RunConfig | None = None,
) -> ToolRun:
    context = RunContextWrapper(context=None)
    return ToolRun(
        agent=AGENT,
        enabled={t.name: t for t in tools},
        kinds={t.name: kind_of(t) for t in tools},
        all_names=[t.name for t in tools] + ["offline"],
        context=context,
        run_config=run_config or RunConfig(),
        hooks=HookCaller(None, context),
        span=NO_OP_SPAN,
        ledger=ledger or ApprovalLedger(),
        handler=handler,
        waiting=waiting if waiting is not None else Paused(),
        input_results=[],
        output_results=[],
    )


def item(name: str, arguments: Any = None, call_id: str = "c1") -> ToolCallItem:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    raw = ResponseFunctionToolCall(
        type="function_call", name=name, call_id=call_id, arguments=text, id=f"fc_{call_id}"
    )
    return ToolCallItem(agent=AGENT, raw_item=raw)


def opened(run: ToolRun, name: str, arguments: Any = None, call_id: str = "c1") -> ToolCall:
    return open_call(0, item(name, arguments, call_id), run)


COMMANDS = {"commands": ["ls"]}
ESCALATED = {**COMMANDS, "sandbox_permissions": "require_escalated", "justification": "why"}


async def drain(events: AsyncGenerator[Any, None]) -> list[Any]:
    return [event async for event in events]


# -- open --------------------------------------------------------------------------------------


def test_open_reads_a_function_call_with_its_tool() -> None:
    tool = function_tool()
    call = opened(make_run(tool), "f", {"x": 1})
    assert (call.kind, call.chat_form, call.tool) == (FUNCTION, False, tool)
    assert (call.parsed.name, call.parsed.call_id, call.arguments) == ("f", "c1", '{"x": 1}')
    assert (call.decision, call.escalation, call.declined) == (None, None, None)


def test_open_routes_a_function_call_naming_a_shell_to_the_shell_kind() -> None:
    shell = shell_tool()
    call = opened(make_run(shell), "shell", COMMANDS)
    assert (call.kind, call.chat_form, call.tool) == (kind_for_tool(shell), True, shell)


def test_open_finds_no_tool_the_agent_does_not_offer_now() -> None:
    assert opened(make_run(function_tool()), "gone").tool is None


def test_open_finds_no_tool_of_another_kind_with_the_calls_name() -> None:
    action = SimpleNamespace(commands=["ls"], timeout_ms=None, max_output_length=None)
    raw = SimpleNamespace(type="shell_call", call_id="c1", action=action)
    run = make_run(function_tool("shell"))
    call = open_call(0, ToolCallItem(agent=AGENT, raw_item=raw), run)
    assert call.kind is kind_for_tool(shell_tool()) and call.tool is None


def test_open_refuses_a_call_type_no_executable_kind_runs() -> None:
    hosted = ToolCallItem(agent=AGENT, raw_item=type("Raw", (), {"type": "web_search_call"})())
    with pytest.raises(ModelBehaviorError, match="web_search_call"):
        open_call(0, hosted, make_run())


# -- check arguments ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "name", "arguments", "problem"),
    [
        (function_tool(), "f", '{"x": 1}', None),
        (function_tool(), "f", "not json", "ToolArgumentsError"),
        (function_tool(), "f", "[1, 2]", "ToolArgumentsError"),
        (function_tool(), "gone", "not json", None),  # no tool: invoking says so
        (shell_tool(), "shell", COMMANDS, None),
        (shell_tool(), "shell", {"commands": []}, "ToolArgumentsError"),
        (shell_tool(), "shell", {"commands": ["  "]}, "ToolArgumentsError"),
    ],
)
def test_check_arguments(tool: Any, name: str, arguments: Any, problem: str | None) -> None:
    outcome = check_arguments(opened(make_run(tool), name, arguments))
    if problem is None:
        assert outcome is None
    else:
        assert outcome is not None and outcome.status == "error"
        assert outcome.error is not None and outcome.error.type == problem


# -- resume a saved escalation -----------------------------------------------------------------


def test_a_saved_escalation_gives_the_call_the_arguments_the_person_was_shown() -> None:
    saved = json.dumps(ESCALATED)
    waiting = Paused(escalations={"c1": saved, "other": "{}"})
    call = opened(make_run(shell_tool(), waiting=waiting), "shell", COMMANDS)
    resume_escalation(call, waiting)
    assert (call.arguments, call.escalation) == (saved, "why")
    assert waiting.escalations == {"other": "{}"}  # taken by the call it belongs to


def test_a_call_with_no_saved_escalation_keeps_the_models_arguments() -> None:
    waiting = Paused(escalations={"other": "{}"})
    call = opened(make_run(shell_tool()), "shell", COMMANDS)
    resume_escalation(call, waiting)
    assert (json.loads(call.arguments), call.escalation) == (COMMANDS, None)


# -- escalate ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "asked_before", "again"),
    [
        ("plain output", None, False),
        (EscalationRequest("denied by the sandbox", "partial"), None, True),
        (EscalationRequest("denied again", "partial"), "denied by the sandbox", False),
    ],
)
def test_escalate(value: Any, asked_before: str | None, again: bool) -> None:
    call = opened(make_run(shell_tool()), "shell", COMMANDS)
    call.escalation = asked_before
    before = call.arguments
    assert escalate(call, Outcome(value)) is again
    if again:
        assert json.loads(call.arguments) == {**ESCALATED, "justification": "denied by the sandbox"}
        assert (call.escalation, call.declined) == ("denied by the sandbox", "partial")
        assert call.kind.decided_alone(call.arguments)
    else:
        assert (call.arguments, call.escalation, call.declined) == (before, asked_before, None)


# -- report ------------------------------------------------------------------------------------


def test_report_answers_the_call_with_its_outcome_and_decision() -> None:
    call = opened(make_run(function_tool()), "f", {"x": 1})
    call.decision = ApprovalDecision.approve()
    output = report(call, Outcome("done", "ok"), AGENT)
    assert output.raw_item == {"type": "function_call_output", "call_id": "c1", "output": "done"}
    assert (output.output, output.status, output.approval, output.call_item) == (
        "done",
        "ok",
        call.decision,
        call.item,
    )


def test_report_of_a_call_stopped_again_after_asking_is_what_ran() -> None:
    call = opened(make_run(shell_tool()), "shell", COMMANDS)
    output = report(call, Outcome(EscalationRequest("denied", "what ran")), AGENT)
    assert (output.output, output.status) == ("what ran", "ok")


def test_report_answers_a_chat_form_call_in_its_form() -> None:
    call = opened(make_run(shell_tool()), "shell", COMMANDS)
    output = report(call, Outcome("text"), AGENT)
    assert output.raw_item == call.kind.chat_output_item(call.parsed, "text")
    assert output.raw_item != call.kind.output_item(call.parsed, "text")


# -- decide: whether a decision is needed ------------------------------------------------------


async def test_needs_approval_asks_the_tools_function_with_the_parsed_arguments() -> None:
    seen: list[Any] = []

    def decide(ctx: Any, arguments: dict[str, Any], call_id: str) -> bool:
        seen.append((ctx.tool_name, ctx.tool_call_id, arguments, call_id))
        return int(arguments["x"]) > 1

    run = make_run(function_tool(needs_approval=decide))
    assert await needs_approval(run, opened(run, "f", {"x": 2})) is True
    assert await needs_approval(run, opened(run, "f", {"x": 1})) is False
    assert seen[0] == ("f", "c1", {"x": 2}, "c1")


@pytest.mark.parametrize("flag", [True, False])
async def test_needs_approval_of_a_flag(flag: bool) -> None:
    run = make_run(function_tool(needs_approval=flag))
    assert await needs_approval(run, opened(run, "f")) is flag


async def test_a_call_with_no_tool_needs_no_decision() -> None:
    run = make_run(function_tool(needs_approval=True))
    assert await needs_approval(run, opened(run, "gone")) is False


# -- decide ------------------------------------------------------------------------------------


class Handler:
    """An approval handler answering from a script (in order, or by call id); records the
    requests."""

    runs_on_loop = True

    def __init__(self, *answers: Any, by_call: dict[str, Any] | None = None) -> None:
        self.answers = list(answers)
        self.by_call = by_call or {}
        self.requests: list[ApprovalRequest] = []

    def __call__(self, request: ApprovalRequest) -> Any:
        self.requests.append(request)
        if request.call_id in self.by_call:
            return self.by_call[request.call_id]
        return self.answers.pop(0)


async def decided(run: ToolRun, call: ToolCall) -> list[Any]:
    return await drain(Approvals(run).decide(call))


async def test_a_decision_recorded_for_the_call_is_used_without_asking() -> None:
    ledger = ApprovalLedger()
    ledger.record("f", "c1", '{"x": 1}', ApprovalDecision.approve())
    handler = Handler()
    run = make_run(function_tool(needs_approval=True), handler=handler, ledger=ledger)
    call = opened(run, "f", {"x": 1})
    assert await decided(run, call) == []
    assert call.decision == ApprovalDecision.approve() and handler.requests == []
    assert ledger.calls == {}  # used up


async def test_a_standing_decision_covers_a_call_but_not_one_decided_alone() -> None:
    ledger = ApprovalLedger(always={"shell": ApprovalDecision.approve(always=True)})
    run = make_run(shell_tool(needs_approval=True), ledger=ledger)
    plain = opened(run, "shell", COMMANDS)
    assert await decided(run, plain) == [] and plain.decision is not None
    alone = opened(run, "shell", ESCALATED, "c2")
    events = await decided(run, alone)
    assert [e.name for e in events] == ["tool_approval_requested"]
    assert alone.decision is None and alone.asked is events[0].item


@pytest.mark.parametrize(
    ("answer", "approved", "message"),
    [
        ({"approve": True}, True, None),
        ({"approve": False, "reason": "no"}, False, "no"),
        ({"approve": False, "reason": ""}, False, None),
    ],
)
async def test_the_tools_on_approval_decides_before_a_person(
    answer: Any, approved: bool, message: str | None
) -> None:
    seen: list[Any] = []

    def on_approval(context: Any, approval: ToolApprovalItem) -> Any:
        seen.append(approval.arguments)
        return answer

    handler = Handler()
    run = make_run(shell_tool(needs_approval=True, on_approval=on_approval), handler=handler)
    call = opened(run, "shell", COMMANDS)
    assert await decided(run, call) == []
    assert call.decision is not None
    assert (call.decision.approved, call.decision.message) == (approved, message)
    assert seen[0]["commands"] == ["ls"] and handler.requests == []


async def test_on_approval_may_leave_the_call_to_a_person() -> None:
    handler = Handler(ApprovalDecision.reject("later"))
    run = make_run(shell_tool(needs_approval=True, on_approval=lambda c, i: None), handler=handler)
    call = opened(run, "shell", COMMANDS)
    assert len(await decided(run, call)) == 1
    assert call.decision == ApprovalDecision.reject("later") and len(handler.requests) == 1


async def test_without_a_handler_the_call_waits_for_a_person() -> None:
    run = make_run(function_tool(needs_approval=True))
    call = opened(run, "f", {"x": 1})
    events = await decided(run, call)
    assert [e.name for e in events] == ["tool_approval_requested"]
    assert call.decision is None
    assert call.asked is events[0].item and call.asked.arguments == {"x": 1}


async def test_the_handler_is_asked_before_the_request_is_announced() -> None:
    handler = Handler(ApprovalDecision.approve())
    run = make_run(function_tool(needs_approval=True), handler=handler)
    steps = Approvals(run).decide(opened(run, "f", {"x": 1}))
    event = await steps.__anext__()
    assert isinstance(event, RunItemStreamEvent) and len(handler.requests) == 1
    await steps.aclose()


async def test_an_announced_request_nobody_reads_is_withdrawn() -> None:
    answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    run = make_run(function_tool(needs_approval=True), handler=Handler(answer))
    steps = Approvals(run).decide(opened(run, "f", {"x": 1}))
    await steps.__anext__()
    await steps.aclose()  # the consumer stopped at the approval request
    assert answer.cancelled()


async def test_edited_arguments_replace_the_models() -> None:
    handler = Handler(ApprovalDecision.approve(arguments={"x": 7}))
    run = make_run(function_tool(needs_approval=True), handler=handler)
    call = opened(run, "f", {"x": 1})
    await decided(run, call)
    assert json.loads(call.arguments) == {"x": 7}


async def test_invalid_edited_arguments_are_asked_again_then_rejected() -> None:
    bad = ApprovalDecision.approve(arguments={"x": 7})
    handler = Handler(*[bad] * MAX_EDIT_ATTEMPTS)
    tool = function_tool(needs_approval=True, arguments_validator=lambda a: "x must be odd")
    run = make_run(tool, handler=handler)
    call = opened(run, "f", {"x": 1})
    await decided(run, call)
    assert call.decision is not None and not call.decision.approved
    assert call.decision.message == "the edited arguments were invalid (x must be odd)"
    assert [r.error for r in handler.requests] == [None] + ["x must be odd"] * 2
    assert call.arguments == '{"x": 1}'


@pytest.mark.parametrize(("arguments", "remembered"), [(COMMANDS, True), (ESCALATED, False)])
async def test_an_always_decision_stands_unless_the_call_is_decided_alone(
    arguments: dict[str, Any], remembered: bool
) -> None:
    ledger = ApprovalLedger()
    handler = Handler(ApprovalDecision.approve(always=True))
    run = make_run(shell_tool(needs_approval=True), handler=handler, ledger=ledger)
    call = opened(run, "shell", arguments)
    await decided(run, call)
    assert ("shell" in ledger.always) is remembered
    assert handler.requests[0].allows_always is remembered


async def test_an_always_decision_answers_the_batchs_other_waiting_calls() -> None:
    never: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    always = ApprovalDecision.approve(always=True)
    handler = Handler(by_call={"c1": never, "c2": always})
    run = make_run(function_tool(needs_approval=True), handler=handler)
    approvals = Approvals(run)
    first, second = opened(run, "f", {"x": 1}, "c1"), opened(run, "f", {"x": 2}, "c2")
    asking = approvals.decide(first)
    await asking.__anext__()  # the first call's request is out
    waiting = asyncio.ensure_future(drain(asking))
    await drain(approvals.decide(second))
    await asyncio.wait_for(waiting, 5)
    assert first.decision == ApprovalDecision(approved=True, always=True)
    assert never.cancelled()  # its request was withdrawn


# -- refuse ------------------------------------------------------------------------------------


async def formatter(args: Any) -> str:
    return f"formatted {args.kind} for {args.tool_name}"


REJECTED = "The user rejected this call to tool 'f'; it did not run."
FORMATTED = RunConfig(tool_error_formatter=formatter)


@pytest.mark.parametrize(
    ("message", "declined", "config", "told", "status"),
    [
        (None, None, RunConfig(), REJECTED, "rejected"),
        ("too risky", None, FORMATTED, f"{REJECTED} Reason: too risky", "rejected"),
        (None, None, FORMATTED, "formatted approval_rejected for f", "rejected"),
        (None, "what ran in the sandbox", RunConfig(), "what ran in the sandbox", "ok"),
    ],
)
async def test_refusal(
    message: str | None, declined: Any, config: RunConfig, told: str, status: str
) -> None:
    run = make_run(function_tool(), run_config=config)
    call = opened(run, "f")
    call.decision, call.declined = ApprovalDecision.reject(message), declined
    outcome = await Approvals(run).refusal(call)
    assert (outcome.value, outcome.status) == (told, status)


# -- invoke ------------------------------------------------------------------------------------


@pytest.mark.parametrize("approved", [True, False])
async def test_invoke_marks_an_approved_call_while_it_runs(approved: bool) -> None:
    seen: list[str | None] = []
    run = make_run(function_tool(returns=lambda ctx, a: seen.append(approved_call.get())))
    await invoke(run, opened(run, "f", {"x": 1}, "c9"), approved, None)
    assert seen == (["c9"] if approved else [None]) and approved_call.get() is None


TELL = RunConfig(tool_not_found_behavior="return_error_to_model")


@pytest.mark.parametrize(
    ("name", "config", "told"),
    [
        ("offline", TELL, "Tool 'offline' is not available right now."),
        ("nowhere", TELL, "Tool 'nowhere' does not exist. Available tools: f."),
        ("nowhere", replace(TELL, tool_error_formatter=formatter), "formatted tool_not_found"),
    ],
)
async def test_invoke_tells_the_model_of_a_tool_not_offered(
    name: str, config: RunConfig, told: str
) -> None:
    run = make_run(function_tool(), run_config=config)
    outcome = await invoke(run, opened(run, name), False, None)
    assert outcome is not None and outcome.value.startswith(told)
    assert outcome.error is not None and outcome.error.type == "ToolNotFound"


async def test_invoke_of_a_tool_not_offered_ends_the_run_by_default() -> None:
    run = make_run(function_tool(), run_config=RunConfig())
    with pytest.raises(ModelBehaviorError, match="Tool nowhere not found in agent"):
        await invoke(run, opened(run, "nowhere"), False, None)


async def test_invoke_runs_input_guardrails_first() -> None:
    ran: list[str] = []

    @tool_input_guardrail
    def refuse(data: Any) -> ToolGuardrailFunctionOutput:
        return ToolGuardrailFunctionOutput.reject_content("not that")

    run = make_run(
        function_tool(returns=lambda c, a: ran.append(a), tool_input_guardrails=[refuse])
    )
    outcome = await invoke(run, opened(run, "f"), False, None)
    assert outcome == Outcome("not that", "blocked") and ran == []
    assert len(run.input_results) == 1


async def test_invoke_passes_an_escalation_request_on() -> None:
    def stopped(ctx: Any, arguments: str) -> Any:
        raise EscalationRequest("denied", "partial")

    run = make_run(function_tool(returns=stopped))
    outcome = await invoke(run, opened(run, "f"), False, None)
    assert outcome is not None and isinstance(outcome.value, EscalationRequest)


async def test_invoke_of_a_tool_that_runs_out_of_time() -> None:
    async def slow(ctx: Any, arguments: str) -> str:
        await asyncio.Event().wait()
        return "never"

    tool = FunctionTool("slow", "", SCHEMA, slow, timeout=0.01)
    run = make_run(tool)
    outcome = await invoke(run, opened(run, "slow"), False, None)
    assert outcome is not None and outcome.status == "timeout"


async def test_invoke_of_an_agent_tool_whose_nested_run_paused() -> None:
    state: Any = object()
    resumed: list[Any] = []

    async def pause(ctx: Any, arguments: str) -> Any:
        resumed.append(nested_resume.get())
        raise NestedRunPaused(state)

    tool = AgentTool(name="helper", description="", params_json_schema={}, on_invoke_tool=pause)
    saved: Any = "the nested run saved when the outer run paused"
    run = make_run(tool, waiting=Paused(nested={"c1": saved}))
    call = opened(run, "helper")
    assert await invoke(run, call, False, None) is None
    assert call.nested is state and resumed == [saved] and run.waiting.nested == {}


# -- the order: the batch runs the steps with these fakes --------------------------------------


class Script:
    """Fake steps for the batch: each records its name and answers from the scenario."""

    def __init__(self, needs: list[bool], decisions: list[Any], outcomes: list[Any]) -> None:
        self.log: list[str] = []
        self.needs, self.decisions, self.outcomes = list(needs), list(decisions), list(outcomes)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        script = self

        def checked(call: ToolCall) -> Outcome | None:
            script.log.append("check")
            return Outcome.failed("bad", "ToolArgumentsError") if call.arguments == "bad" else None

        async def needed(run: ToolRun, call: ToolCall) -> bool:
            script.log.append("needs")
            return script.needs.pop(0)

        async def decide(self: Approvals, call: ToolCall) -> AsyncGenerator[Any, None]:
            script.log.append("decide")
            call.decision = script.decisions.pop(0)
            if call.decision is None:  # a person is asked, as the real step announces
                call.asked = ToolApprovalItem(agent=AGENT, raw_item=call.item.raw_item)
                yield RunItemStreamEvent(name="tool_approval_requested", item=call.asked)

        async def refusal(self: Approvals, call: ToolCall) -> Outcome:
            script.log.append("refuse")
            return Outcome("refused", "rejected")

        async def invoked(run: ToolRun, call: ToolCall, approved: bool, sink: Any) -> Any:
            script.log.append(f"invoke(approved={approved})")
            outcome = script.outcomes.pop(0)
            if outcome is PAUSED:
                call.nested = NESTED
                return None
            return outcome

        def escalated(call: ToolCall, outcome: Outcome) -> bool:
            script.log.append("escalate")
            return escalate(call, outcome)

        monkeypatch.setattr(tool_batch, "check_arguments", checked)
        monkeypatch.setattr(tool_steps, "needs_approval", needed)
        monkeypatch.setattr(Approvals, "decide", decide)
        monkeypatch.setattr(Approvals, "refusal", refusal)
        monkeypatch.setattr(tool_steps, "invoke", invoked)
        monkeypatch.setattr(tool_batch, "escalate", escalated)


YES, NO = ApprovalDecision.approve(), ApprovalDecision.reject()
STOPPED = Outcome(EscalationRequest("denied", "partial"))
PAUSED = object()
NESTED: Any = SimpleNamespace(interruptions=[])

ORDER = [
    # (scenario, arguments, needs approval, decisions, outcomes, steps, reported)
    (
        "free",
        COMMANDS,
        [False],
        [],
        [Outcome("ok")],
        ["check", "needs", "invoke(approved=False)", "escalate"],
        "ok",
    ),
    ("bad arguments", "bad", [], [], [], ["check"], "bad"),
    (
        "approved",
        COMMANDS,
        [True],
        [YES],
        [Outcome("ok")],
        ["check", "needs", "decide", "invoke(approved=True)", "escalate"],
        "ok",
    ),
    (
        "rejected",
        COMMANDS,
        [True],
        [NO],
        [],
        ["check", "needs", "decide", "refuse", "escalate"],
        "refused",
    ),
    ("waits", COMMANDS, [True], [None], [], ["check", "needs", "decide"], None),
    (
        "nested pause",
        COMMANDS,
        [False],
        [],
        [PAUSED],
        ["check", "needs", "invoke(approved=False)"],
        None,
    ),
    (
        "escalated, approved",
        COMMANDS,
        [False, True],
        [YES],
        [STOPPED, Outcome("outside")],
        [
            "check",
            "needs",
            "invoke(approved=False)",
            "escalate",
            "needs",
            "decide",
            "invoke(approved=True)",
            "escalate",
        ],
        "outside",
    ),
    (
        "escalated, kept in the sandbox",
        COMMANDS,
        [True, True],
        [YES, NO],
        [STOPPED],
        [
            "check",
            "needs",
            "decide",
            "invoke(approved=True)",
            "escalate",
            "needs",
            "decide",
            "refuse",
            "escalate",
        ],
        "refused",
    ),
    (
        "stopped again after asking",
        COMMANDS,
        [False, True],
        [YES],
        [STOPPED, STOPPED],
        [
            "check",
            "needs",
            "invoke(approved=False)",
            "escalate",
            "needs",
            "decide",
            "invoke(approved=True)",
            "escalate",
        ],
        "partial",
    ),
]


@pytest.mark.parametrize(
    ("arguments", "needs", "decisions", "outcomes", "steps", "reported"),
    [case[1:] for case in ORDER],
    ids=[case[0] for case in ORDER],
)
async def test_the_batch_runs_the_steps_in_order(
    monkeypatch: pytest.MonkeyPatch,
    arguments: Any,
    needs: list[bool],
    decisions: list[Any],
    outcomes: list[Any],
    steps: list[str],
    reported: str | None,
) -> None:
    script = Script(needs, decisions, outcomes)
    script.install(monkeypatch)
    run = make_run(shell_tool())
    batch = ToolBatch(run, [item("shell", arguments)])
    await drain(batch.run())
    assert script.log == steps
    if reported is None:  # the call waits: a person's decision, or its nested run's
        assert batch.outputs == []
        assert len(batch.interruptions) == (1 if decisions[-1:] == [None] else 0)
        assert batch.nested == ({"c1": NESTED} if outcomes else {})
    else:
        assert [o.output for o in batch.outputs] == [reported]


# -- the steps the batch is given ------------------------------------------------------------


class Answering:
    """Steps that answer every call themselves: the batch runs whatever steps it is given."""

    def __init__(self) -> None:
        self.log: list[str] = []

    async def decide(self, call: ToolCall) -> AsyncGenerator[Any, None]:
        self.log.append("decide")
        call.verdict = "run"
        return
        yield

    async def refusal(self, call: ToolCall) -> Outcome:
        raise AssertionError("nothing is refused")

    async def invoke(self, call: ToolCall, sink: Any) -> Outcome:
        self.log.append("invoke")
        return Outcome("from the steps")

    def report(self, call: ToolCall, outcome: Outcome) -> Any:
        self.log.append("report")
        return report(call, outcome, AGENT)


async def test_the_batch_decides_invokes_and_reports_through_its_steps() -> None:
    ran: list[str] = []
    tool = function_tool(returns=lambda ctx, arguments: ran.append(arguments))
    steps = Answering()
    batch = ToolBatch(make_run(tool), [item("f", {"x": 1})], steps=steps)
    await drain(batch.run())
    assert steps.log == ["decide", "invoke", "report"]
    assert [o.output for o in batch.outputs] == ["from the steps"] and ran == []


def recorded_run(tool: Any, approved: bool) -> tuple[ToolRun, RunReplay]:
    """A run replaying someone else's recording (unsigned) that answers call ``c1``."""
    replay = RunReplay(Cassette())
    replay.started = True
    output = {"type": "function_call_output", "call_id": "c1", "output": "sent"}
    replay.recording = {
        "tools": {"c1": {"item": output, "shown": "sent", "status": "ok", "printed": ""}},
        "approvals": {"c1": {"approved": approved, "always": False, "arguments": None}},
    }
    run = make_run(tool)
    run.replay = replay
    return run, replay


@pytest.mark.parametrize("approved", [True, False])
async def test_a_call_the_recording_answers_is_neither_asked_nor_run(approved: bool) -> None:
    asked: list[str] = []

    def ask(ctx: Any, arguments: Any, call_id: str) -> bool:
        asked.append(call_id)
        return True

    ran: list[str] = []
    tool = function_tool(returns=lambda ctx, arguments: ran.append(arguments), needs_approval=ask)
    run, replay = recorded_run(tool, approved)
    batch = ToolBatch(run, [item("f", {"x": 1})])
    events = await drain(batch.run())
    assert [e.name for e in events] == ["tool_output"]  # no approval request
    assert asked == [] and ran == [] and batch.interruptions == []
    (output,) = batch.outputs
    assert output.replayed and output.output == "sent"
    assert output.approval is not None and output.approval.approved is approved  # shown only
    assert replay.new["approvals"]["c1"]["foreign"] is True
    assert replay.new["tools"]["c1"]["item"]["output"] == "sent"


async def test_a_recorded_decision_from_someone_else_asks_the_call_as_live() -> None:
    tool = function_tool(needs_approval=True)
    run, replay = recorded_run(tool, approved=True)
    assert replay.recording is not None
    replay.recording["tools"] = {}  # the tool runs again (its output is not recorded)
    batch = ToolBatch(run, [item("f", {"x": 1})])
    events = await drain(batch.run())
    assert [e.name for e in events] == ["tool_approval_requested"]
    assert batch.outputs == [] and len(batch.interruptions) == 1  # nobody to ask: it waits
    assert replay.new["approvals"] == {}
