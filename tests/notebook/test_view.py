"""RunView without a browser: stream events → widget state, sync pacing, approvals, transcripts."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections.abc import Callable
from html.parser import HTMLParser
from types import SimpleNamespace as NS
from typing import Any, TypeGuard

import nbformat
import pytest

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    ApprovalRequest,
    RunConfig,
    Runner,
    ToolContext,
    Usage,
    tool,
)
from jupyter_agents.notebook.cells.cell_approvals import UNKNOWN_TOOL
from jupyter_agents.notebook.saved import transcript
from jupyter_agents.notebook.view.card_parts import output_of
from jupyter_agents.notebook.view.run_view import RunView
from jupyter_agents.notebook.view.widget_state import Block, RunStatus, TextBlock, ToolBlock
from jupyter_agents.testing import ScriptedModel, reasoning, text, tool_call

# -- helpers ------------------------------------------------------------------------------------


class FakeLoop:
    """Just enough of an event loop for the pacer: a clock, timers and a ready queue."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[tuple[float, Callable[[], None], NS]] = []
        self.ready: list[Callable[[], None]] = []

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], None]) -> NS:
        handle = NS(cancelled=False)
        handle.cancel = lambda: setattr(handle, "cancelled", True)
        self.timers.append((self.now + delay, callback, handle))
        return handle

    def call_soon_threadsafe(self, callback: Callable[[], None]) -> None:
        self.ready.append(callback)

    def is_closed(self) -> bool:
        return False

    def is_running(self) -> bool:
        return True

    def advance(self, seconds: float = 0.0) -> None:
        """Move the clock, running ready callbacks and each timer at its due time."""
        end = self.now + seconds
        while True:
            while self.ready:
                self.ready.pop(0)()
            due = [t for t in self.timers if t[0] <= end + 1e-9]
            if not due:
                break
            first = min(due, key=lambda t: t[0])
            self.timers.remove(first)
            self.now = max(self.now, first[0])
            if not first[2].cancelled:
                first[1]()
        self.now = end


def record_messages(view: RunView) -> list[dict[str, Any]]:
    """Every comm message the widget sends (state updates and custom messages)."""
    sent: list[dict[str, Any]] = []
    original = view.widget._send

    def spy(msg: dict[str, Any], buffers: Any = None) -> None:
        sent.append(msg)
        original(msg, buffers)

    view.widget._send = spy
    return sent


def replies(view: RunView) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    view.widget.send = lambda content, buffers=None: out.append(content)
    return out


def frontend(view: RunView, **content: Any) -> None:
    """A custom message from the JS view, as ipywidgets delivers it."""
    view.widget._dispatch(view.widget, content, [])


def delta(item_id: str, chunk: str) -> NS:
    data = NS(type="response.output_text.delta", item_id=item_id, delta=chunk)
    return NS(type="raw_response_event", data=data)


def item_event(name: str, **item: Any) -> NS:
    return NS(type="run_item_stream_event", name=name, item=NS(**item))


def blocks(view: RunView) -> dict[str, dict[str, Any]]:
    """The blocks a frontend shows (synced traits plus the streamed text), with the defaults
    it assumes filled in; tool cards by the model's call id (their block id is internal)."""
    view.flush()
    texts = _texts(view)
    out: dict[str, dict[str, Any]] = {}
    for b in view.widget.blocks:
        kind = b.get("kind", "tool")
        block = {"kind": kind, **({"status": "done"} if kind == "tool" else {}), **b}
        if kind == "text" and "text" not in block:
            block["text"] = texts.get(b["id"], "")
        call_id = b.get("call_id")
        out[call_id if kind == "tool" and call_id else b["id"]] = block
    return out


def _texts(view: RunView) -> dict[str, str]:
    return {b["id"]: b["text"] for b in view._state.snapshot()[1] if is_text_block(b)}


def is_text_block(block: Block) -> TypeGuard[TextBlock]:
    return block.get("kind") == "text"


def is_tool_card(block: Block) -> TypeGuard[ToolBlock]:
    return block.get("kind", "tool") == "tool"  # a tool card's kind may be left out


def decide_on(view: RunView, call_id: str, **content: Any) -> None:
    """Click a decision on the card of ``call_id``, as the JS view sends it."""
    card = blocks(view)[call_id]
    request = (card.get("approval") or {}).get("request", "gone")
    frontend(view, type="decision", id=card["id"], request=request, **content)


async def drive(view: RunView, agent: Agent[Any], status: RunStatus = "done", **kwargs: Any) -> Any:
    result = Runner.run_streamed(agent, "go", approval_handler=view.inbox, **kwargs)
    async for event in result.stream_events():
        view.on_event(event)
    view.set_usage(result.context_wrapper.usage)
    view.finish(status)
    return result


