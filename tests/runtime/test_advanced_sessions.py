"""AdvancedSQLiteSession: branches, turns, tool usage and per-turn token usage, in real runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import AdvancedSQLiteSession, Agent, Runner, UserError, tool
from jupyter_agents.extensions.memory import AdvancedSQLiteSession as MirroredSession
from jupyter_agents.testing import ScriptedModel, tool_call


@tool
def weather(city: str) -> str:
    """Weather."""
    return f"sunny in {city}"


def agent_with(*turns: Any) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(list(turns))
    return Agent(name="a", model=model, tools=[weather]), model


async def two_turn_chat(session: AdvancedSQLiteSession) -> ScriptedModel:
    agent, model = agent_with(
        [tool_call("weather", {"city": "Rome"})], ["Sunny in Rome."], ["Pack light."]
    )
    first = await Runner.run(agent, "Weather in Rome?", session=session)
    await session.store_run_usage(first)
    second = await Runner.run(agent, "What should I pack?", session=session)
    await session.store_run_usage(second)
    return model


async def test_turns_and_structure_follow_the_conversation() -> None:
    session = AdvancedSQLiteSession("s")
    await two_turn_chat(session)

    turns = await session.get_conversation_turns()
    assert [(t["turn"], t["full_content"]) for t in turns] == [
        (1, "Weather in Rome?"),
        (2, "What should I pack?"),
    ]
    by_turn = await session.get_conversation_by_turns()
    assert [e["type"] for e in by_turn[1]] == ["user", "tool_call", "tool_output", "assistant"]
    assert await session.get_tool_usage() == [("weather", 1, 1)]
    assert [t["turn"] for t in await session.find_turns_by_content("PACK")] == [2]
    assert MirroredSession is AdvancedSQLiteSession


async def test_a_branch_from_a_turn_continues_without_what_followed_it() -> None:
    session = AdvancedSQLiteSession("s")
    await two_turn_chat(session)
    main_items = await session.get_items()

    branch = await session.create_branch_from_turn(2, "ask_again")
    assert branch == "ask_again" and session.current_branch_id == "ask_again"
    assert await session.get_items() == main_items[:4]  # the first turn only

    agent, model = agent_with(["Bring an umbrella."])
    await Runner.run(agent, "Will it rain?", session=session)
    sent = model.requests[0].input
    assert [i.get("content") for i in sent if i.get("role") == "user"] == [
        "Weather in Rome?",
        "Will it rain?",
    ]
    await session.switch_to_branch("main")
    assert await session.get_items() == main_items  # main is untouched
    branches = {b["branch_id"]: b for b in await session.list_branches()}
    assert branches["main"]["user_turns"] == 2 and branches["ask_again"]["user_turns"] == 2
    assert branches["main"]["is_current"] and not branches["ask_again"]["is_current"]


async def test_usage_is_stored_per_turn_and_summed_per_branch() -> None:
    session = AdvancedSQLiteSession("s")
    await two_turn_chat(session)

    per_turn = await session.get_turn_usage()
    assert isinstance(per_turn, list)
    assert [(t["user_turn_number"], t["requests"]) for t in per_turn] == [(1, 2), (2, 1)]
    assert per_turn[0]["input_tokens_details"] == {"cached_tokens": 0}
    total = await session.get_session_usage()
    assert total is not None
    assert total["requests"] == 3 and total["total_turns"] == 2
    assert total["total_tokens"] == sum(t["total_tokens"] for t in per_turn) > 0
    assert await session.get_turn_usage(2) == per_turn[1]

    await session.create_branch_from_turn(2, "b")
    assert await session.get_session_usage("b") == {
        "requests": 2,
        "input_tokens": per_turn[0]["input_tokens"],
        "output_tokens": per_turn[0]["output_tokens"],
        "total_tokens": per_turn[0]["total_tokens"],
        "total_turns": 1,
    }
    assert await AdvancedSQLiteSession("empty").get_session_usage() is None


async def test_a_file_database_keeps_branches_and_usage_for_a_new_object(tmp_path: Path) -> None:
    path = tmp_path / "chats.db"
    first = AdvancedSQLiteSession("s", path)
    await two_turn_chat(first)
    await first.create_branch_from_content("pack", "packing")
    first.close()

    again = AdvancedSQLiteSession("s", path)
    assert again.current_branch_id == "main"
    assert {b["branch_id"] for b in await again.list_branches()} == {"main", "packing"}
    assert len(await again.get_items()) == 6
    await again.switch_to_branch("packing")
    assert len(await again.get_items()) == 4
    assert (await again.get_session_usage())["requests"] == 3 + 2  # type: ignore[index]


async def test_pop_delete_and_clear_work_on_branches() -> None:
    session = AdvancedSQLiteSession("s")
    await two_turn_chat(session)
    await session.create_branch_from_turn(2, "b")
    popped = await session.pop_item()
    assert popped is not None and popped.get("role") == "assistant"
    assert len(await session.get_items()) == 3

    await session.delete_branch("b", force=True)
    assert session.current_branch_id == "main"
    assert [b["branch_id"] for b in await session.list_branches()] == ["main"]
    assert len(await session.get_items()) == 6

    await session.clear_session()
    assert await session.get_items() == [] and await session.list_branches() == []


async def test_mistakes_are_user_errors_that_say_what_to_do() -> None:
    session = AdvancedSQLiteSession("s")
    await two_turn_chat(session)
    with pytest.raises(UserError, match="no user turn 7"):
        await session.create_branch_from_turn(7)
    with pytest.raises(UserError, match="turn_number must be"):
        await session.create_branch_from_turn(0)
    await session.create_branch_from_turn(1, "b")
    with pytest.raises(UserError, match="'b' exists"):
        await session.create_branch_from_turn(1, "b")
    with pytest.raises(UserError, match="No branch 'nope'"):
        await session.switch_to_branch("nope")
    with pytest.raises(UserError, match="main branch cannot be deleted"):
        await session.delete_branch("main")
    with pytest.raises(UserError, match="current branch"):
        await session.delete_branch("b")
    with pytest.raises(UserError, match="contains 'Paris'"):
        await session.create_branch_from_content("Paris")
