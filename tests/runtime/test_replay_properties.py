"""Property: a recorded run is stale exactly when one of its inputs changed.

Any change to one input field (the prompt text, a ``{var}`` value, the instructions, a tool's
schema, the model, a setting) is flagged stale (``strict`` raises ``ReplayMismatch`` naming the
field and never calls the model; ``replay`` runs live and says what changed), while re-running
with no change (50 re-runs, as a notebook cell does: a fresh cassette from the cell's stored
recordings each time) always replays, with no model call and the recorded final output. What is
not part of a request's identity (headers, query, timeout, retry: where keys travel) never flags
a run stale and never enters the recording.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import functools
import gzip
import json
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jupyter_agents import Agent, FunctionTool, ModelRetrySettings, ModelSettings, RunConfig, Runner
from jupyter_agents.notebook.cells.prompt import interpolate
from jupyter_agents.runtime.replay import Cassette, ReplayMismatch
from jupyter_agents.testing import ScriptedModel, text, tool_call

RERUNS = 50
PROPERTY = settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PER_CHANGE = settings(PROPERTY, max_examples=6)
"""Each kind of change (22 of them) is tried this often."""

# -- a run, as data -----------------------------------------------------------------------------

TYPES = ("string", "integer", "number", "boolean")


@dataclass(frozen=True)
class ToolSpec:
    """A hand-built function tool: its name, description, parameters (name → JSON type)."""

    name: str
    description: str
    params: tuple[tuple[str, str], ...]
    strict: bool = True

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {name: {"type": kind} for name, kind in self.params},
            "required": [name for name, _ in self.params],
            "additionalProperties": False,
        }


@dataclass(frozen=True)
class Scenario:
    """Everything a run's requests are made of, and the model's scripted answers."""

    prompt: str
    instructions: str
    tools: tuple[ToolSpec, ...]
    model: str
    settings: tuple[tuple[str, Any], ...]
    calls: tuple[tuple[tuple[str, str], ...], ...]
    """Per tool turn: (tool name, JSON arguments) for each call the model makes."""
    reply: str
    unhashed: tuple[tuple[str, Any], ...] = ()
    """Settings that are no part of the identity (headers, query, timeout, retry)."""

    def model_settings(self) -> ModelSettings:
        return ModelSettings(**dict(self.settings), **dict(self.unhashed))

    def script(self) -> list[Any]:
        turns: list[Any] = [
            [
                tool_call(name, json.loads(arguments), f"call_{t}_{i}")
                for i, (name, arguments) in enumerate(turn)
            ]
            for t, turn in enumerate(self.calls)
        ]
        return [*turns, [text(self.reply)]]


@dataclass
class Harness:
    """Builds the agent for a scenario, counting the tool runs."""

    ran: list[str] = field(default_factory=list)
    data: str = "v1"
    """What the tools read (their outputs change with it)."""

    def tool(self, spec: ToolSpec) -> FunctionTool:
        async def invoke(ctx: Any, arguments: str) -> str:
            self.ran.append(spec.name)
            # JSON (it starts with "{"): nothing in it looks like a key to the redaction
            output = {"tool": spec.name, "args": json.loads(arguments), "data": self.data}
            return json.dumps(output, sort_keys=True, ensure_ascii=False)

        return FunctionTool(
            name=spec.name,
            description=spec.description,
            params_json_schema=spec.schema(),
            on_invoke_tool=invoke,
            strict_json_schema=spec.strict,
        )

    def agent(self, scenario: Scenario, model: ScriptedModel) -> Agent[Any]:
        return Agent(
            name="analyst",
            model=model,
            instructions=scenario.instructions,
            tools=[self.tool(spec) for spec in scenario.tools],
            model_settings=scenario.model_settings(),
        )

    async def run(
        self, scenario: Scenario, model: ScriptedModel, cassette: Cassette, stream: bool
    ) -> Any:
        agent = self.agent(scenario, model)
        prompt = [{"role": "user", "content": scenario.prompt}]  # as a %%agent cell sends it
        config = RunConfig(replay=cassette)
        if not stream:
            return await Runner.run(agent, prompt, run_config=config)
        result = Runner.run_streamed(agent, prompt, run_config=config)
        async for _ in result.stream_events():
            pass
        return result


async def record(scenario: Scenario, harness: Harness | None = None) -> tuple[str, Any]:
    """Run the scenario live, recorded; return what the cell keeps (packed) and the result."""
    cassette = Cassette(mode="record")
    model = ScriptedModel(scenario.script(), name=scenario.model)
    result = await (harness or Harness()).run(scenario, model, cassette, stream=True)
    assert len(model.requests) == len(scenario.calls) + 1
    assert cassette.last is not None and cassette.last["replayed"] is False
    return Cassette(runs=list(cassette.used)).pack(), result


def unpacked(cell: str) -> str:
    return gzip.decompress(base64.b64decode(cell)).decode("utf-8")


# -- strategies ---------------------------------------------------------------------------------

names = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
# any text (unicode, braces, whitespace, control characters); a run needs a non-empty prompt
prompts = st.text(min_size=1, max_size=80).filter(lambda s: s.strip() != "")
words = st.text(max_size=60)


def argument(kind: str) -> st.SearchStrategy[Any]:
    return {
        "string": st.text(max_size=20),
        "integer": st.integers(-(10**9), 10**9),
        "number": st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
        "boolean": st.booleans(),
    }[kind]


@st.composite
def tool_specs(draw: st.DrawFn) -> tuple[ToolSpec, ...]:
    tool_names = draw(st.lists(names, min_size=1, max_size=2, unique=True))
    specs = []
    for name in tool_names:
        params = draw(
            st.lists(st.tuples(names, st.sampled_from(TYPES)), max_size=3, unique_by=lambda p: p[0])
        )
        specs.append(ToolSpec(name, draw(words), tuple(params)))
    return tuple(specs)


setting_values: dict[str, st.SearchStrategy[Any]] = {
    "temperature": st.floats(0, 2, allow_nan=False),
    "top_p": st.floats(0, 1, allow_nan=False),
    "frequency_penalty": st.floats(-2, 2, allow_nan=False),
    "presence_penalty": st.floats(-2, 2, allow_nan=False),
    "max_tokens": st.integers(1, 200_000),
    "tool_choice": st.sampled_from(["auto", "required", "none"]),
    "parallel_tool_calls": st.booleans(),
    "truncation": st.sampled_from(["auto", "disabled"]),
    "verbosity": st.sampled_from(["low", "medium", "high"]),
    "store": st.booleans(),
    "top_logprobs": st.integers(0, 20),
    "reasoning": st.fixed_dictionaries({"effort": st.sampled_from(["low", "medium", "high"])}),
    "metadata": st.dictionaries(names, st.text(max_size=10), max_size=2),
}


@st.composite
def model_settings(draw: st.DrawFn) -> tuple[tuple[str, Any], ...]:
    chosen = draw(st.lists(st.sampled_from(sorted(setting_values)), max_size=4, unique=True))
    return tuple((name, draw(setting_values[name])) for name in sorted(chosen))


@st.composite
def scenarios(draw: st.DrawFn, *, tool_turns: int = 0) -> Scenario:
    tools = draw(tool_specs())
    turns = []
    for _ in range(draw(st.integers(tool_turns, 2))):
        specs = draw(st.lists(st.sampled_from(tools), min_size=1, max_size=2))
        turns.append(
            tuple(
                (
                    spec.name,
                    json.dumps({p: draw(argument(kind)) for p, kind in spec.params}),
                )
                for spec in specs
            )
        )
    return Scenario(
        prompt=draw(prompts),
        instructions=draw(words),
        tools=tools,
        model=draw(names),
        settings=draw(model_settings()),
        calls=tuple(turns),
        # prefixed: a reply that *starts* like "Basic …" is redacted (see the last tests)
        reply="Answer: " + draw(words),
    )


# -- 1. unchanged: never stale -------------------------------------------------------------------


@PROPERTY
@given(scenario=scenarios())
def test_an_unchanged_run_replays_on_every_rerun(scenario: Scenario) -> None:
    """50 re-runs of the same cell, each with a fresh cassette from the cell's recordings (what
    ``cell_cassette`` builds), alternating strict / replay / auto, streamed / not, and tools
    answered from the recording / run again: every one replays, asks no model, runs no tool
    (unless told to, and then the model's requests, tool outputs included, are the recorded
    ones) and ends with the recorded final output."""
    tool_calls = sum(len(turn) for turn in scenario.calls)

    async def scenario_run() -> None:
        cell, live = await record(scenario)
        for n in range(RERUNS):
            mode = ("strict", "replay", "auto")[n % 3]
            tools = ("recorded", "run")[n // 2 % 2]
            cassette = Cassette.unpack(cell, mode=mode, replay_tools=tools)
            model = ScriptedModel([], name=scenario.model)  # would fail if asked
            harness = Harness()
            result = await harness.run(scenario, model, cassette, stream=n % 2 == 0)
            assert cassette.last == {
                "replayed": True,
                "replayed_calls": len(scenario.calls) + 1,
                "changed": [],
                "differences": [],
            }, f"re-run {n + 1} ({mode}, tools {tools})"
            assert model.requests == []
            assert len(harness.ran) == (tool_calls if tools == "run" else 0)
            assert result.final_output == live.final_output == scenario.reply
            assert [i.type for i in result.new_items] == [i.type for i in live.new_items]
            # a replayed cell keeps its recording as it was (keep_recording writes nothing)
            assert Cassette(runs=list(cassette.used)).pack() == cell

    asyncio.run(scenario_run())


@PROPERTY
@given(scenario=scenarios(tool_turns=1), headers=st.dictionaries(names, st.text(max_size=30)))
def test_what_is_no_part_of_the_identity_never_makes_a_run_stale(
    scenario: Scenario, headers: dict[str, str]
) -> None:
    """Headers, query parameters, timeout and retry do not change the answer and may hold keys:
    changing them replays, and none of them (nor a key in them) enters the recording."""
    secret = "sk-live-" + "0123456789abcdef"
    before = replace(
        scenario,
        unhashed=(
            ("extra_headers", {**headers, "Authorization": f"Bearer {secret}"}),
            ("extra_query", {"api_key": secret}),
            ("timeout", 30.0),
            ("retry", ModelRetrySettings(max_retries=2)),
        ),
    )
    after = replace(
        scenario,
        unhashed=(
            ("extra_headers", {"Authorization": "Bearer sk-live-another-key-987654"}),
            ("extra_query", {"api_key": "sk-live-another-key-987654", "x": "1"}),
            ("timeout", 5.5),
            ("retry", ModelRetrySettings(max_retries=0)),
        ),
    )

    async def scenario_run() -> None:
        cell, live = await record(before)
        stored = unpacked(cell)
        assert secret not in stored and "Authorization" not in stored
        for mode in ("strict", "replay"):
            cassette = Cassette.unpack(cell, mode=mode)
            model = ScriptedModel([], name=scenario.model)
            result = await Harness().run(after, model, cassette, stream=False)
            assert cassette.last is not None and cassette.last["replayed"] is True
            assert model.requests == [] and result.final_output == live.final_output

    asyncio.run(scenario_run())


@PROPERTY
@given(scenario=scenarios(tool_turns=1), data=st.text(min_size=1, max_size=20))
def test_a_changed_tool_output_is_part_of_the_next_requests_identity(
    scenario: Scenario, data: str
) -> None:
    """The conversation (tool outputs included) is part of every later request's identity:
    tools run again (``replay_tools="run"``) and answering differently make each later request
    differ from its recording, which is reported (the replies still replay)."""

    async def scenario_run() -> None:
        cell, _ = await record(scenario, Harness(data="recorded"))
        cassette = Cassette.unpack(cell, mode="strict", replay_tools="run")
        model = ScriptedModel([], name=scenario.model)
        await Harness(data=data + "!").run(scenario, model, cassette, stream=False)
        assert model.requests == [] and cassette.last is not None
        differences = cassette.last["differences"]
        later = [
            f"model request {k} saw other tool outputs" for k in range(2, len(scenario.calls) + 2)
        ]
        assert [d for d in differences if d.startswith("model request")] == later, differences
        assert any("the tool's output differs" in d for d in differences), differences

    asyncio.run(scenario_run())


# -- 2. one field changed: always stale ----------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """A base run and the same run with exactly one field changed."""

    base: Scenario
    changed: Scenario
    field: str
    """The identity field ``changes`` should name (the ``<field>:`` of its line)."""
    what: str


def _distinct(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple[Any, Any]]:
    return st.tuples(strategy, strategy).filter(lambda pair: pair[0] != pair[1])


@st.composite
def prompt_change(draw: st.DrawFn, base: Scenario) -> Change:
    old, new = draw(_distinct(prompts))
    return Change(replace(base, prompt=old), replace(base, prompt=new), "input", "prompt text")


def _literal(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


var_values: st.SearchStrategy[st.SearchStrategy[Any]] = st.sampled_from(
    [
        st.text(max_size=40),
        st.integers(),
        st.floats(allow_nan=False),
        st.lists(st.integers(-99, 99), max_size=30),
        st.dictionaries(names, st.integers(0, 9), max_size=4),
    ]
)


@st.composite
def var_change(draw: st.DrawFn, base: Scenario) -> Change:
    """The cell's prompt is a template; the notebook's ``interpolate`` fills in ``{rows}`` (an
    expression, as in a cell) from a namespace in which only that variable's value differs."""
    before, after = draw(_distinct(draw(var_values)))
    template = f"{_literal(draw(words))}{{ rows }}{_literal(draw(words))} {{len(notes)}}"
    notes = draw(st.lists(st.integers(), max_size=5))
    old = interpolate(template.strip(), {"rows": before, "notes": notes})
    new = interpolate(template.strip(), {"rows": after, "notes": notes})
    # a value whose text is the same sends the same prompt (the model cannot tell): not stale
    assume(old != new)
    return Change(
        replace(base, prompt=old), replace(base, prompt=new), "input", f"{{var}} {before!r}"
    )