@tool
def get_weather(ctx: ToolContext[Any], city: str) -> str:
    """Weather."""
    return f"sunny in {city}"


@tool
def divide(a: float, b: float) -> float:
    """Divide."""
    return a / b


sent_emails: list[str] = []


@tool(needs_approval=True)
def send_email(to: str, subject: str) -> str:
    """Send an email."""
    sent_emails.append(to)
    return f"sent to {to}"


# -- events → state -----------------------------------------------------------------------------


async def test_a_run_becomes_blocks() -> None:
    model = ScriptedModel(
        [
            [
                reasoning("Check the weather first."),
                text("Let me look."),
                tool_call("get_weather", {"city": "Paris"}, "w1"),
                tool_call("divide", {"a": 1, "b": 0}, "d1"),
                tool_call("missing_tool", {}, "m1"),
            ],
            [text("It is **sunny**.")],
        ]
    )
    view = RunView(agent="bot", model="m")
    agent = Agent(name="bot", model=model, tools=[get_weather, divide])
    # as a notebook cell runs it: the model is told of an unknown tool (Runner.run raises)
    await drive(view, agent, run_config=RunConfig(tool_not_found_behavior=UNKNOWN_TOOL))
    state = blocks(view)
    kinds = [b.get("kind", "tool") for b in state.values()]
    assert kinds == ["reasoning", "text", "tool", "tool", "tool", "text"]
    assert state["r:rs_1"]["text"] == "Check the weather first."
    assert state["t:msg_2"]["text"] == "Let me look."
    weather = state["w1"]
    assert weather["name"] == "get_weather" and weather["status"] == "done"
    assert weather["args"] == '{"city":"Paris"}'
    assert output_of(weather) == "sunny in Paris" and weather["ms"] >= 0
    assert state["d1"]["status"] == "error"
    assert state["m1"]["status"] == "error"
    assert "output_cut" not in weather and "approval" not in weather  # empty fields left out
    header = view.widget.header
    assert header["status"] == "done" and header["live"] is False
    assert header["tokens"]["total"] > 0 and header["ended_at"] >= header["started_at"]
    assert list(state.values())[-1]["text"] == "It is **sunny**."


@pytest.mark.parametrize(
    "status, shown",
    [("error", "error"), ("timeout", "timeout"), ("blocked", "blocked"), ("ok", "done")],
)
def test_cards_show_the_status_the_runtime_reports(status: str, shown: str) -> None:
    view = RunView(agent="a", model="m")
    error = NS(type="ValueError", message="boom", traceback="Traceback ...\nValueError: boom")
    item = {"status": status, "error": error if status == "error" else None}
    view.on_event(item_event("tool_output", call_id="c1", raw_item={"output": "x"}, **item))
    card = blocks(view)["c1"]
    assert card["status"] == shown
    if status == "error":
        assert (
            card["error"]["type"] == "ValueError"
            and "ValueError: boom" in card["error"]["traceback"]
        )


def test_an_output_that_reads_like_an_error_is_not_one_unless_the_runtime_says_so() -> None:
    view = RunView(agent="a", model="m")
    text = "An error occurred while running the tool. (That is what the tool printed.)"
    view.on_event(item_event("tool_output", call_id="c1", raw_item={"output": text}, status="ok"))
    assert blocks(view)["c1"]["status"] == "done"


def test_rejected_output_and_durations_from_the_monotonic_clock() -> None:
    now = [10.0]
    view = RunView(agent="a", model="m", clock=lambda: now[0])
    call = NS(type="function_call", name="t", call_id="c1", arguments='{"x": 1}')
    view.on_event(item_event("tool_called", raw_item=call))
    now[0] = 12.0  # the model still streams: the tool has not started
    view.on_event(NS(type="raw_response_event", data=NS(type="response.completed")))
    now[0] = 12.25
    view.on_event(item_event("tool_output", call_id="c1", raw_item={"output": "ok"}))
    assert blocks(view)["c1"]["ms"] == 250
    rejected = ApprovalDecision.reject("no")
    out = {"output": "The user rejected this call"}
    view.on_event(item_event("tool_output", call_id="c2", raw_item=out, approval=rejected))
    card = blocks(view)["c2"]
    assert card["status"] == "rejected"
    assert card["approval"] == {"state": "rejected", "message": "no"}


