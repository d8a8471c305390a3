"""The project's AGENTS.md files in a real kernel whose working folder is deep in a repository:
they reach the first model request in order (sent by the openai client to the local test
server, ``JUPYTER_AGENTS_SCRIPTED_HTTP``), the card names them, ``%agent context`` lists them
and ``%agent context off`` leaves them out."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import kernel_value
from .frontend import Frontend
from .test_agent_cells import final_state, start

pytestmark = pytest.mark.kernel

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
    env = {"JUPYTER_AGENTS_SCRIPTED_HTTP": "1", "JUPYTER_CONFIG_DIR": str(config)}
    frontend = Frontend(env=env)
    try:
        frontend.run(
            f"import os\nos.chdir({str(deep)!r})\n%load_ext jupyter_agents\n"
            "from jupyter_agents.testing import ScriptedModel, text",
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