@st.composite
def instructions_change(draw: st.DrawFn, base: Scenario) -> Change:
    old, new = draw(_distinct(words))
    return Change(
        replace(base, instructions=old), replace(base, instructions=new), "instructions", "instr"
    )


TOOL_EDITS = ("description", "add", "rename", "retype", "remove")


@st.composite
def tool_schema_change(draw: st.DrawFn, base: Scenario, edit: str) -> Change:
    """One tool's description changed, or one parameter added, renamed, retyped or removed."""
    if edit in ("rename", "retype", "remove"):
        assume(any(spec.params for spec in base.tools))
        index = draw(st.sampled_from([i for i, spec in enumerate(base.tools) if spec.params]))
    else:
        index = draw(st.integers(0, len(base.tools) - 1))
    spec = base.tools[index]
    taken = {p for p, _ in spec.params}
    fresh = names.filter(lambda n: n not in taken)
    params = list(spec.params)
    description = spec.description
    at = draw(st.integers(0, max(len(params) - 1, 0)))
    if edit == "description":
        description = draw(words.filter(lambda d: d != spec.description))
    elif edit == "add":
        params.insert(at, (draw(fresh), draw(st.sampled_from(TYPES))))
    elif edit == "rename":
        params[at] = (draw(fresh), params[at][1])
    elif edit == "retype":
        params[at] = (
            params[at][0],
            draw(st.sampled_from([t for t in TYPES if t != params[at][1]])),
        )
    else:
        del params[at]
    tools = list(base.tools)
    tools[index] = replace(spec, description=description, params=tuple(params))
    return Change(base, replace(base, tools=tuple(tools)), "tools", f"{edit} in {spec.name}")


