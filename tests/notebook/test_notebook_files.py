"""The tools for other notebooks (``list_notebooks``, ``create_notebook``, ``open_notebook``),
attacked first: paths that go up, absolute or hidden paths, a link planted in the workspace
(to a folder outside, or at the new file's name), an existing file, too many or too large cells;
then what they do when the path is fine."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents.notebook.workspace.document_comm import NoFrontend
from jupyter_agents.notebook.workspace.notebook_files import (
    MAX_LISTED,
    notebook_file_tools,
    notebook_path_problem,
)
from jupyter_agents.runtime.context import RunContextWrapper, ToolContext


class Channel:
    """A document channel whose page answers ``open_notebook`` with ``reply``."""

    def __init__(self, reply: dict[str, Any] | None = None, notebook: str = "nb.ipynb") -> None:
        self.reply = reply if reply is not None else {"done": True}
        self.notebook = notebook
        self.asked: list[Any] = []

    async def request(self, call: Any, timeout: float = 10) -> dict[str, Any]:
        self.asked.append(call)
        return self.reply


def tools(root: Path, channel: Any = None) -> dict[str, Any]:
    page: Any = channel or Channel()  # stands in for a DocumentChannel
    made = notebook_file_tools(lambda: page, lambda: root)
    return {t.name: t for t in made}


def cell(source: str) -> dict[str, str]:
    return {"cell_type": "code", "source": source}


async def call(tool: Any, **arguments: Any) -> Any:
    ctx = ToolContext.from_run_context(
        RunContextWrapper(context=None),
        tool_name=tool.name,
        tool_call_id="c1",
        tool_arguments=json.dumps(arguments),
    )
    return await tool.on_invoke_tool(ctx, json.dumps(arguments))


@pytest.mark.parametrize(
    "path",
    ["../x.ipynb", "a/../../x.ipynb", "/etc/x.ipynb", ".hidden/x.ipynb", "x.py", ".ipynb",
     "a\\b.ipynb", "x\x00.ipynb", "x" * 2000 + ".ipynb", ""],
)  # fmt: skip
def test_a_path_the_tools_refuse(path: str) -> None:
    assert notebook_path_problem(path) is not None


async def test_create_refuses_bad_paths_links_and_existing_files(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (ws / "out").symlink_to(outside)  # a folder link planted in the workspace
    (ws / "taken.ipynb").write_text("mine")
    (ws / "link.ipynb").symlink_to(outside / "target.ipynb")  # a dangling link at the name
    create = tools(ws)["create_notebook"]
    assert create.needs_approval is True and create.read_only is False
    said = {
        "../escape.ipynb": await call(create, path="../escape.ipynb"),
        "out/x.ipynb": await call(create, path="out/x.ipynb"),
        "taken.ipynb": await call(create, path="taken.ipynb"),
        "link.ipynb": await call(create, path="link.ipynb"),
        "too many": await call(create, path="many.ipynb", cells=[cell("")] * 201),
        "too big": await call(create, path="big.ipynb", cells=[cell("x" * 100_001)]),
    }
    for what, answer in said.items():
        assert answer.startswith("create_notebook:"), (what, answer)
    assert "may not go up" in said["../escape.ipynb"]
    assert "never replaced" in said["taken.ipynb"]
    assert (ws / "taken.ipynb").read_text() == "mine"
    assert list(outside.iterdir()) == []  # nothing written through either link
    assert not (tmp_path / "escape.ipynb").exists()


async def test_create_writes_a_new_notebook_whose_cells_are_not_run(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    cells = [
        {"cell_type": "markdown", "source": "# Q1 <script>alert(1)</script>"},
        {"cell_type": "code", "source": "open('pwned', 'w')"},
    ]
    said = await call(tools(tmp_path)["create_notebook"], path="sub/q1.ipynb", cells=cells)
    assert said == "Created the notebook 'sub/q1.ipynb' with 2 cell(s); open_notebook opens it."
    made = json.loads((tmp_path / "sub" / "q1.ipynb").read_text())
    assert made["nbformat"] == 4 and [c["source"] for c in made["cells"]] == [
        c["source"] for c in cells
    ]
    assert made["cells"][1]["outputs"] == [] and not (tmp_path / "pwned").exists()
    import nbformat

    nbformat.validate(nbformat.reads(json.dumps(made), as_version=4))


async def test_list_marks_this_notebook_skips_links_and_hidden_and_is_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.ipynb").write_text("{}")
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / ".ipynb_checkpoints").mkdir()
    (ws / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text("{}")
    (ws / "nb.ipynb").write_text("{}")
    (ws / "sub" / "q1.ipynb").write_text("{}")
    (ws / "out").symlink_to(outside)
    (ws / "alias.ipynb").symlink_to(outside / "secret.ipynb")
    os.mkfifo(ws / "fifo.ipynb")
    monkeypatch.chdir(ws)
    listing = await call(tools(ws)["list_notebooks"])
    assert listing.splitlines() == [
        "Notebooks under 'the workspace':",
        "nb.ipynb  (this notebook)",
        "sub/q1.ipynb",
    ]
    assert "list_notebooks: the path may not go up" in await call(
        tools(ws)["list_notebooks"], folder="../outside"
    )
    assert "Cannot list 'out'" in await call(tools(ws)["list_notebooks"], folder="out")
    for n in range(MAX_LISTED + 5):
        (ws / "sub" / f"n{n:03}.ipynb").write_text("{}")
    capped = (await call(tools(ws)["list_notebooks"])).splitlines()
    assert (
        len(capped) == MAX_LISTED + 2 and capped[-1] == f"(only the first {MAX_LISTED} are listed)"
    )
    assert tools(ws)["list_notebooks"].read_only is True


async def test_open_asks_the_page_and_says_what_it_answered(tmp_path: Path) -> None:
    channel = Channel()
    opened = await call(tools(tmp_path, channel)["open_notebook"], path="sub/q1.ipynb")
    assert opened == "Opened 'sub/q1.ipynb' in a new tab."
    assert channel.asked == [{"op": "open_notebook", "args": {"path": "sub/q1.ipynb"}}]
    headless = Channel({"refused": "a headless run has no page to open a notebook in."})
    said = await call(tools(tmp_path, headless)["open_notebook"], path="q.ipynb")
    assert said == "open_notebook: 'q.ipynb' was not opened: " + str(headless.reply["refused"])
    refused = await call(tools(tmp_path, channel)["open_notebook"], path="../x.ipynb")
    assert refused.startswith("open_notebook: the path may not go up") and len(channel.asked) == 1

    def gone() -> Any:
        raise NoFrontend("No notebook frontend is connected.")

    made = notebook_file_tools(gone, lambda: tmp_path)
    said = await call({t.name: t for t in made}["open_notebook"], path="q.ipynb")
    assert said == "open_notebook: No notebook frontend is connected."
