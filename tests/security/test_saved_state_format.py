"""A state saved by an earlier version loads, and is written again in the SDK's schema, then
byte for byte.

``tests/fixtures/run_state/v1.json`` was written by the code of commit 7471edc (see
``saved_states.py``): every part of the format is in it (a nested run, an escalation, a hosted
MCP request, a handoff, decisions standing and per call, outputs approved, rejected and
failed, spending and usage with every detail, history loaded from a session).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agents import RunState, ToolApprovalItem, ToolCallOutputItem, UserError

from ..prerequisites import needs_bwrap
from .saved_states import FIXTURE, agents, paused_state

SAVED = FIXTURE.read_text(encoding="utf-8").removesuffix("\n")


def test_a_state_saved_by_the_earlier_code_loads() -> None:
    state = RunState.from_json(agents(), SAVED)
    assert state.state_id == json.loads(SAVED)["state_id"]
    assert [i.call_id for i in state.interruptions] == ["c1", "n1", "s1", "mcpr_1"]
    assert [i.call_id for i in state.undecided] == ["n1", "s1"]
    escalated = state.interruptions[2]
    assert isinstance(escalated, ToolApprovalItem)
    assert escalated.escalation == (
        "'echo x > made.txt' failed in the read-only sandbox (Read-only file system)"
    )
    assert escalated.arguments["sandbox_permissions"] == "require_escalated"
    assert [h.raw_item.call_id for h in state.pending_handoffs] == ["h1"]
    assert state.nested["o1"].current_agent.name == "cashier"
    assert state.ledger.always["pay"].approved and state.ledger.calls["c1"].decision.arguments
    assert state.context_wrapper.usage.input_tokens_details.cache_write_tokens == 3
    assert state.progress.history_length == 1 and len(state.progress.spend.calls) == 4
    statuses = [i.status for i in state.new_items if isinstance(i, ToolCallOutputItem)]
    assert statuses == ["ok", "ok", "rejected", "error"]


def test_a_loaded_state_is_written_in_the_sdk_schema_and_again_byte_for_byte() -> None:
    state = RunState.from_json(agents(), SAVED)
    written = state.to_string()
    assert json.loads(written)["$schemaVersion"] == "1.21"  # the SDK's schema from now on
    again = RunState.from_json(agents(), written)
    assert again.to_string() == written
    assert RunState.from_json(agents(), state.to_json()).to_string() == written
    assert [i.call_id for i in again.interruptions] == ["c1", "n1", "s1", "mcpr_1"]
    assert [i.call_id for i in again.undecided] == ["n1", "s1"]
    assert again.progress.model_input == state.progress.model_input
    assert again.nested["o1"].current_agent.name == "cashier"
    assert again.ledger.to_json() == state.ledger.to_json()
    assert again.progress.spend.to_json() == state.progress.spend.to_json()


@needs_bwrap
async def test_the_same_run_today_writes_what_the_earlier_state_loads_as(tmp_path: Path) -> None:
    state = await paused_state(tmp_path)
    ids = re.compile(r'"state_id": "[0-9a-f]{32}"')
    today = json.loads(ids.sub('"state_id": "ID"', state.to_string()))
    earlier = json.loads(
        ids.sub('"state_id": "ID"', RunState.from_json(agents(), SAVED).to_string())
    )
    for doc in (today, earlier):  # the earlier format kept no model responses
        doc["model_responses"], doc["last_model_response"] = [], None
    assert today == earlier


@pytest.mark.parametrize("cut", [1, len(SAVED) // 2, len(SAVED) - 1])
def test_a_cut_saved_state_is_one_line_saying_so(cut: int) -> None:
    with pytest.raises(UserError) as raised:
        RunState.from_json(agents(), SAVED[:cut])
    assert "\n" not in str(raised.value) and "RunState" in str(raised.value)


@pytest.mark.parametrize("where", ["the whole text", "an item"])
def test_json_nested_too_deeply_is_one_line_naming_the_state(where: str) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    data = deep if where == "the whole text" else SAVED.replace('"earlier"', deep, 1)
    with pytest.raises(UserError, match="nests too deeply") as raised:
        RunState.from_json(agents(), data)
    assert "\n" not in str(raised.value)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _paths(inner, (*prefix, index))
    return found


PATHS = _paths(json.loads(SAVED))
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(PATHS), delete=st.booleans(), value=JSON_VALUES)
def test_any_damage_to_any_part_is_one_line_naming_the_state(
    path: tuple[Any, ...], delete: bool, value: Any
) -> None:
    data = json.loads(SAVED)
    target = data
    for part in path[:-1]:
        target = target[part]
    if delete and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = value
    try:
        RunState.from_json(agents(), json.dumps(data))
    except UserError as e:
        assert "\n" not in str(e) and "RunState" in str(e)