@st.composite
def model_change(draw: st.DrawFn, base: Scenario) -> Change:
    old, new = draw(_distinct(names))
    return Change(replace(base, model=old), replace(base, model=new), "model", "model")


@st.composite
def setting_change(draw: st.DrawFn, base: Scenario, name: str) -> Change:
    """One setting set, changed or unset (back to the provider's default)."""
    current = dict(base.settings)
    changed = dict(current)
    if name in current and draw(st.booleans()):
        del changed[name]
    else:
        changed[name] = draw(setting_values[name].filter(lambda v: v != current.get(name)))
    return Change(
        base,
        replace(base, settings=tuple(sorted(changed.items()))),
        "settings",
        f"{name}: {current.get(name)!r} → {changed.get(name)!r}",
    )


CHANGES: dict[str, Any] = {
    "prompt text": prompt_change,
    "a {var} value": var_change,
    "instructions": instructions_change,
    **{
        f"a tool's schema: {edit}": functools.partial(tool_schema_change, edit=edit)
        for edit in TOOL_EDITS
    },
    "model": model_change,
    **{
        f"setting {name}": functools.partial(setting_change, name=name)
        for name in sorted(setting_values)
    },
}
"""Every kind of one-field change: each setting and each kind of schema edit on its own, so
each is tried (hypothesis would spread a few examples thinly over them)."""


