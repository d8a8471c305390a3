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

from jupyter_agents.notebook.saved.run_document import decode
from jupyter_agents.notebook.workspace import document_comm
from jupyter_agents.notebook.workspace.document_comm import DocumentChannel, NoFrontend
from jupyter_agents.notebook.workspace.notebook_tools import NotebookTools

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


def run_headless(tmp_path: Path, cells: list[Any], ids: list[str]) -> Any:
    """Write ``cells`` (with ``ids``) as a notebook, run ``python -m jupyter_agents.headless``
    on it with approvals automatic, and read the executed notebook."""
    for cell, cell_id in zip(cells, ids, strict=True):
        cell["id"] = cell_id
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
    return nbformat.read(tmp_path / "nb.out.ipynb", as_version=4)


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
    out = run_headless(tmp_path, cells, ["setup", "title", "data", "agent", "show"])
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
        self.channel, self.reply = channel, reply
        self.sent: list[Any] = []
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
    channel._comms.adopt(comm)
    if hello:
        comm.deliver({"type": "hello", "frontend": "test"})
    return channel


async def test_without_a_frontend_the_tools_say_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(document_comm, "HELLO_WAIT", 0.05)  # a comm nobody answers on
    (list_cells, read_cell, *_rest) = NotebookTools(channel=channel_with(hello=False))
    for tool, args in ((list_cells, "{}"), (read_cell, '{"id": "x"}')):
        answer = await tool.on_invoke_tool(None, args)  # type: ignore[arg-type]
        assert answer.startswith("No notebook frontend is connected") and "\n" not in answer


async def test_a_request_waits_for_the_hello_of_a_frontend_still_connecting() -> None:
    channel = channel_with(reply={"cells": [{"id": "a", "source": ""}]}, hello=False)
    comm = channel._comms.comms[0]
    asyncio.get_running_loop().call_later(0.05, comm.deliver, {"type": "hello"})
    assert await channel.cells() == [{"id": "a", "source": ""}]


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
    comm = channel._comms.comms[0]
    for junk in (None, "text", {"type": "reply", "id": "1"}, {"type": "reply", "id": 999}):
        comm.deliver(junk)
    assert await channel.cells() == [{"id": "a", "source": "x"}]


EDITS = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text, tool_call
demo = ScriptedModel([
    [tool_call("list_cells", {}, "l1")],
    [tool_call("edit_cell", {"id": "data", "version": "DATA_V", "new_source": "x = 2"}, "e1")],
    [tool_call("edit_cell", {"id": "draft", "version": "DRAFT_V", "new_source": "# v2"}, "e2")],
    [tool_call("edit_cell", {"id": "draft", "version": "DRAFT_V", "new_source": "lost"}, "e4")],
    [tool_call("edit_cell", {"id": "draft", "version": "OLD_V", "new_source": "lost"}, "e5")],
    [tool_call("insert_cell", {"cell_type": "markdown", "source": "## Added",
                               "after_id": "data"}, "i1")],
    [tool_call("delete_cell", {"id": "junk", "version": "JUNK_V"}, "d1")],
    [tool_call("move_cell", {"id": "draft", "after_id": None}, "m1")],
    [tool_call("edit_cell", {"id": "agent", "version": "x", "new_source": "no"}, "e3")],
    [tool_call("delete_cell", {"id": "nope", "version": "x"}, "d2")],
    [text("Changed it.")],
])
%agent model demo
%agent tools add notebook"""


@pytest.mark.kernel
@pytest.mark.timeout(180)
def test_the_headless_runner_applies_approved_changes_and_refuses_stale_ones(
    tmp_path: Path,
) -> None:
    from jupyter_agents.notebook.workspace.cell_outputs import cell_version

    OLD = cell_version("# an older draft")
    setup = (
        EDITS.replace("DATA_V", cell_version("x = 1"))
        .replace("OLD_V", cell_version("# an older draft"))
        .replace("DRAFT_V", cell_version("# draft"))
        .replace("JUNK_V", cell_version("junk = 0"))
    )
    sources = [
        ("setup", setup),
        ("data", "x = 1"),
        ("draft", "# draft"),
        ("junk", "junk = 0"),
        ("agent", "%%agent --max-turns 20\nTidy the notebook."),
        ("show", "for r in demo.requests[2:11]:\n    print('===', r.input[-1]['output'])"),
    ]
    cells = [nbformat.v4.new_code_cell(source) for _id, source in sources]
    out = run_headless(tmp_path, cells, [cell_id for cell_id, _source in sources])
    layout = [(c.get("id"), c.cell_type, c.source) for c in out.cells]
    assert [cid for cid, _t, _s in layout if cid != layout[3][0]] == [
        "draft",
        "setup",
        "data",
        "agent",
        "show",
    ]
    assert layout[3][1:] == ("markdown", "## Added")  # inserted after data, not run
    assert out.cells[2].source == "x = 2" and out.cells[0].source == "# v2"  # stale: kept
    told = "".join(o.get("text", "") for o in out.cells[-1].outputs).split("=== ")[1:]
    assert told[0].startswith("Edited cell data (version now ")
    assert told[1].startswith("Edited cell draft")
    # both name a version the cell no longer holds: refused before anyone is asked
    assert told[2].strip() == (
        f"Not applied: cell draft is not at version {cell_version('# draft')} (the user may "
        "have typed in it since you read it); read it again with read_cell."
    )
    assert told[3].startswith(f"Not applied: cell draft is not at version {OLD}")
    assert told[4].startswith("Inserted cell ") and "it has not run" in told[4]
    assert told[5].startswith("Deleted cell junk")
    assert told[6].startswith("Moved cell draft")
    assert told[7].startswith("The agent's own cell cannot be edited.")
    assert out.cells[4].source.startswith("%%agent")
    assert told[8].startswith("No cell with id 'nope'; nothing changed.")
    saved = decode(out.cells[4].outputs[0]["data"]["application/vnd.jupyter-agents.run+json"])
    cards = [b for b in saved["blocks"] if b.get("name", "").endswith("_cell")]
    diffs = [p["text"] for c in cards for p in c["parts"] if p.get("type") == "diff"]
    assert len(diffs) == 5  # the calls refused before asking have no card of their own
    assert diffs[0] == "update_cell data\n@@ -1 +1 @@\n-x = 1\n+x = 2"  # the card's diff
    assert diffs[2] == (
        "create_cell (markdown, after data)\n+## Added\n# the cell it goes after (data):\n  x = 2"
    )
    assert diffs[3] == "delete_cell junk\n-junk = 0"
    assert diffs[4] == "move_cell draft to the top\n# the cell that moves:\n  # v2"