def test_unknown_events_render_a_generic_line_and_never_raise() -> None:
    view = RunView(agent="a", model="m")
    view.on_event(item_event("guardrail_tripped", raw_item=None))
    view.on_event(NS(type="something_new"))
    view.on_event(NS(type="raw_response_event", data=NS(type="response.audio.delta")))
    view.on_event(item_event("tool_output", raw_item={}))  # broken item: no call_id
    kinds = [(b["kind"], b.get("label"), b.get("level")) for b in blocks(view).values()]
    assert kinds[:2] == [("event", "guardrail_tripped", None), ("event", "something_new", None)]
    assert kinds[2] == ("notice", None, "error")


def test_a_handoff_is_one_line() -> None:
    view = RunView(agent="triage", model="m")
    view.on_event(NS(type="agent_updated_stream_event", new_agent=NS(name="triage")))
    view.on_event(item_event("handoff_requested", raw_item=NS(name="transfer_to_billing")))
    source, target = NS(name="triage"), NS(name="billing")
    view.on_event(item_event("handoff_occured", source_agent=source, target_agent=target))
    view.on_event(NS(type="agent_updated_stream_event", new_agent=target))
    (line,) = blocks(view).values()
    assert (line["label"], line["text"]) == ("handoff", "triage → billing")
    assert view.widget.header["agent"] == "billing"


def test_handoffs_and_hosted_tools() -> None:
    view = RunView(agent="triage", model="m")
    view.on_event(NS(type="agent_updated_stream_event", new_agent=NS(name="triage")))
    view.on_event(NS(type="agent_updated_stream_event", new_agent=NS(name="billing")))
    hosted = NS(type="web_search_call", id="ws_1", status="completed")
    view.on_event(item_event("tool_called", raw_item=hosted))
    state = list(blocks(view).values())
    assert [b["kind"] for b in state] == ["event", "tool"]
    assert state[0]["text"] == "→ billing" and view.widget.header["agent"] == "billing"
    assert state[1]["name"] == "web_search" and state[1]["status"] == "done"


def test_model_call_ids_never_collide_with_block_ids_and_reused_ids_get_new_cards() -> None:
    view = RunView(agent="a", model="m")
    view.on_event(delta("x", "hi"))
    call = NS(type="function_call", name="t", call_id="t:x", arguments="{}")
    view.on_event(item_event("tool_called", raw_item=call))
    again = NS(type="function_call", name="u", call_id="t:x", arguments="{}")
    view.on_event(item_event("tool_called", raw_item=again))  # the model reuses the id
    view.flush()
    text_block, first, second = view.widget.blocks
    assert text_block["id"] == "t:x" and _texts(view)["t:x"] == "hi"
    assert (first["call_id"], first["name"]) == ("t:x", "t")
    assert (second["call_id"], second["name"]) == ("t:x", "u")
    assert len({text_block["id"], first["id"], second["id"]}) == 3