def changes(kind: str) -> st.SearchStrategy[Change]:
    return scenarios(tool_turns=1).flatmap(CHANGES[kind])


async def check_flagged(change: Change) -> list[str]:
    """Record the base run; the changed run is stale: strict raises naming the field and asks
    no model; replay runs it live and says what changed. Returns replay's ``changed``."""
    cell, _ = await record(change.base)
    strict = Harness()
    silent = ScriptedModel([], name=change.changed.model)
    with pytest.raises(ReplayMismatch) as caught:
        await strict.run(change.changed, silent, Cassette.unpack(cell, mode="strict"), False)
    message = str(caught.value)
    assert f"{change.field}: " in message, message
    assert silent.requests == [] and strict.ran == []

    cassette = Cassette.unpack(cell, mode="replay")
    live = ScriptedModel([[text("live again")]], name=change.changed.model)
    result = await Harness().run(change.changed, live, cassette, stream=True)
    assert len(live.requests) == 1 and result.final_output == "live again"  # the model IS asked
    assert cassette.last is not None and cassette.last["replayed"] is False
    assert cassette.last["changed"], "a changed run must say what changed"
    assert any(line.startswith(f"{change.field}: ") for line in cassette.last["changed"])
    # what ran live is recorded: re-running the changed cell now replays it
    again = Cassette(runs=list(cassette.used)).pack()
    replayed = ScriptedModel([], name=change.changed.model)
    repeat = Cassette.unpack(again, mode="strict")
    await Harness().run(change.changed, replayed, repeat, stream=False)
    assert repeat.last is not None and repeat.last["replayed"] is True and not replayed.requests
    return list(cassette.last["changed"])


