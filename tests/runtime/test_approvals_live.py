"""Live approvals: the run waits in place for a handler's decision."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    ApprovalInbox,
    ApprovalRequest,
    RunConfig,
    Runner,
    ToolApprovalItem,
    ToolCallOutputItem,
    UserError,
    tool,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call

sent: list[dict[str, Any]] = []


@tool(needs_approval=True)
def send_email(to: str, body: str) -> str:
    """Send an email."""
    sent.append({"to": to, "body": body})
    return f"sent to {to}"


@tool
def get_weather(city: str) -> str:
    """Weather."""
    return f"sunny in {city}"


@pytest.fixture(autouse=True)
def _clear_sent() -> None:
    sent.clear()


def email_call(to: str = "ana@example.com", call_id: str = "c1") -> Any:
    return tool_call("send_email", {"to": to, "body": "hi"}, call_id=call_id)


def outputs(result: Any) -> list[Any]:
    return [i.raw_item["output"] for i in result.new_items if i.type == "tool_call_output_item"]


@pytest.mark.parametrize("is_async", [False, True])
async def test_approve_runs_the_tool_and_records_the_decision(is_async: bool) -> None:
    requests: list[ApprovalRequest] = []

    def sync_handler(request: ApprovalRequest) -> ApprovalDecision:
        requests.append(request)
        return ApprovalDecision.approve()

    async def async_handler(request: ApprovalRequest) -> ApprovalDecision:
        requests.append(request)
        return ApprovalDecision.approve()

    model = ScriptedModel([[email_call()], [text("Done.")]])
    agent = Agent(name="mail", model=model, tools=[send_email])
    result = await Runner.run(
        agent, "email ana", approval_handler=async_handler if is_async else sync_handler
    )

    assert result.final_output == "Done." and result.interruptions == []
    assert sent == [{"to": "ana@example.com", "body": "hi"}]
    (request,) = requests
    assert (request.tool_name, request.call_id, request.agent) == ("send_email", "c1", agent)
    assert request.arguments == {"to": "ana@example.com", "body": "hi"}
    assert request.json_schema == send_email.params_json_schema
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem)
    assert output.approval == ApprovalDecision.approve()


async def test_reject_tells_the_model_and_the_run_goes_on() -> None:
    model = ScriptedModel([[email_call()], [text("Okay, I did not send it.")]])
    result = await Runner.run(
        Agent(name="mail", model=model, tools=[send_email]),
        "email ana",
        run_config=RunConfig(approval_handler=lambda r: ApprovalDecision.reject("not today")),
    )
    assert sent == []
    assert outputs(result) == [
        "The user rejected this call to tool 'send_email'; it did not run. Reason: not today"
    ]
    assert model.requests[1].input[-1]["output"].startswith("The user rejected")
    assert result.final_output == "Okay, I did not send it."
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem)
    assert output.approval is not None and output.approval.approved is False


@pytest.mark.parametrize(("answer", "ran"), [(True, True), (False, False)])
async def test_booleans_are_shorthand(answer: bool, ran: bool) -> None:
    model = ScriptedModel([[email_call()], [text("ok")]])
    await Runner.run(
        Agent(name="m", model=model, tools=[send_email]), "x", approval_handler=lambda r: answer
    )
    assert bool(sent) is ran


async def test_a_handler_returning_something_else_is_a_user_error() -> None:
    model = ScriptedModel([[email_call()], [text("ok")]])
    with pytest.raises(UserError, match="must return ApprovalDecision"):
        await Runner.run(
            Agent(name="m", model=model, tools=[send_email]),
            "x",
            approval_handler=lambda r: "yes",  # type: ignore[arg-type]
        )
    assert sent == []


@pytest.mark.parametrize("is_async", [False, True])
async def test_needs_approval_function_decides_per_call(is_async: bool) -> None:
    paid: list[int] = []

    def sync_check(ctx: Any, arguments: dict[str, Any], call_id: str) -> bool:
        return int(arguments["amount"]) > 100

    async def async_check(ctx: Any, arguments: dict[str, Any], call_id: str) -> bool:
        return int(arguments["amount"]) > 100

    @tool(needs_approval=async_check if is_async else sync_check)
    def pay(amount: int) -> str:
        """Pay."""
        paid.append(amount)
        return "paid"

    asked: list[int] = []

    def handler(request: ApprovalRequest) -> bool:
        asked.append(request.arguments["amount"])
        return False

    model = ScriptedModel(
        [[tool_call("pay", {"amount": 50}), tool_call("pay", {"amount": 500})], [text("ok")]]
    )
    await Runner.run(Agent(name="p", model=model, tools=[pay]), "x", approval_handler=handler)
    assert asked == [500]
    assert paid == [50]


async def test_edited_arguments_are_validated_and_then_used() -> None:
    attempts: list[ApprovalRequest] = []

    def handler(request: ApprovalRequest) -> ApprovalDecision:
        attempts.append(request)
        if len(attempts) == 1:
            assert request.validate({"to": 5}) is not None
            return ApprovalDecision.approve(arguments={"to": "bob@example.com"})  # no body
        return ApprovalDecision.approve(arguments={"to": "bob@example.com", "body": "edited"})

    model = ScriptedModel([[email_call()], [text("ok")]])
    await Runner.run(
        Agent(name="m", model=model, tools=[send_email]), "x", approval_handler=handler
    )

    assert sent == [{"to": "bob@example.com", "body": "edited"}]
    assert attempts[0].error is None
    assert attempts[1].error is not None and "body: required" in attempts[1].error


async def test_invalid_edits_are_never_run() -> None:
    def handler(request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision.approve(arguments={"to": ["not", "a", "string"], "body": "x"})

    model = ScriptedModel([[email_call()], [text("ok")]])
    result = await Runner.run(
        Agent(name="m", model=model, tools=[send_email]), "x", approval_handler=handler
    )
    assert sent == []
    (message,) = outputs(result)
    assert message.startswith("The user rejected this call")
    assert "edited arguments were invalid" in message


async def test_always_applies_to_later_calls_of_the_tool() -> None:
    asked: list[str] = []

    def handler(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request.call_id)
        return ApprovalDecision.approve(always=True)

    model = ScriptedModel(
        [[email_call(call_id="c1")], [email_call("bob@example.com", "c2")], [text("ok")]]
    )
    await Runner.run(
        Agent(name="m", model=model, tools=[send_email]), "x", approval_handler=handler
    )
    assert asked == ["c1"]
    assert [m["to"] for m in sent] == ["ana@example.com", "bob@example.com"]


async def test_a_tool_that_always_asks_is_asked_each_time_whatever_the_person_answers() -> None:
    import dataclasses

    asked: list[tuple[str, bool]] = []

    def handler(request: ApprovalRequest) -> ApprovalDecision:
        asked.append((request.call_id, request.allows_always))
        return ApprovalDecision.approve(always=True)  # an "always" that must not stand

    model = ScriptedModel(
        [[email_call(call_id="c1")], [email_call("bob@example.com", "c2")], [text("ok")]]
    )
    every_time = dataclasses.replace(send_email, always_asks=True)
    await Runner.run(
        Agent(name="m", model=model, tools=[every_time]), "x", approval_handler=handler
    )
    assert asked == [("c1", False), ("c2", False)]
    assert [m["to"] for m in sent] == ["ana@example.com", "bob@example.com"]


async def test_always_reject_applies_to_later_calls() -> None:
    asked: list[str] = []

    def handler(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request.call_id)
        return ApprovalDecision.reject("never email", always=True)

    model = ScriptedModel(
        [[email_call(call_id="c1")], [email_call("bob@example.com", "c2")], [text("ok")]]
    )
    result = await Runner.run(
        Agent(name="m", model=model, tools=[send_email]), "x", approval_handler=handler
    )
    assert asked == ["c1"] and sent == []
    assert all("never email" in o for o in outputs(result))


async def test_only_gated_calls_wait_others_run_meanwhile() -> None:
    inbox = ApprovalInbox()
    weather_done = asyncio.Event()

    @tool
    async def slow_weather(city: str) -> str:
        """Weather."""
        weather_done.set()
        return "sunny"

    model = ScriptedModel(
        [[email_call(), tool_call("slow_weather", {"city": "Paris"})], [text("ok")]]
    )
    run = asyncio.create_task(
        Runner.run(
            Agent(name="m", model=model, tools=[send_email, slow_weather]),
            "x",
            approval_handler=inbox,
        )
    )
    await asyncio.wait_for(weather_done.wait(), timeout=5)  # ran while the email waits
    while not inbox.pending:
        await asyncio.sleep(0)
    assert sent == []
    assert inbox.decide("c1", ApprovalDecision.approve())
    result = await asyncio.wait_for(run, timeout=5)
    assert outputs(result) == ["sent to ana@example.com", "sunny"]


async def test_streaming_shows_the_request_then_the_outcome() -> None:
    inbox = ApprovalInbox()
    model = ScriptedModel([[email_call()], [text("ok")]])
    result = Runner.run_streamed(
        Agent(name="m", model=model, tools=[send_email]), "x", approval_handler=inbox
    )
    seen: list[str] = []
    async for event in result.stream_events():
        if event.type != "run_item_stream_event":
            continue
        seen.append(event.name)
        if event.name == "tool_approval_requested":
            item = event.item
            assert isinstance(item, ToolApprovalItem)
            assert (item.tool_name, item.call_id) == ("send_email", "c1")
            assert [r.call_id for r in inbox.pending] == ["c1"]
            assert inbox.decide("c1", ApprovalDecision.approve()) is True
        if event.name == "tool_output":
            output = event.item
            assert isinstance(output, ToolCallOutputItem)
            assert output.approval is not None and output.approval.approved is True
    assert seen == [
        "tool_called",
        "tool_approval_requested",
        "tool_output",
        "message_output_created",
    ]


async def test_inbox_ignores_stale_duplicate_and_unknown_decisions() -> None:
    inbox = ApprovalInbox()
    assert inbox.decide("nobody-waits", True) is False
    model = ScriptedModel([[email_call()], [text("ok")]])
    run = asyncio.create_task(
        Runner.run(Agent(name="m", model=model, tools=[send_email]), "x", approval_handler=inbox)
    )
    while not inbox.pending:
        await asyncio.sleep(0)
    assert inbox.decide("c1", ApprovalDecision.reject()) is True
    assert inbox.decide("c1", ApprovalDecision.approve()) is False  # double click
    await asyncio.wait_for(run, timeout=5)
    assert inbox.decide("c1", ApprovalDecision.approve()) is False  # late click
    assert sent == []


async def test_decisions_from_another_thread_reach_the_run() -> None:
    inbox = ApprovalInbox()
    model = ScriptedModel([[email_call()], [text("ok")]])
    run = asyncio.create_task(
        Runner.run(Agent(name="m", model=model, tools=[send_email]), "x", approval_handler=inbox)
    )
    while not inbox.pending:
        await asyncio.sleep(0)
    assert await asyncio.to_thread(inbox.decide, "c1", True)
    result = await asyncio.wait_for(run, timeout=5)
    assert result.final_output == "ok" and len(sent) == 1


async def test_cancel_while_waiting_leaves_nothing_half_done() -> None:
    requested = asyncio.Event()
    inbox = ApprovalInbox(on_request=lambda request: requested.set())
    model = ScriptedModel([[email_call(), tool_call("get_weather", {"city": "x"})], [text("ok")]])
    result = Runner.run_streamed(
        Agent(name="m", model=model, tools=[send_email, get_weather]), "x", approval_handler=inbox
    )

    async def drain() -> None:
        async for _ in result.stream_events():
            pass

    consumer = asyncio.create_task(drain())
    await asyncio.wait_for(requested.wait(), timeout=5)
    result.cancel()
    await asyncio.wait_for(consumer, timeout=5)

    assert result.is_cancelled and sent == []
    assert inbox.pending == []
    assert result.new_items == []
    assert inbox.decide("c1", True) is False


async def test_stopping_right_at_the_request_withdraws_it() -> None:
    inbox = ApprovalInbox()
    model = ScriptedModel([[email_call()], [text("ok")]])
    result = Runner.run_streamed(
        Agent(name="m", model=model, tools=[send_email]), "x", approval_handler=inbox
    )
    async for event in result.stream_events():
        if event.type == "run_item_stream_event" and event.name == "tool_approval_requested":
            assert [r.call_id for r in inbox.pending] == ["c1"]
            result.cancel()
    assert inbox.pending == []
    assert inbox.decide("c1", True) is False
    assert sent == [] and result.is_cancelled


async def test_always_also_settles_calls_of_the_tool_waiting_in_the_same_turn() -> None:
    inbox = ApprovalInbox()
    model = ScriptedModel(
        [
            [email_call("a@x.org", "c1"), email_call("b@x.org", "c2"), email_call("c@x.org", "c3")],
            [text("ok")],
        ]
    )
    run = asyncio.create_task(
        Runner.run(Agent(name="m", model=model, tools=[send_email]), "x", approval_handler=inbox)
    )
    while len(inbox.pending) < 3:
        await asyncio.sleep(0)
    assert inbox.decide("c2", ApprovalDecision.approve(always=True))
    result = await asyncio.wait_for(run, timeout=5)
    assert sorted(m["to"] for m in sent) == ["a@x.org", "b@x.org", "c@x.org"]
    assert inbox.pending == []
    answered = [i for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    assert all(o.approval is not None and o.approval.approved for o in answered)
