"""Recorded runs and their replay (``RunConfig(replay=Cassette(...))``): a recorded run replays
with no model request and no tool run, streamed or not, with the recorded approvals; a changed
input is caught (strict: an error saying what changed; auto: a live run, recorded); tools can
run again with differences reported; no secret enters the file."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    ApprovalRequest,
    GuardrailFunctionOutput,
    ModelSettings,
    RawResponsesStreamEvent,
    RunConfig,
    Runner,
    StreamEvent,
    input_guardrail,
    output_guardrail,
    tool,
)
from jupyter_agents.runtime.models.interface import ModelRequest
from jupyter_agents.runtime.replay import Cassette, ReplayMismatch
from jupyter_agents.runtime.replay.identity import request_identity
from jupyter_agents.testing import ScriptedModel, text, tool_call

ran: list[str] = []


@tool
def lookup(city: str) -> str:
    """Weather for a city."""
    ran.append(city)
    return f"sunny in {city} (call {len(ran)})"


@tool(needs_approval=True)
def send(to: str) -> str:
    """Send a note."""
    ran.append(f"send {to}")
    return f"sent to {to}"


def script() -> ScriptedModel:
    return ScriptedModel(
        [
            [tool_call("lookup", {"city": "Paris"}, "c1"), tool_call("send", {"to": "ana"}, "c2")],
            [text("It is sunny; I told Ana.")],
        ],
        name="scripted",
    )


def silent() -> ScriptedModel:
    """A model that must not be asked (it has no turns)."""
    return ScriptedModel([], name="scripted")


def agent(model: Any, instructions: str = "Be brief.") -> Agent[Any]:
    return Agent(name="a", model=model, instructions=instructions, tools=[lookup, send])


async def run(model: Any, cassette: Cassette, *, stream: bool = False, **kwargs: Any) -> Any:
    config = RunConfig(replay=cassette)
    approve = kwargs.pop("approval_handler", lambda request: ApprovalDecision.approve())
    target = kwargs.pop("agent", None) or agent(model)
    prompt = kwargs.pop("prompt", "Weather in Paris, then tell Ana.")
    if not stream:
        return await Runner.run(target, prompt, run_config=config, approval_handler=approve)
    streamed = Runner.run_streamed(target, prompt, run_config=config, approval_handler=approve)
    deltas = "".join([_delta(e) async for e in streamed.stream_events()])
    result: Any = streamed  # which carries the streamed text too, for the tests to compare
    result.deltas = deltas
    return result


def _delta(event: StreamEvent) -> str:
    """The text the event adds to the answer: "" unless it is a text delta."""
    if (
        isinstance(event, RawResponsesStreamEvent)
        and event.data.type == "response.output_text.delta"
    ):
        return event.data.delta
    return ""


@pytest.fixture(autouse=True)
def _clear() -> None:
    ran.clear()


@pytest.mark.parametrize("stream", [False, True])
async def test_a_recorded_run_replays_with_no_model_request_and_no_tool_run(
    tmp_path: Path, stream: bool
) -> None:
    path = tmp_path / "runs.json"
    live = await run(script(), Cassette(path, mode="record"), stream=stream)
    assert ran == ["Paris", "send ana"]
    ran.clear()
    model = silent()
    asked: list[str] = []

    def approve(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request.call_id)
        return ApprovalDecision.approve()

    strict = Cassette(path, mode="strict")
    replayed = await run(model, strict, stream=stream, approval_handler=approve)
    assert model.requests == [] and ran == [] and asked == []  # nothing live, nobody asked
    assert strict.last == {"replayed": True, "replayed_calls": 2, "changed": [], "differences": []}
    assert replayed.final_output == live.final_output == "It is sunny; I told Ana."
    outputs = [i for i in replayed.new_items if i.type == "tool_call_output_item"]
    assert [o.replayed for o in outputs] == [True, True]
    assert outputs[0].output == "sunny in Paris (call 1)"
    assert outputs[1].approval.approved is True  # the recorded decision, shown as recorded
    assert replayed.context_wrapper.usage.total_tokens == live.context_wrapper.usage.total_tokens
    if stream:
        assert replayed.deltas == live.deltas == "It is sunny; I told Ana."


async def test_strict_names_what_changed_and_never_calls_the_model(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    await run(script(), Cassette(path, mode="record"))
    model = silent()
    with pytest.raises(ReplayMismatch) as caught:
        await run(model, Cassette(path, mode="strict"), prompt="Weather in Oslo, then tell Ana.")
    assert "input: -user: Weather in Paris" in str(caught.value)
    assert "+user: Weather in Oslo" in str(caught.value)
    assert model.requests == []


async def test_auto_runs_a_changed_run_live_and_records_it(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    await run(script(), Cassette(path, mode="record"))
    cassette = Cassette(path, mode="auto")
    model = script()
    changed = agent(model, instructions="Be very brief.")
    await run(model, cassette, agent=changed)
    assert cassette.last is not None and cassette.last["replayed"] is False
    assert cassette.last["changed"] == ["instructions: -Be brief. | +Be very brief."]
    assert len(model.requests) == 2 and ran == ["Paris", "send ana"] * 2  # live
    assert len(json.loads(path.read_text())["runs"]) == 2  # both inputs are recorded now
    replayed = silent()
    await run(replayed, Cassette(path, mode="strict"), agent=agent(replayed, "Be very brief."))
    assert replayed.requests == []


async def test_a_recorded_rejection_replays_as_a_rejection(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    refuse = lambda request: ApprovalDecision.reject("not today")  # noqa: E731
    await run(script(), Cassette(path, mode="record"), approval_handler=refuse)
    ran.clear()
    replayed = await run(silent(), Cassette(path, mode="strict"))  # the handler would approve
    assert ran == []
    (sent,) = [i for i in replayed.new_items if getattr(i, "approval", None) is not None]
    assert sent.approval.approved is False and sent.approval.message == "not today"


async def test_tools_can_run_again_and_a_different_output_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    await run(script(), Cassette(path, mode="record"))
    cassette = Cassette(path, mode="replay", replay_tools="run")
    model = silent()
    result = await run(model, cassette)
    assert model.requests == [] and ran == ["Paris", "send ana", "Paris", "send ana"]
    outputs = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert [o.replayed for o in outputs] == [False, False]
    assert outputs[0].output == "sunny in Paris (call 3)"  # it ran: not the recorded text
    recorded = json.loads(path.read_text())["runs"]
    assert len(recorded) == 1  # the differing run replaced its recording
    assert recorded[0]["tools"]["c1"]["shown"] == "sunny in Paris (call 3)"


async def test_a_call_that_runs_again_is_decided_as_the_person_decided_when_they_recorded_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.json"
    await run(script(), Cassette(path, mode="record"))  # "send ana" was approved then
    ran.clear()
    asked: list[str] = []

    def refuse(request: Any) -> ApprovalDecision:
        asked.append(request.tool_name)
        return ApprovalDecision.reject("not this time")

    cassette = Cassette(path, mode="replay", replay_tools="run")
    await run(silent(), cassette, approval_handler=refuse)
    # their own signed recording: their approval of that very call stands (someone else's
    # recording is asked again: tests/security/test_recording_trust.py)
    assert asked == []
    assert ran == ["Paris", "send ana"]


async def test_guardrail_results_are_recorded_and_not_checked_again_in_a_replay(
    tmp_path: Path,
) -> None:
    checked: list[str] = []

    @input_guardrail
    def polite(context: Any, agent: Any, value: Any) -> GuardrailFunctionOutput:
        checked.append("input")
        return GuardrailFunctionOutput({"score": 0.9}, tripwire_triggered=False)

    @output_guardrail
    def short(context: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
        checked.append("output")
        return GuardrailFunctionOutput(SimpleNamespace(words=5), tripwire_triggered=False)

    def guarded(model: Any) -> Agent[Any]:
        return agent(model).clone(input_guardrails=[polite], output_guardrails=[short])

    path = tmp_path / "runs.json"
    model = script()
    await run(model, Cassette(path, mode="record"), agent=guarded(model))
    assert checked == ["input", "output"]
    replayed = silent()
    result = await run(replayed, Cassette(path, mode="strict"), agent=guarded(replayed))
    assert checked == ["input", "output"]  # as recorded: not checked again
    assert result.input_guardrail_results[0].output.output_info == {"score": 0.9}
    assert result.output_guardrail_results[0].output.output_info == "namespace(words=5)"
    assert not result.output_guardrail_results[0].output.tripwire_triggered
    again = script()
    await run(again, Cassette(path, mode="replay", replay_tools="run"), agent=guarded(again))
    assert checked == ["input", "output"]  # tools run again: the person's own results stand
    await run(again, Cassette(path, mode="record"), agent=guarded(again))
    assert checked == ["input", "output", "input", "output"]  # recording: checked again


async def test_no_secret_enters_the_file(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    headers = {"Authorization": "Bearer sk-live-0123456789abcdef"}
    model = script()
    keyed = Agent(
        name="a",
        model=model,
        tools=[lookup, send],
        model_settings=ModelSettings(extra_headers=headers),
    )
    await run(model, Cassette(path, mode="record"), agent=keyed)
    stored = path.read_text()
    assert "sk-live" not in stored  # headers are no part of a request's identity
    assert "Authorization" not in stored


async def test_key_shaped_values_are_redacted_as_in_traces(tmp_path: Path) -> None:
    @tool
    def read_env(name: str) -> str:
        """Read a variable."""
        return "sk-proj-0123456789abcdef"

    path = tmp_path / "runs.json"
    model = ScriptedModel([[tool_call("read_env", {"name": "KEY"}, "c1")], [text("done")]])
    leaky = Agent(name="a", model=model, tools=[read_env])
    await run(model, Cassette(path, mode="record"), agent=leaky)
    stored = path.read_text()
    assert "sk-proj" not in stored and "[redacted]" in stored


def test_a_cassette_packs_for_a_notebook_and_rejects_junk() -> None:
    cassette = Cassette(runs=[{"key": "k", "calls": []}])
    again = Cassette.unpack(cassette.pack(), mode="strict")
    assert again.runs == cassette.runs and again.mode == "strict"
    with pytest.raises(Exception, match="Not a packed cassette"):
        Cassette.unpack("not base64!")
    with pytest.raises(Exception, match="mode must be one of"):
        Cassette(mode="sometimes")  # type: ignore[arg-type]


# -- identity ---------------------------------------------------------------------------------

BASE: dict[str, Any] = {
    "system_instructions": "Be brief.",
    "input": [{"role": "user", "content": "Weather in Paris?"}],
    "model_settings": ModelSettings(temperature=0.2),
    "tools": [lookup],
}


def identity(**changes: Any) -> str:
    fields = {**BASE, **changes}
    return request_identity(ModelRequest(**fields), changes.pop("model", "m"))[0]


CHANGES: dict[str, dict[str, Any]] = {
    "prompt text": {"input": [{"role": "user", "content": "Weather in Oslo?"}]},
    "a {var} value": {"input": [{"role": "user", "content": "Weather in Paris? rows: 11"}]},
    "instructions": {"system_instructions": "Be thorough."},
    "a tool's schema": {"tools": [send]},
    "settings": {"model_settings": ModelSettings(temperature=0.9)},
}


@pytest.mark.parametrize("what", sorted(CHANGES))
def test_any_change_to_one_input_changes_the_identity(what: str) -> None:
    assert identity(**CHANGES[what]) != identity()


def test_a_different_model_changes_the_identity() -> None:
    request = ModelRequest(**BASE)
    assert request_identity(request, "gpt-a")[0] != request_identity(request, "gpt-b")[0]


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=200), st.floats(0, 2, allow_nan=False))
def test_the_same_request_always_has_the_same_identity(prompt: str, temperature: float) -> None:
    def make() -> ModelRequest:
        return ModelRequest(
            system_instructions="Be brief.",
            input=[{"role": "user", "content": prompt}],
            model_settings=ModelSettings(temperature=temperature, timeout=1.0 + temperature),
            tools=[lookup, send],
        )

    assert request_identity(make(), "m") == request_identity(make(), "m")


@pytest.mark.parametrize("cassette_tools", ["recorded", "run"])
async def test_a_tool_says_how_its_calls_replay_whatever_the_cassette_says(
    tmp_path: Path, cassette_tools: Literal["recorded", "run"]
) -> None:
    sent: list[str] = []

    @tool(replay="recorded")
    def mail(to: str) -> str:
        """Send mail (the outside world: never again in a replay)."""
        sent.append(to)
        return f"mailed {to}"

    @tool(replay="run")
    def compute(x: int) -> int:
        """Compute (the notebook's own work: again in a replay, like a cell)."""
        ran.append(f"compute {x}")
        return x * 2

    def both(model: Any) -> Agent[Any]:
        return Agent(name="a", model=model, instructions="Be brief.", tools=[mail, compute])

    turns = [[tool_call("mail", {"to": "ana"}, "m1"), tool_call("compute", {"x": 21}, "c1")]]
    model = ScriptedModel([*turns, [text("Done.")]], name="scripted")
    path = tmp_path / "runs.json"
    await run(model, Cassette(path, mode="record"), agent=both(model))
    assert sent == ["ana"] and ran == ["compute 21"]
    replayed = await run(
        silent(), Cassette(path, mode="strict", replay_tools=cassette_tools), agent=both(silent())
    )
    assert sent == ["ana"] and ran == ["compute 21", "compute 21"]
    outputs = {
        i.raw_item["call_id"]: i for i in replayed.new_items if i.type == "tool_call_output_item"
    }
    assert outputs["m1"].replayed and not outputs["c1"].replayed


def test_a_tools_replay_must_be_run_or_recorded() -> None:
    with pytest.raises(Exception, match=r"replay=\.\.\.\) must be 'run' or 'recorded'"):
        tool(replay="sometimes")(lambda: None)  # type: ignore[call-overload]