@pytest.mark.parametrize("kind", list(CHANGES))
@PER_CHANGE
@given(data=st.data())
def test_a_change_to_one_input_field_is_flagged_stale(kind: str, data: st.DataObject) -> None:
    change = data.draw(changes(kind), label="change")
    asyncio.run(check_flagged(change))


# -- what these properties found --------------------------------------------------------------


SPURIOUS: dict[str, dict[str, Any]] = {
    "the setting max_tokens": {"settings": (("max_tokens", 500),)},
    "a tool parameter named keyword": {
        "tools": (ToolSpec("search", "Search the notes.", (("keyword", "string"),)),),
        "calls": ((("search", json.dumps({"keyword": "rain"})),),),
    },
    "a metadata entry named session": {"settings": (("metadata", {"session": "week 3"}),)},
}


@pytest.mark.parametrize("present", list(SPURIOUS))
def test_the_change_is_reported_as_that_field_alone(present: str) -> None:
    """Only the prompt changed, so ``changed`` (and the strict message) must name the input and
    nothing else. (It once blamed ``settings`` / ``tools`` too: names that only contain the
    letters of a secret word, ``max_tokens`` or a parameter ``keyword``, were redacted in the
    recording and not in the live request. Both sides are redacted alike now, by words.)"""
    base = Scenario(
        prompt="Weather in Paris?",
        instructions="Be brief.",
        tools=(ToolSpec("lookup", "Look a city up.", (("city", "string"),)),),
        model="m",
        settings=(),
        calls=((("lookup", json.dumps({"city": "Paris"})),),),
        reply="Sunny.",
    )
    base = replace(base, **SPURIOUS[present])
    change = Change(base, replace(base, prompt="Weather in Oslo?"), "input", "prompt text")
    changed = asyncio.run(check_flagged(change))
    assert changed == ["input: -user: Weather in Paris? | +user: Weather in Oslo?"], changed