def test_printed_output_from_worker_threads_keeps_the_tail() -> None:
    view = RunView(agent="a", model="m", max_output_chars=50)

    def write() -> None:
        for _ in range(10):
            view.tool_output_text("c1", "x" * 9 + "\n")

    workers = [threading.Thread(target=write) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    card = blocks(view)["c1"]
    assert len(card["printed"]) == 50 and card["printed_cut"] == 400 - 50


def test_usage_status_and_notices() -> None:
    view = RunView(agent="a", model="m")
    view.set_usage(Usage(input_tokens=10, output_tokens=5, total_tokens=15))
    view.set_status("background")
    view.add_notice("rejected automatically: send_email", "warning")
    view.flush()
    assert view.widget.header["tokens"] == {"input": 10, "output": 5, "total": 15}
    assert view.widget.header["status"] == "background"
    (notice,) = view.widget.blocks
    assert (notice["kind"], notice["level"]) == ("notice", "warning")


# -- sync pacing ----------------------------------------------------------------------------------


def test_deltas_are_coalesced_to_one_sync_per_interval() -> None:
    loop = FakeLoop()
    view = RunView(agent="a", model="m", loop=loop, clock=loop.time, flush_interval=0.25)  # type: ignore[arg-type]
    messages = record_messages(view)
    shown = watch_text(view, loop.time)
    for i in range(5000):  # 5,000 deltas over 5 s
        view.on_event(delta("m1", "ab"))
        loop.advance(0.001)
        if i % 1000 == 0:  # a tool call now and then changes nothing about the pace
            view.on_event(item_event("tool_output", call_id=f"c{i}", raw_item={"output": "x"}))
    loop.advance(1)
    view.finish("done")
    sent = [m for m in messages if m["method"] in ("update", "custom")]
    appends = [m for m in sent if m["method"] == "custom"]
    assert 18 <= len(appends) <= 5 / 0.25 + 2  # ~4 per second, never one per delta
    updates = [m for m in sent if m["method"] == "update"]
    assert len(updates) <= 5 + 2  # the state goes out only when blocks change (tool cards)
    assert all(set(m["state"]) <= {"header", "blocks"} for m in updates)
    assert shown[-1][1] == 10_000  # exact at the end
    streaming = [s for s in shown if s[0] <= 5.0 + 1e-6]
    for (t0, n0), (t1, _) in itertools.pairwise(streaming):  # each delta shown within 0.25 s
        assert t1 - t0 <= 0.25 + 1e-6
        assert n0 >= 2 * int((t0 - 0.25) * 1000)


def watch_text(view: RunView, clock: Callable[[], float]) -> list[tuple[float, int]]:
    """(time, characters a frontend has) after every text message the widget sends."""
    shown: list[tuple[float, int]] = []
    have: dict[str, int] = {}
    original = view.widget.send

    def send(content: dict[str, Any], buffers: Any = None) -> None:
        if content.get("type") == "append":
            have[content["id"]] = content["at"] + len(content["text"])
        elif content.get("type") == "text":
            have[content["id"]] = len(content["text"])
        else:
            original(content, buffers)
            return
        shown.append((clock(), sum(have.values())))
        original(content, buffers)

    view.widget.send = send
    return shown


def test_a_long_answer_costs_its_length_on_the_wire_not_the_sum_of_its_prefixes() -> None:
    loop = FakeLoop()
    view = RunView(agent="a", model="m", loop=loop, clock=loop.time)  # type: ignore[arg-type]
    messages = record_messages(view)
    chunk = "word " * 200  # 1,000 characters
    for _ in range(2000):  # a 2 MB answer
        view.on_event(delta("m1", chunk))
        loop.advance(0.01)
    view.flush()
    wire = sum(len(json.dumps(m)) for m in messages)
    assert wire < 2 * 2_000_000  # linear: the old full resyncs sent ~100x this
    appends = [m["content"] for m in messages if m["method"] == "custom"]
    assert "".join(a["text"] for a in appends if a["type"] == "append") == chunk * 2000
    assert [a["at"] for a in appends][:2] == [0, len(appends[0]["text"])]


def test_a_view_opened_later_gets_the_whole_text() -> None:
    view = RunView(agent="a", model="m")
    out = replies(view)
    view.on_event(delta("m1", "Hello "))
    view.on_event(delta("m1", "world"))
    view.flush()
    out.clear()
    frontend(view, type="hello")
    assert out == [{"type": "alive"}, {"type": "text", "id": "t:m1", "text": "Hello world"}]


def test_first_change_after_a_quiet_spell_goes_out_at_once() -> None:
    loop = FakeLoop()
    view = RunView(agent="a", model="m", loop=loop, clock=loop.time, flush_interval=0.25)  # type: ignore[arg-type]
    view.add_notice("hi")
    loop.advance()
    assert view.syncs == 1
    view.add_notice("again")
    loop.advance(0.1)
    assert view.syncs == 1
    loop.advance(0.15)
    assert view.syncs == 2


def test_without_a_loop_syncs_are_still_paced_and_finish_is_exact() -> None:
    now = [0.0]
    view = RunView(agent="a", model="m", clock=lambda: now[0], flush_interval=0.25)
    for _ in range(1000):
        view.on_event(delta("m1", "x"))
        now[0] += 0.001
    assert view.syncs == 4  # at 0, 0.25, 0.5, 0.75 s
    view.finish("done")
    assert view.widget.blocks[0]["text"] == "x" * 1000


async def test_comm_messages_per_second_with_5000_fast_deltas() -> None:
    view = RunView(agent="a", model="m")
    messages = record_messages(view)
    start = time.perf_counter()
    for _ in range(5000):
        view.on_event(delta("m1", "word "))
        await asyncio.sleep(0)
    elapsed = time.perf_counter() - start
    view.finish("done")
    updates = [m for m in messages if m["method"] in ("update", "custom")]
    rate = len(updates) / max(elapsed, 1.0)
    print(f"\n5,000 deltas in {elapsed * 1000:.0f} ms -> {len(updates)} comm messages")
    assert len(updates) <= 30 * max(elapsed, 1.0)
    assert rate <= 30


async def test_paced_stream_stays_under_30_messages_per_second() -> None:
    view = RunView(agent="a", model="m", flush_interval=0.25)
    messages = record_messages(view)
    start = time.perf_counter()
    while time.perf_counter() - start < 1.0:  # a delta every ~millisecond for one second
        view.on_event(delta("m1", "tok "))
        await asyncio.sleep(0.001)
    view.finish("done")
    updates = [m for m in messages if m["method"] in ("update", "custom")]
    print(f"\n1 s of deltas -> {len(updates)} comm messages")
    assert 3 <= len(updates) <= 7


# -- approvals and messages -------------------------------------------------------------------


async def test_approval_from_the_frontend_runs_the_call() -> None:
    sent_emails.clear()
    view = RunView(agent="a", model="m")
    out = replies(view)
    model = ScriptedModel(
        [[tool_call("send_email", {"to": "a@b.c", "subject": "s"}, "c1")], ["ok"]]
    )
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[send_email])))
    while not view.inbox.pending:
        await asyncio.sleep(0.001)
    card = blocks(view)["c1"]
    assert card["status"] == "waiting" and view.widget.header["status"] == "waiting"
    approval = card["approval"]
    assert approval["state"] == "pending" and approval["interactive"] and approval["attempt"] == 1
    assert json.loads(approval["arguments"]) == {"to": "a@b.c", "subject": "s"}
    assert approval["schema"]["properties"]["to"]["type"] == "string"
    frontend(view, type="hello")
    assert view.rendered.is_set() and out == [{"type": "alive"}]
    card_id, request = card["id"], approval["request"]
    frontend(view, type="decision", id=card_id, request=request, approved=True, always=True)
    frontend(view, type="decision", id=card_id, request=request, approved=False)  # double click
    frontend(view, type="decision", id="k99", request=request, approved=True)  # not its card
    frontend(view, type="decision", id=card_id, request="nope", approved=True)  # unknown
    await asyncio.wait_for(run, 5)
    assert sent_emails == ["a@b.c"]
    card = blocks(view)["c1"]
    assert card["status"] == "done" and card["approval"] == {"state": "approved", "always": True}
    assert "schema" not in card["approval"]  # dropped once decided: saved notebooks stay small
    assert view.decide("c1", ApprovalDecision.approve()) is False  # stale


