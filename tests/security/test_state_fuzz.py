"""A damaged saved RunState is a UserError that says what is wrong, never an internal error."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agents import Agent, Runner, RunState, UserError, tool
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.scripted import ScriptedOutput


@tool(needs_approval=True)
def pay(amount: int, to: str) -> str:
    """Pay someone."""
    return f"paid {amount} to {to}"


@tool
def look(city: str) -> str:
    """Look."""
    return city


def agent() -> Agent:
    return Agent(name="a", model=ScriptedModel([]), tools=[pay, look])


def _saved() -> dict[str, Any]:
    turns: list[list[ScriptedOutput]] = [
        [text("thinking"), tool_call("look", {"city": "Oslo"}, "l1")],
        [tool_call("pay", {"amount": 3, "to": "bo"}, "c1")],
    ]
    model = ScriptedModel(turns)
    result = asyncio.run(Runner.run(Agent(name="a", model=model, tools=[pay, look]), "go"))
    state = result.to_state()
    state.approve("c1", always=True)
    return state.to_json()


SAVED = _saved()

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _paths(inner, (*prefix, index))
    return found


PATHS = [p for p in _paths(SAVED) if p]


def _mutate(data: Any, path: tuple[Any, ...], action: str, value: Any) -> Any:
    data = json.loads(json.dumps(data))
    target = data
    for part in path[:-1]:
        target = target[part]
    last = path[-1]
    if action == "delete" and isinstance(target, dict):
        del target[last]
    else:
        target[last] = value
    return data


def test_the_unmutated_state_loads() -> None:
    state = RunState.from_json(agent(), json.dumps(SAVED))
    assert [i.call_id for i in state.interruptions] == ["c1"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    path=st.sampled_from(PATHS),
    action=st.sampled_from(["delete", "replace"]),
    value=json_values,
)
def test_any_damage_is_a_user_error(path: tuple[Any, ...], action: str, value: Any) -> None:
    text_ = json.dumps(_mutate(SAVED, path, action, value))
    try:
        RunState.from_json(agent(), text_)
    except UserError as e:
        assert "RunState" in str(e)


@given(st.text(max_size=50) | json_values.map(json.dumps))
def test_arbitrary_text_is_a_user_error(text_: str) -> None:
    with pytest.raises(UserError):
        RunState.from_json(agent(), text_)


@pytest.mark.parametrize(
    "path, value, says",
    [
        (("context", "usage"), None, "context.usage"),
        (("jupyter_agents", "pending_calls"), ["nope"], "pending_calls names call 'nope'"),
        (("generated_items", 0, "raw_item"), "x", "generated_items.0.raw_item"),
        (
            ("jupyter_agents", "ledger", "calls", "c1", "approved"),
            "yes",
            "jupyter_agents.ledger.calls.c1.approved",
        ),
        (("max_turns",), 0, "max_turns"),
    ],
)
def test_the_error_names_the_problem(path: tuple[Any, ...], value: Any, says: str) -> None:
    with pytest.raises(UserError, match=says.replace(".", r"\.")):
        RunState.from_json(agent(), json.dumps(_mutate(SAVED, path, "replace", value)))


def test_json_saved_before_state_ids_and_nested_runs_still_loads() -> None:
    older = json.loads(json.dumps(SAVED))
    older["jupyter_agents"] = {
        k: v for k, v in SAVED["jupyter_agents"].items() if k not in ("state_id", "nested")
    }
    for entry in older["generated_items"]:
        entry.pop("status", None)
    state = RunState.from_json(agent(), json.dumps(older))
    assert [i.call_id for i in state.undecided] == []  # c1 was approved before saving
    assert state.state_id and state.nested == {}


@pytest.mark.parametrize("inner", [None, "x", 3, [], {"$schemaVersion": "9"}, {}])
def test_a_damaged_nested_run_is_a_user_error(inner: Any) -> None:
    data = json.loads(json.dumps(SAVED))
    data["jupyter_agents"]["nested"] = {"c1": inner}
    with pytest.raises(UserError, match="RunState"):
        RunState.from_json(agent(), json.dumps(data))
