"""A batch row keeps its run's tool calls and cost, in the result and in the results store
(read back as they were, also from a store made before these columns existed)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from jupyter_agents import Agent, Usage, arun_batch, tool
from jupyter_agents.runtime.batch.store import ResultsStore
from jupyter_agents.testing import ScriptedModel, text, tool_call


@tool
def lookup(word: str) -> str:
    """Look a word up."""
    return word.upper()


@tool(needs_approval=True)
def delete(path: str) -> str:
    """Delete a file."""
    return "deleted"


def scripted() -> ScriptedModel:
    def respond(request: Any) -> Any:
        if request.input[-1].get("type") == "function_call_output":
            return [text("done")]
        return [
            tool_call("lookup", {"word": request.user_text}),
            tool_call("delete", {"path": "x"}),
        ]

    usage = Usage(input_tokens=1_000, output_tokens=100)
    return ScriptedModel(respond=respond, name="gpt-4.1", usage=usage)


async def test_rows_keep_their_tool_calls_and_cost_in_the_store(tmp_path: Path) -> None:
    agent = Agent(name="tools", model=scripted(), tools=[lookup, delete])
    store = tmp_path / "store.sqlite"
    first = await arun_batch(agent, ["a", "b"], cache=store, progress=None)
    row = first.rows[0]
    assert row.status == "rejected"  # delete needs approval; the batch denies it
    assert row.tool_calls is not None
    assert row.tool_calls == [
        {
            "name": "lookup",
            "arguments": {"word": "a"},
            "call_id": row.tool_calls[0]["call_id"],
            "status": "ok",
        },
        {
            "name": "delete",
            "arguments": {"path": "x"},
            "call_id": row.tool_calls[1]["call_id"],
            "status": "rejected",
        },
    ]
    assert row.cost_usd is not None and row.cost_usd > 0
    again = await arun_batch(agent, ["a", "b"], cache=store, progress=None)
    assert [r.from_store for r in again.rows] == [True, True]
    assert [r.tool_calls for r in again.rows] == [r.tool_calls for r in first.rows]
    assert [r.cost_usd for r in again.rows] == [r.cost_usd for r in first.rows]


def test_a_store_from_before_gains_the_new_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE rows (batch TEXT NOT NULL, key TEXT NOT NULL, prompt_hash TEXT NOT NULL,"
        " status TEXT NOT NULL, output TEXT, error TEXT, tokens INTEGER NOT NULL DEFAULT 0,"
        " seconds REAL NOT NULL DEFAULT 0, state TEXT, waiting TEXT, updated REAL NOT NULL,"
        " PRIMARY KEY (batch, key));"
        "INSERT INTO rows VALUES ('b', '0', 'h', 'ok', '\"out\"', NULL, 3, 0.5, NULL, NULL, 1);"
    )
    old.commit()
    old.close()
    row = ResultsStore(path).row("b", "0")
    assert row is not None and row.output == "out" and row.tool_calls is None
    assert row.cost_usd is None


def test_model_objects_for_different_models_are_different_batches() -> None:
    from openai import AsyncOpenAI

    from jupyter_agents import OpenAIResponsesModel, RunConfig
    from jupyter_agents.runtime.batch.run_batch import batch_identity

    client = AsyncOpenAI(api_key="unused", base_url="http://127.0.0.1:9/v1")  # never called

    def identity(model: Any) -> dict[str, Any]:
        return batch_identity(Agent(name="same", model=model), None, RunConfig(), None)

    big = identity(OpenAIResponsesModel("gpt-4.1", client))
    small = identity(OpenAIResponsesModel("gpt-4.1-mini", client))
    assert big["model"] == "OpenAIResponsesModel:gpt-4.1"
    assert big != small
    assert identity("gpt-4.1")["model"] == "gpt-4.1"
    assert identity(OpenAIResponsesModel("gpt-4.1", client)) == big