async def test_always_for_this_notebook_decides_later_runs_without_asking() -> None:
    from jupyter_agents.notebook.cells.standing import StandingApprovals

    sent_emails.clear()
    standing = StandingApprovals()
    asks = [tool_call("send_email", {"to": "a@b.c", "subject": "s"}, "c1")]
    first = RunView(agent="a", model="m", standing=standing)
    model = ScriptedModel([asks, ["ok"]])
    run = asyncio.ensure_future(drive(first, Agent(name="a", model=model, tools=[send_email])))
    while not first.inbox.pending:
        await asyncio.sleep(0.001)
    card = blocks(first)["c1"]
    assert card["approval"]["notebook"] is True  # the card offers it
    request = card["approval"]["request"]
    frontend(
        first,
        type="decision",
        id=card["id"],
        request=request,
        approved=True,
        always=True,
        scope="notebook",
    )
    await asyncio.wait_for(run, 5)
    assert standing.get("send_email") is True
    assert blocks(first)["c1"]["approval"]["scope"] == "notebook"
    # a later run (another cell): decided at once, the card says why
    second = RunView(agent="a", model="m", standing=standing)
    model = ScriptedModel(
        [[tool_call("send_email", {"to": "d@e.f", "subject": "s"}, "c2")], ["ok"]]
    )
    await asyncio.wait_for(drive(second, Agent(name="a", model=model, tools=[send_email])), 5)
    assert sent_emails == ["a@b.c", "d@e.f"]
    later = blocks(second)["c2"]["approval"]
    assert later == {"state": "approved", "always": True, "scope": "notebook"}
    assert "(always in this notebook)" in second.transcript_html()
    # a call decided alone is never covered, and forgetting asks again
    assert standing.forget("send_email") == ["send_email"] and standing.get("send_email") is None


async def test_always_for_this_notebook_never_covers_a_call_decided_alone() -> None:
    import dataclasses

    from jupyter_agents.notebook.cells.standing import StandingApprovals

    standing = StandingApprovals()
    standing.remember("send_email", True)
    view = RunView(agent="a", model="m", standing=standing)
    every_time = dataclasses.replace(send_email, always_asks=True)
    model = ScriptedModel(
        [[tool_call("send_email", {"to": "a@b.c", "subject": "s"}, "c1")], ["ok"]]
    )
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[every_time])))
    while not view.inbox.pending:
        await asyncio.sleep(0.001)
    approval = blocks(view)["c1"]["approval"]
    assert approval["state"] == "pending" and approval["once"] is True
    assert "notebook" not in approval
    decide_on(view, "c1", approved=False, always=True, scope="notebook")  # refused as such
    await asyncio.wait_for(run, 5)
    assert standing.get("send_email") is True  # unchanged by the once-only decision
    assert blocks(view)["c1"]["approval"]["state"] == "rejected"
    assert "scope" not in blocks(view)["c1"]["approval"]


