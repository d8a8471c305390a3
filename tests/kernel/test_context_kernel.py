"""The project's context as files in a real kernel whose working folder is deep in a repository:
the AGENTS.md files reach the first model request in order (sent by the openai client to the
local test server, ``JUPYTER_AGENTS_SCRIPTED_HTTP``), the card names them, ``%agent context``
lists them and ``%agent context off`` leaves them out; ``%%agent NAME`` runs
``agents/NAME.md`` with the notebook's tools it names, in the stricter of its mode and the
notebook's, and a file naming a tool the notebook does not have is refused in one line."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import kernel_value
from .frontend import Frontend
from .test_agent_cells import final_state, start

pytestmark = pytest.mark.kernel

ANALYST = """---
tools: [get_total, wipe]
mode: ask
---
You are the analyst."""
TOOLS = '''
from jupyter_agents import tool
wiped = []

@tool(read_only=True)
def get_total() -> int:
    """The total."""
    return 42

@tool
def wipe() -> str:
    """Wipe the table."""
    wiped.append(True)
    return "wiped"
'''

SENT = (
    "__import__('jupyter_agents.testing.scripted_http', fromlist=['_'])"
    "._server.requests[-1].body['instructions']"
)
"""The instructions of the last request the local test server received, over HTTP."""


@pytest.fixture(scope="module")
def fe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Frontend]:
    base = tmp_path_factory.mktemp("context")
    root, deep, config = base / "repo", base / "repo" / "analysis" / "2026", base / "config"
    deep.mkdir(parents=True)
    (root / ".git").mkdir()
    (config / "jupyter_agents").mkdir(parents=True)
    (config / "jupyter_agents" / "AGENTS.md").write_text("MINE: answer briefly.")
    (root / "AGENTS.md").write_text("ROOT: use pandas.")
    (root / "analysis" / "AGENTS.md").write_text("ANALYSIS: plots use seaborn.")
    (deep / "AGENTS.md").write_text("DEEP: amounts in euros. {not_a_variable}")
    (deep / "agents").mkdir()
    (deep / "agents" / "analyst.md").write_text(ANALYST)
    (root / "agents").mkdir()
    (root / "agents" / "greedy.yaml").write_text("tools: [notebook_python]\ninstructions: x\n")
    env = {"JUPYTER_AGENTS_SCRIPTED_HTTP": "1", "JUPYTER_CONFIG_DIR": str(config)}
    frontend = Frontend(env=env)
    try:
        frontend.run(
            f"import os\nos.chdir({str(deep)!r})\n%load_ext jupyter_agents\n"
            "from jupyter_agents.testing import ScriptedModel, text, tool_call\n" + TOOLS,
            timeout=60,
        )
        yield frontend
    finally:
        frontend.close()


def ask(fe: Frontend) -> dict[str, object]:
    """Run one agent cell answered "Done."; its final widget state."""
    fe.run('demo = ScriptedModel([[text("Done.")]])\n%agent model demo')
    cell, comm = start(fe, "%%agent\nSummarise the sales.")
    fe.hello(comm)
    assert fe.reply(cell)["content"]["status"] == "ok"
    return final_state(fe, comm)


def notices(state: dict[str, object]) -> list[str]:
    blocks = state.get("blocks", [])
    assert isinstance(blocks, list)
    return [b["text"] for b in blocks if b.get("kind") == "notice"]


def test_the_files_reach_the_first_request_in_order_and_the_card_names_them(
    fe: Frontend,
) -> None:
    state = ask(fe)
    sent = kernel_value(fe, SENT)
    words = ["MINE", "ROOT", "ANALYSIS", "DEEP"]
    assert all(word in sent for word in words), sent
    assert [sent.index(w) for w in words] == sorted(sent.index(w) for w in words)
    assert sent.startswith("You are a helpful assistant")  # the notebook's own come first
    assert "{not_a_variable}" in sent  # text, never interpolated
    assert notices(state) == [
        "Instructions from (your configuration)/AGENTS.md, AGENTS.md, analysis/AGENTS.md, "
        "analysis/2026/AGENTS.md"
    ]


def test_agent_context_lists_them_and_off_leaves_them_out(fe: Frontend) -> None:
    msg_id = fe.execute("%agent context")
    assert fe.reply(msg_id)["content"]["status"] == "ok"
    listed = fe.stdout(msg_id)
    assert listed.splitlines()[1:] == [
        "  (your configuration)/AGENTS.md: 21 bytes",
        "  AGENTS.md: 17 bytes",
        "  analysis/AGENTS.md: 28 bytes",
        "  analysis/2026/AGENTS.md: 40 bytes",
    ]
    assert listed.startswith("jupyter_agents: the project's root is ") and "repo" in listed
    try:
        fe.run("%agent context off")
        state = ask(fe)
        assert "ROOT" not in kernel_value(fe, SENT) and notices(state) == []
    finally:
        fe.run("%agent context on")
    ask(fe)
    assert "ROOT" in kernel_value(fe, SENT)


def test_an_agent_file_runs_by_name_with_its_tools_and_its_stricter_mode(fe: Frontend) -> None:
    fe.run(
        "demo = ScriptedModel(["
        '[tool_call("wipe", {}, call_id="w1"), tool_call("get_total", {}, call_id="g1")],'
        ' [text("The total is 42.")]])\n%agent model demo'
    )
    cell, comm = start(fe, "%%agent analyst\nWhat is the total? Then wipe.")
    fe.hello(comm)
    assert fe.reply(cell)["content"]["status"] == "ok"
    state = final_state(fe, comm)
    header = state["header"]
    assert isinstance(header, dict)
    assert (header["agent"], header["mode"]) == ("analyst", "ask")  # the notebook's is agent
    sent = kernel_value(fe, SENT)
    assert sent.startswith("You are the analyst.") and "ROOT: use pandas." in sent
    assert kernel_value(fe, "wiped") == []  # refused by the file's mode, nobody asked
    told = kernel_value(fe, "demo.requests[1].input")
    outputs = {i["call_id"]: i["output"] for i in told if i.get("type") == "function_call_output"}
    assert outputs["g1"] == "42" and outputs["w1"].startswith("ask mode: wipe is not one of")
    assert "Instructions from" in notices(state)[0]


def test_a_missing_or_greedy_agent_file_is_one_line(fe: Frontend) -> None:
    for name, said in [
        ("ghost", "no variable named 'ghost' and no agents/ghost.md or agents/ghost.yaml"),
        ("greedy", "tool 'notebook_python' is not one this notebook or program has"),
    ]:
        msg_id = fe.execute(f"%%agent {name}\nHello")
        reply = fe.reply(msg_id)["content"]
        assert reply["status"] == "error" and said in reply["evalue"], reply["evalue"]