def test_a_reply_starting_with_basic_replays_as_recorded() -> None:
    """An unchanged re-run replays the recorded answer, even one starting "Basic facts: …"
    (redaction once took any text starting ``basic <word>`` for a credential, and the replay
    answered "[redacted]")."""
    spec = ToolSpec("lookup", "Look a city up.", (("city", "string"),))
    reply = Scenario(
        prompt="Weather in Paris?",
        instructions="Be brief.",
        tools=(spec,),
        model="m",
        settings=(),
        calls=((("lookup", json.dumps({"city": "Paris"})),),),
        reply="Basic facts: it is sunny in Paris.",
    )

    async def scenario_run() -> tuple[Any, Any]:
        cell, live = await record(reply)
        cassette = Cassette.unpack(cell, mode="strict")
        replayed = await Harness().run(reply, ScriptedModel([], name="m"), cassette, False)
        return live.final_output, replayed.final_output

    live_output, replayed_output = asyncio.run(scenario_run())
    assert replayed_output == live_output, f"replayed {replayed_output!r}, not {live_output!r}"


def test_a_tool_output_starting_with_basic_does_not_make_an_unchanged_run_stale() -> None:
    """A tool output starting "Basic idea: …" is kept as it is, so model request 2 of a replay
    matches its recording (redacted, it made every unchanged re-run go live)."""
    spec = ToolSpec("explain", "Explain a topic.", (("topic", "string"),))
    scenario = Scenario(
        prompt="Explain recursion.",
        instructions="Be brief.",
        tools=(spec,),
        model="m",
        settings=(),
        calls=((("explain", json.dumps({"topic": "recursion"})),),),
        reply="Done.",
    )

    class Basic(Harness):
        def tool(self, spec: ToolSpec) -> FunctionTool:
            made = super().tool(spec)

            async def invoke(ctx: Any, arguments: str) -> str:
                self.ran.append(spec.name)
                return "Basic idea: a function that calls itself."

            return dataclasses.replace(made, on_invoke_tool=invoke)

    async def scenario_run() -> dict[str, Any] | None:
        cassette = Cassette(mode="record")
        await Basic().run(scenario, ScriptedModel(scenario.script(), name="m"), cassette, False)
        cell = Cassette(runs=list(cassette.used)).pack()
        again = Cassette.unpack(cell, mode="replay")
        await Basic().run(scenario, ScriptedModel([[text("Done.")]], name="m"), again, False)
        return again.last

    last = asyncio.run(scenario_run())
    assert last is not None and last["replayed"] is True, last


def test_a_tools_strict_flag_is_part_of_its_identity() -> None:
    """``strict`` is sent with every function tool and changes how the model writes arguments,
    so a hand-built ``FunctionTool`` switched to ``strict_json_schema=False`` with the same
    schema no longer replays the old recording."""
    spec = ToolSpec("lookup", "Look a city up.", (("city", "string"),))
    base = Scenario(
        prompt="Weather in Paris?",
        instructions="Be brief.",
        tools=(spec,),
        model="m",
        settings=(),
        calls=((("lookup", json.dumps({"city": "Paris"})),),),
        reply="Sunny.",
    )
    changed = replace(base, tools=(replace(spec, strict=False),))
    asyncio.run(check_flagged(Change(base, changed, "tools", "strict flag")))