async def test_edited_arguments_are_validated_before_deciding() -> None:
    sent_emails.clear()
    view = RunView(agent="a", model="m")
    out = replies(view)
    model = ScriptedModel(
        [[tool_call("send_email", {"to": "a@b.c", "subject": "s"}, "c1")], ["ok"]]
    )
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[send_email])))
    while not view.inbox.pending:
        await asyncio.sleep(0.001)
    decide_on(view, "c1", approved=True, arguments={"to": 5})
    decide_on(view, "c1", approved=True, arguments=["not", "a", "dict"])
    assert [m["type"] for m in out] == ["decision_error", "decision_error"]
    assert "subject" in out[0]["error"] and out[0]["id"] == blocks(view)["c1"]["id"]
    assert "JSON object" in out[1]["error"]
    assert [r.call_id for r in view.inbox.pending] == ["c1"]  # still waiting
    assert blocks(view)["c1"]["approval"]["error"] == out[1]["error"]
    edited = {"to": "boss@b.c", "subject": "s2"}
    decide_on(view, "c1", approved=True, arguments=edited)
    await asyncio.wait_for(run, 5)
    assert sent_emails == ["boss@b.c"]
    assert blocks(view)["c1"]["approval"] == {"state": "approved", "edited": True}


async def test_reject_with_message_and_programmatic_decide() -> None:
    view = RunView(agent="a", model="m")
    model = ScriptedModel(
        [
            [
                tool_call("send_email", {"to": "a@b.c", "subject": "s"}, "c1"),
                tool_call("send_email", {"to": "x@y.z", "subject": "s"}, "c2"),
            ],
            ["ok"],
        ]
    )
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[send_email])))
    while len(view.inbox.pending) < 2:
        await asyncio.sleep(0.001)
    decide_on(view, "c1", approved=False, always=False, message=" spam ")
    assert view.decide("c2", ApprovalDecision.reject("headless: nobody saw it")) is True
    assert view.decide("c2", ApprovalDecision.approve()) is False
    result = await asyncio.wait_for(run, 5)
    cards = blocks(view)
    assert cards["c1"]["status"] == "rejected"
    assert cards["c1"]["approval"] == {"state": "rejected", "message": "spam"}
    assert cards["c2"]["approval"]["message"] == "headless: nobody saw it"
    outputs = [i.raw_item["output"] for i in result.new_items if i.type == "tool_call_output_item"]
    assert "Reason: spam" in outputs[0]


async def test_messages_from_another_thread_are_handled_on_the_loop() -> None:
    view = RunView(agent="a", model="m")
    threads: list[int] = []
    view.on_stop = lambda: threads.append(threading.get_ident())
    worker = threading.Thread(target=lambda: frontend(view, type="stop"))
    worker.start()
    worker.join()
    assert threads == []  # handed over, not run on the subshell thread
    await asyncio.sleep(0.01)
    assert threads == [threading.get_ident()]
    view.finish("cancelled", "stopped")
    frontend(view, type="stop")
    await asyncio.sleep(0.01)
    assert len(threads) == 1  # a finished run ignores Stop


def test_a_failing_handler_becomes_a_notice_not_a_traceback() -> None:
    view = RunView(agent="a", model="m")

    def broken() -> None:
        raise RuntimeError("boom")

    view.on_stop = broken
    frontend(view, type="stop")  # no loop: handled inline, and must not raise
    frontend(view, type="no-such-message")
    (notice,) = blocks(view).values()
    assert notice["level"] == "error" and "boom" in notice["text"]


async def test_finish_replaces_the_display_once_with_transcripts() -> None:
    view = RunView(agent="a", model="m")
    updates: list[dict[str, Any]] = []
    view._handle = NS(update=lambda bundle, raw: updates.append(bundle))
    model = ScriptedModel(
        [[tool_call("send_email", {"to": "a@b.c", "subject": "s"}, "c1")], ["ok"]]
    )
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[send_email])))
    while not view.inbox.pending:
        await asyncio.sleep(0.001)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    view.finish("cancelled", "interrupted")
    view.finish("done")
    (bundle,) = updates
    assert set(bundle) == {  # no widget view: a saved notebook must not need the widget
        "text/plain",
        "text/html",
        "text/markdown",
        "application/vnd.jupyter-agents.run+json",  # data for the lab extension's renderer
    }
    assert view.widget.header["status"] == "cancelled"
    card = view.widget.blocks[0]
    assert card["status"] == "cancelled" and card["approval"] == {"state": "expired"}
    assert "interrupted" in bundle["text/plain"]


# -- transcripts ------------------------------------------------------------------------------

