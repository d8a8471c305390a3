"""The notebook agent's reading tools: a real run of ``python -m jupyter_agents.headless`` where
the scripted model lists the cells, reads one, lists and inspects the variables; and the
document channel's answers when no frontend, a silent one or a broken one is there."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from jupyter_agents.notebook.document_comm import DocumentChannel, NoFrontend
from jupyter_agents.notebook.notebook_tools import NotebookTools

SETUP = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text, tool_call
demo = ScriptedModel([
    [tool_call("list_cells", {}, "l1")],
    [tool_call("read_cell", {"id": "data"}, "r1")],
    [tool_call("read_cell", {"id": "dat"}, "r2")],
    [tool_call("list_variables", {}, "v1")],
    [tool_call("inspect_variable", {"name": "sales"}, "v2")],
    [text("Read it all.")],
])
%agent model demo
%agent tools add notebook"""

DATA = """import pandas as pd
sales = pd.DataFrame({"city": ["Paris", "Oslo", None], "units": [3, 5, 8]})
sales"""

SHOW = """for i, name in enumerate(["list_cells", "read_cell", "read_cell_typo", "list_variables",
                            "inspect_variable"]):
    print(f"=== {name}")
    print(demo.requests[i + 1].input[-1]["output"])"""


@pytest.mark.kernel
@pytest.mark.timeout(180)
def test_the_headless_runner_answers_the_reading_tools(tmp_path: Path) -> None:
    cells = [
        nbformat.v4.new_code_cell(SETUP),
        nbformat.v4.new_markdown_cell("# Sales"),
        nbformat.v4.new_code_cell(DATA),
        nbformat.v4.new_code_cell("%%agent\nWhat is in this notebook?"),
        nbformat.v4.new_code_cell(SHOW),
    ]
    for cell, name in zip(cells, ["setup", "title", "data", "agent", "show"], strict=True):
        cell["id"] = name
    path = tmp_path / "nb.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    run = subprocess.run(
        [sys.executable, "-m", "jupyter_agents.headless", str(path)],
        capture_output=True,
        text=True,
        timeout=170,
        env={"JUPYTER_AGENTS_APPROVE": "auto", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = nbformat.read(tmp_path / "nb.out.ipynb", as_version=4)
    shown = "".join(o.get("text", "") for o in out.cells[4].outputs)
    sections = dict(part.split("\n", 1) for part in shown.split("=== ")[1:])
    listing = sections["list_cells"]
    assert "1. setup code [1]: '%load_ext jupyter_agents'" in listing
    assert "2. title markdown: '# Sales'" in listing
    assert "3. data code [2]: 'import pandas as pd' → DataFrame 3x2" in listing
    agent_line = listing.splitlines()[3]
    assert agent_line.startswith("4. agent code [3]: '%%agent'")
    assert agent_line.endswith(" · running now (the agent's own cell)")
    assert listing.splitlines()[4].startswith("5. show code: 'for i, name in")
    read = sections["read_cell"]
    assert read.startswith("cell data (code [2], version ") and DATA in read
    assert "city units" in read and "Paris" in read and "<" not in read
    assert sections["read_cell_typo"].startswith("No cell with id 'dat'. The nearest: data")
    assert "sales: pandas.DataFrame, 3 rows x 2 columns" in sections["list_variables"]
    assert "city: " in sections["inspect_variable"] and ", 1 null" in sections["inspect_variable"]


class FakeComm:
    """A comm whose frontend answers with ``reply`` (or not at all)."""

    def __init__(self, channel: DocumentChannel, reply: Any = None) -> None:
        self.channel, self.reply, self.sent = channel, reply, []
        self.on_msg_callback: Any = None

    def on_msg(self, callback: Any) -> None:
        self.on_msg_callback = callback

    def on_close(self, callback: Any) -> None:
        pass

    def send(self, data: dict[str, Any]) -> None:
        self.sent.append(data)
        if self.reply is not None:
            answer = {**self.reply, "type": "reply", "id": data["id"]}
            asyncio.get_running_loop().call_soon(self.deliver, answer)

    def deliver(self, data: Any) -> None:
        self.on_msg_callback({"content": {"data": data}})


def channel_with(reply: Any = None, hello: bool = True) -> DocumentChannel:
    channel = DocumentChannel()
    comm = FakeComm(channel, reply)
    channel._adopt(comm)
    if hello:
        comm.deliver({"type": "hello", "frontend": "test"})
    return channel


async def test_without_a_frontend_the_tools_say_how_to_get_one() -> None:
    (list_cells, read_cell, *_rest) = NotebookTools(channel=channel_with(hello=False))
    for tool, args in ((list_cells, "{}"), (read_cell, '{"id": "x"}')):
        answer = await tool.on_invoke_tool(None, args)  # type: ignore[arg-type]
        assert answer.startswith("No notebook frontend is connected") and "\n" not in answer


async def test_a_silent_frontend_times_out_and_a_broken_one_is_an_error() -> None:
    with pytest.raises(NoFrontend, match=r"did not answer within 0\.05 s"):
        await channel_with(reply=None).cells(timeout=0.05)
    with pytest.raises(NoFrontend, match="could not answer: disk gone"):
        await channel_with(reply={"error": "disk gone"}).cells()
    with pytest.raises(NoFrontend, match="sent no cells"):
        await channel_with(reply={"cells": "junk"}).cells()


async def test_junk_cells_are_dropped_and_junk_messages_ignored() -> None:
    cells = [{"id": "a", "source": "x"}, {"source": "no id"}, "junk", {"id": 3}]
    channel = channel_with(reply={"cells": cells})
    comm = channel._comms[0]
    for junk in (None, "text", {"type": "reply", "id": "1"}, {"type": "reply", "id": 999}):
        comm.deliver(junk)
    assert await channel.cells() == [{"id": "a", "source": "x"}]