PAYLOADS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[x](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "![t](https://remote.example/t.png)",
    "![d](data:image/png;base64,AAAA)",
    "<iframe src=https://remote.example></iframe>",
    '<svg onload="alert(1)">',
    "<style>*{background:url(https://remote.example/x)}</style>",
]


def payload_view() -> RunView:
    view = RunView(agent="<b>agent</b>", model="<i>m</i>")
    joined = "\n\n".join(PAYLOADS)
    view.on_event(
        item_event(
            "message_output_created",
            raw_item=NS(id="m1", content=[NS(type="output_text", text=joined)]),
            agent=NS(name="a"),
        )
    )
    for i, payload in enumerate(PAYLOADS):
        call = NS(
            type="function_call",
            name=payload,
            call_id=f"c{i}",
            arguments=json.dumps({"p": payload}),
        )
        view.on_event(item_event("tool_called", raw_item=call))
        view.on_event(item_event("tool_output", call_id=f"c{i}", raw_item={"output": payload * 3}))
    view.add_notice(PAYLOADS[1], "error")
    view.finish("failed", PAYLOADS[0])
    return view


class Tags(HTMLParser):
    """The tags and attributes of an HTML fragment."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: list[tuple[str, str]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs += [(k, v or "") for k, v in attrs]


def test_html_transcript_is_escaped_and_self_contained() -> None:
    html = payload_view().transcript_html()
    found = Tags(html)
    allowed = {"style", "div", "b", "i", "p", "code", "pre", "span", "a", "details", "summary"}
    assert found.tags <= allowed | {"strong", "em", "ul", "ol", "li", "h1", "h2", "h3", "del"}
    assert {name for name, _ in found.attrs} <= {"class", "href", "target", "rel", "title"}
    for name, value in found.attrs:
        if name == "href":
            assert value.startswith(("https://", "http://", "mailto:"))
    assert html.count("<style>") == 1 and "url(" not in html.split("</style>")[0]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_markdown_transcript_is_one_inert_html_block() -> None:
    md = payload_view().transcript_markdown()
    assert md.count("\n") == 1 and md.endswith("\n")  # one line: one HTML block, nothing parsed
    found = Tags(md)
    assert found.tags <= {"div", "p", "b", "ul", "li", "code", "a", "strong", "em", "pre", "h1"}
    assert not any(name.startswith("on") or name == "src" for name, _ in found.attrs)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in md


def saved_notebook(calls: int) -> bytes:
    """A saved notebook holding one finished run with ``calls`` tool calls, as nbclient
    writes it: the final display bundle in the cell (the widget is closed when the run ends,
    so no widget state is saved)."""
    view = RunView(agent="assistant", model="gpt-4.1")
    bundles: list[dict[str, Any]] = []
    view._handle = NS(update=lambda bundle, raw: bundles.append(bundle))
    message = NS(id="msg_1", content=[NS(type="output_text", text="Checking a few cities.")])
    view.on_event(item_event("message_output_created", raw_item=message, agent=NS(name="a")))
    for i in range(calls):
        args = json.dumps({"city": f"City {i}", "units": "metric"})
        call = NS(type="function_call", name="get_weather", call_id=f"call_{i:04d}", arguments=args)
        view.on_event(item_event("tool_called", raw_item=call))
        out = {"output": f"City {i}: sunny, 21 °C, wind 10 km/h from the north-west."}
        view.on_event(item_event("tool_output", call_id=f"call_{i:04d}", raw_item=out))
    view.set_usage(Usage(input_tokens=12345, output_tokens=678, total_tokens=13023))
    view.finish("done")
    cell = nbformat.v4.new_code_cell("%%agent\nweather please")
    cell.outputs = [nbformat.v4.new_output("display_data", data=bundles[0])]
    nb = nbformat.v4.new_notebook(cells=[cell])
    saved: str = nbformat.writes(nb)
    return saved.encode()


def test_saved_notebook_size_per_100_tool_calls() -> None:
    per_100 = len(saved_notebook(100)) - len(saved_notebook(0))
    print(f"\nsaved notebook: +{per_100:,} bytes per 100 tool calls (state + transcripts)")
    assert per_100 <= 50_000


def test_transcript_of_long_outputs_is_cut() -> None:
    view = RunView(agent="a", model="m")
    call = NS(type="function_call", name="t", call_id="c1", arguments="{}")
    view.on_event(item_event("tool_called", raw_item=call))
    view.on_event(item_event("tool_output", call_id="c1", raw_item={"output": "y" * 3000}))
    view.finish("done")
    html = view.transcript_html()
    assert "y" * 2501 not in html and "y" * 1500 in html  # head and tail kept
    assert "500 characters cut" in html
    assert "y" * 3000 in output_of(view.widget.blocks[0])
    assert transcript.summary_line(*view._state.snapshot()).startswith("Agent run a")


def test_the_default_pace_meets_the_notebook_targets() -> None:
    """At most 30 messages per second, and every delta on screen within 100 ms."""
    loop = FakeLoop()
    view = RunView(agent="a", model="m", loop=loop, clock=loop.time)  # type: ignore[arg-type]
    shown = watch_text(view, loop.time)
    for _ in range(5000):  # 5,000 deltas over 5 s
        view.on_event(delta("m1", "ab"))
        loop.advance(0.001)
    per_second = [sum(1 for t, _ in shown if second <= t < second + 1) for second in range(5)]
    assert max(per_second) <= 30
    for (t0, _), (t1, _) in itertools.pairwise(shown):
        assert t1 - t0 <= 0.1 + 1e-6


async def test_a_stream_that_never_yields_still_syncs_on_time() -> None:
    """The pacer's timer cannot fire while the loop is busy; overdue syncs go out inline."""
    now = [0.0]
    view = RunView(agent="a", model="m", clock=lambda: now[0])
    shown = [t for t, _ in watch_text(view, lambda: now[0])]
    texts = watch_text(view, lambda: now[0])
    for _ in range(2000):  # 2,000 deltas, 1 ms apart, without ever yielding to the loop
        view.on_event(delta("m1", "x"))
        now[0] += 0.001
    shown = [t for t, _ in texts]
    assert len(shown) >= 20
    assert all(b - a <= 0.08 + 0.0011 for a, b in itertools.pairwise(shown))
    view.finish("done")


async def test_a_nested_agent_tools_gated_call_gets_its_own_card_and_buttons() -> None:
    sent_emails.clear()
    inner = Agent(
        name="mailer",
        model=ScriptedModel(
            [[tool_call("send_email", {"to": "a@b.c", "subject": "s"}, "c1")], ["mailed"]]
        ),
        tools=[send_email],
    )
    outer = Agent(
        name="boss",
        model=ScriptedModel([[tool_call("mail", {"input": "mail a"}, "c1")], ["done"]]),
        tools=[inner.as_tool("mail", "Mail someone.")],
    )
    view = RunView(agent="boss", model="m")
    run = asyncio.ensure_future(drive(view, outer))
    while not view.inbox.pending:
        await asyncio.sleep(0.001)
    cards = [b for b in view._state.snapshot()[1] if is_tool_card(b)]
    # The outer call and the nested call share the model-chosen id "c1": two cards.
    assert [(c["name"], c["call_id"]) for c in cards] == [("mail", "c1"), ("send_email", "c1")]
    nested = cards[1]
    assert nested["approval"]["state"] == "pending"
    request = nested["approval"]["request"]
    frontend(view, type="decision", id=cards[0]["id"], request=request, approved=True)  # wrong card
    assert view.inbox.pending  # still waiting: a button only acts on the call it shows
    frontend(view, type="decision", id=nested["id"], request=request, approved=True)
    await asyncio.wait_for(run, 5)
    assert sent_emails == ["a@b.c"]


def test_the_widget_view_and_the_terminal_view_offer_what_the_cell_driver_uses() -> None:
    from jupyter_agents.notebook.view.text_view import TextView
    from jupyter_agents.notebook.view.view_protocol import LiveView

    members = [m for m in LiveView.__dict__ if not m.startswith("_")] + ["rendered", "on_stop"]
    for view in (RunView(agent="a", model="m"), TextView(agent="a", model="m")):
        missing = [m for m in members if not hasattr(view, m)]
        assert missing == [], (type(view).__name__, missing)


@pytest.mark.parametrize(
    ("allows_always", "answers", "decision"),
    [
        (True, ["a"], ApprovalDecision.approve(always=True)),
        (False, ["a", "always", "y"], ApprovalDecision.approve()),  # no "always" on offer
        (False, ["n too risky"], ApprovalDecision.reject("too risky")),
    ],
)
async def test_the_prompt_offers_always_only_where_a_decision_may_stand(
    allows_always: bool, answers: list[str], decision: ApprovalDecision
) -> None:
    from jupyter_agents.notebook.view.text_view import TextView

    questions: list[str] = []
    replies = iter(answers)

    def ask(question: str) -> str:
        questions.append(question)
        return next(replies)

    view = TextView(agent="a", model="m", ask=ask, write=lambda text: None)
    request = ApprovalRequest(
        agent=Agent(name="a"),
        tool_name="shell",
        arguments={"commands": ["rm -rf build"]},
        call_id="c1",
        json_schema={},
        allows_always=allows_always,
    )
    assert await view.inbox(request) == decision
    assert len(questions) == len(answers)
    assert ("[a]lways" in questions[0]) is allows_always
