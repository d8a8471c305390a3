"""The notebook agent's reading tools in a real JupyterLab: the page answers the kernel's
``jupyter_agents.document`` requests from the notebook it shows, so the agent lists the cells
(its own marked as running), reads a cell with what the person typed and has not saved, and
inspects a DataFrame."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .lab import Lab, Session, expect

pytestmark = pytest.mark.browser

SETUP = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text, tool_call
demo = ScriptedModel([
    [tool_call("list_cells", {}, "l1")],
    [tool_call("read_cell", {"id": "draft"}, "r1")],
    [tool_call("inspect_variable", {"name": "sales"}, "v1")],
    [text("Read it all.")],
])
%agent model demo
%agent tools add notebook"""
DATA = 'import pandas as pd\nsales = pd.DataFrame({"city": ["Paris", None], "units": [3, 5]})'
DRAFT = "# draft"
AGENT = "%%agent\nWhat is in this notebook?"
SHOW = "import json\nprint(json.dumps([demo.requests[i].input[-1]['output'] for i in (1, 2, 3)]))"
CELLS = [("setup", SETUP), ("data", DATA), ("draft", DRAFT), ("agent", AGENT), ("show", SHOW)]


def test_the_agent_reads_the_notebook_the_person_sees(session: Session) -> None:
    with session.lab("notebook-tools") as lab:
        lab.write_notebook("reading.ipynb", [c for _i, c in CELLS], [i for i, _c in CELLS])
        lab.open("reading.ipynb")
        lab.run_cell(0)
        expect(lab.outputs(0)).to_contain_text("read the notebook's cells and variables")
        lab.run_cell(1)
        lab.cell(2).locator(".cm-content").click()
        lab.page.keyboard.press("Control+End")
        lab.page.keyboard.type("\nx = 42  # typed, not saved")
        lab.run_cell(3)
        expect(lab.outputs(3)).to_contain_text("Read it all.")
        lab.run_cell(4)
        expect(lab.outputs(4)).to_contain_text("[")
        listing, draft, sales = json.loads(lab.outputs(4).first.text_content())
        lab.screenshot("notebook-tools")
    lines = listing.splitlines()
    assert lines[0].startswith("1. setup code [1]: '%load_ext jupyter_agents'")
    assert lines[1].startswith("2. data code [2]: 'import pandas as pd'")
    assert re.match(r"4\. agent code( \[\d+\])?: '%%agent'.* · running now", lines[3]), listing
    assert draft.startswith("cell draft (code, version ")
    assert "x = 42  # typed, not saved" in draft  # what the page holds, not the file
    assert "sales: pandas DataFrame, 2 rows x 2 columns" in sales and "1 null" in sales


CHANGES = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text, tool_call
demo = ScriptedModel([
    [tool_call("list_cells", {}, "l1")],
    [tool_call("edit_cell", {"id": "draft", "version": "DRAFT_V", "new_source": "# mine"}, "e1")],
    [tool_call("edit_cell", {"id": "data", "version": "DATA_V", "new_source": "x = 10"}, "e2")],
    [tool_call("insert_cell", {"cell_type": "code", "source": "y = x + 1", "after_id": "data"},
               "i1")],
    [tool_call("delete_cell", {"id": "draft", "version": "DRAFT_V"}, "d1")],
    [text("Done.")],
])
%agent model demo
%agent tools add notebook"""


def waiting_card(lab: Lab, index: int) -> Any:
    """The card of the call waiting for approval, once it is the ``index``-th card (a
    Playwright ``Locator``)."""
    cards = lab.page.locator(".ja-run .ja-tool")  # (one run)
    expect(cards.nth(index)).to_have_class(re.compile(r"\bja-st-waiting\b"), timeout=30_000)
    return cards.nth(index)


def test_changes_are_approved_as_diffs_stale_ones_refused_and_undo_takes_the_agents_edit(
    session: Session,
) -> None:

    from jupyter_agents.notebook.workspace.cell_outputs import cell_version

    setup = CHANGES.replace("DRAFT_V", cell_version("# draft")).replace(
        "DATA_V", cell_version("x = 1")
    )
    sources = [
        ("setup", setup),
        ("data", "x = 1"),
        ("draft", "# draft"),
        ("agent", "%%agent\nTidy up."),
        ("show", "print([r.input[-1]['output'] for r in demo.requests[2:6]])"),
    ]
    with session.lab("notebook-changes") as lab:
        lab.write_notebook("changes.ipynb", [c for _i, c in sources], [i for i, _c in sources])
        lab.open("changes.ipynb")
        lab.run_cell(0)
        lab.run_cell(3)
        # 1. the edit of the draft: the card shows the diff; the person types meanwhile
        card = waiting_card(lab, 1)
        expect(card.locator(".ja-diff")).to_contain_text("update_cell draft")
        expect(card.locator(".ja-diff-del")).to_have_text("-# draft")
        expect(card.locator(".ja-diff-add")).to_have_text("+# mine")
        lab.cell(2).locator(".cm-content").click()
        lab.page.keyboard.press("Control+End")
        lab.page.keyboard.type(" typed by me")
        card.get_by_role("button", name="Approve", exact=True).click()
        # 2. the edit of the data cell, approved: applied
        waiting_card(lab, 2).get_by_role("button", name="Approve", exact=True).click()
        # 3. the insert, approved
        waiting_card(lab, 3).get_by_role("button", name="Approve", exact=True).click()
        # 4. the delete names the draft's version before the person typed: refused unasked
        expect(lab.outputs(4)).to_contain_text("Done.")  # the agent's cell moved down one
        lab.screenshot("notebook-changes")
        sources_now = lab.page.evaluate(
            """() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].map(
                c => c.querySelector('.cm-content').innerText)"""
        )
        assert sources_now[1] == "x = 10" and sources_now[2] == "y = x + 1"
        assert sources_now[3] == "# draft typed by me"  # stale: the person's text kept
        # Ctrl+Z in the data cell takes back the agent's edit, and only it
        lab.cell(1).locator(".cm-content").click()
        lab.page.keyboard.press("Control+z")
        expect(lab.cell(1).locator(".cm-content")).to_have_text("x = 1")
        lab.run_cell(5)
        expect(lab.outputs(5)).to_contain_text("Not applied")
        told = lab.outputs(5).first.text_content()
    assert "Not applied: cell draft changed since the card showed it" in told
    assert "Edited cell data" in told and "Inserted cell" in told
    assert "Not applied: cell draft is not at version" in told  # the delete: nobody asked


RUNS = """%load_ext jupyter_agents
import re
from jupyter_agents.testing import ScriptedModel, text, tool_call
NEW = "print('rows:', len(sales))\\nsales.assign(double=sales.units * 2)"

def step(request):
    done = sum(1 for item in request.input if item.get("type") == "function_call_output")
    said = request.input[-1].get("output", "") if done else ""
    if done == 0:
        return [tool_call("list_cells", {}, "l1")]
    if done == 1:
        return [tool_call("insert_cell", {"cell_type": "code", "source": NEW,
                                          "after_id": "data"}, "i1")]
    if done == 2:
        cell, version = re.search(r"Inserted cell (\\S+) \\(version now (\\w+)\\)", said).groups()
        return [tool_call("run_cells", {"cells": [{"id": cell, "version": version}]}, "r1")]
    return [text("Added a doubled column.")]

demo = ScriptedModel(respond=step)
%agent model demo
%agent tools add notebook"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_agent_inserts_a_cell_and_runs_it_with_the_persons_approval(
    session: Session, theme: str
) -> None:
    sources = [
        ("setup", RUNS),
        ("data", DATA),
        ("agent", "%%agent\nAdd a doubled column."),
        ("show", "print(demo.requests[3].input[-1]['output'])"),
    ]
    with session.lab(f"notebook-runs-{theme}") as lab:
        ids = [i for i, _c in sources]
        lab.write_notebook(f"runs_{theme}.ipynb", [c for _i, c in sources], ids)
        lab.open(f"runs_{theme}.ipynb")
        if theme == "dark":
            lab.menu("Settings", "Theme", "JupyterLab Dark")
        lab.run_cell(0)
        lab.run_cell(1)
        lab.run_cell(2)
        waiting_card(lab, 1).get_by_role("button", name="Approve", exact=True).click()
        run = waiting_card(lab, 2)
        expect(run.locator(".ja-code")).to_contain_text("print('rows:', len(sales))")
        lab.screenshot(f"notebook-run-card-{theme}")
        run.get_by_role("button", name="Approve", exact=True).click()
        expect(lab.outputs(3)).to_contain_text("Added a doubled column.")
        new = lab.outputs(2)  # the inserted cell, after data
        expect(new.first).to_have_text("rows: 2\n")
        expect(new.nth(1).locator("table")).to_contain_text("double")
        expect(lab.prompt(3)).to_have_text(re.compile(r"\[\d+\]"))  # its reply came (not [*])
        count = lab.execution_count(2)
        agent = lab.execution_count(3)
        assert count is not None and agent == count + 1  # the agent's cell ends after it
        lab.screenshot(f"notebook-run-{theme}")
        lab.run_cell(4)
        expect(lab.outputs(4)).to_contain_text(f"ran as [{count}]")
        told = lab.outputs(4).first.text_content()
        assert "rows: 2" in told and "double" in told
        path = session.server.root / f"runs_{theme}.ipynb"
        lab.save(path)
    saved = json.loads(path.read_text())
    kinds = [o["output_type"] for o in saved["cells"][2]["outputs"]]
    assert kinds == ["stream", "execute_result"]
    assert saved["cells"][2]["execution_count"] == count
    assert "transient" not in saved["cells"][2]["outputs"][1]


SCOPES = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text, tool_call
demo = ScriptedModel([
    [tool_call("insert_cell", {"cell_type": "markdown", "source": "first note"}, "i1")],
    [text("Added one.")],
    [tool_call("insert_cell", {"cell_type": "markdown", "source": "second note"}, "i2")],
    [tool_call("restart_kernel", {"reason": "a clean slate"}, "k1")],
    [text("Restarting.")],
])
%agent model demo
%agent tools add notebook
x = 1"""


def test_always_in_this_notebook_spans_cells_and_never_covers_a_restart(session: Session) -> None:
    sources = [
        ("setup", SCOPES),
        ("one", "%%agent\nAdd a note."),
        ("two", "%%agent\nAdd another, then start over."),
        ("check", "print('x' in globals())"),
    ]
    with session.lab("notebook-scopes") as lab:
        lab.write_notebook("scopes.ipynb", [c for _i, c in sources], [i for i, _c in sources])
        lab.open("scopes.ipynb")
        lab.run_cell(0)
        lab.run_cell(1)
        card = waiting_card(lab, 0)
        card.locator(".ja-always-notebook input").check()
        card.get_by_role("button", name="Approve", exact=True).click()
        expect(lab.outputs(1)).to_contain_text("Added one.")
        lab.run_cell(2)  # (the note went to the end)
        second = lab.cell(2).locator(".ja-run .ja-tool")
        expect(second.first.locator(".ja-decided")).to_have_text(
            "✓ Approved (always in this notebook)"
        )
        restart = second.nth(1)
        expect(restart).to_have_class(re.compile(r"\bja-st-waiting\b"))
        expect(restart.locator(".ja-always")).to_be_hidden()  # asked every time
        expect(restart.locator(".ja-always-notebook")).to_be_hidden()
        restart.scroll_into_view_if_needed()
        lab.screenshot("notebook-restart-card")
        restart.get_by_role("button", name="Approve", exact=True).click()
        expect(lab.outputs(2)).to_contain_text("Restarting.")
        expect(lab.prompt(2)).to_have_text(re.compile(r"\[\d+\]"))  # ended: the restart began
        lab.run_cell(3)
        expect(lab.outputs(3)).to_have_text("False\n", timeout=60_000)  # a fresh kernel
        assert lab.execution_count(3) == 1


LINE_ENDS = """from jupyter_agents.notebook.host import current_host
import json
doc = current_host().document
put = await doc.request(
    {"op": "insert", "args": {"cell_type": "code", "source": "a = 1\\r\\nb = 2\\rc = 3"}}
)
cells = {c["id"]: c["source"] for c in await doc.cells()}
edit = await doc.request(
    {"op": "edit", "args": {"id": "crlf", "expected": cells["crlf"], "source": "x"}}
)
print(json.dumps([put, cells[put["cell"]], edit]))"""


def test_line_ends_the_editor_does_not_show_never_reach_or_break_a_cell(
    session: Session,
) -> None:
    with session.lab("notebook-line-ends") as lab:
        sources = ["%load_ext jupyter_agents", LINE_ENDS, "x = 1\r\ny = 2"]
        lab.write_notebook("line_ends.ipynb", sources, ["setup", "probe", "crlf"])
        lab.open("line_ends.ipynb")
        lab.run_cell(0)
        lab.run_cell(1)
        expect(lab.outputs(1)).to_contain_text("[")
        put, stored, edit = json.loads(lab.outputs(1).first.text_content())
        assert put["done"] is True and put["source"] == "a = 1\nb = 2\nc = 3"
        assert stored == "a = 1\nb = 2\nc = 3"  # written with plain line feeds
        assert edit["refused"].startswith("that cell's source holds carriage returns")
        assert not lab.errors, lab.errors


def test_an_outside_agent_works_on_the_notebook_over_mcp_with_approvals_clicked_here(
    session: Session,
) -> None:
    import asyncio
    import concurrent.futures

    from mcp.types import CallToolResult, TextContent

    from jupyter_agents.mcp import MCPServerStreamableHttp

    def text_of(result: CallToolResult) -> str:
        content = result.content[0]
        assert isinstance(content, TextContent), content
        return content.text

    sources = [
        "%load_ext jupyter_agents",
        "%agent mcp serve --notebook",
        "import json\nprint(json.dumps(toolbox_server.client_config()))",
        "x = 41",
    ]
    with session.lab("notebook-mcp-serve") as lab:
        lab.write_notebook("served.ipynb", sources, ["setup", "serve", "config", "data"])
        lab.open("served.ipynb")
        for index in range(4):
            lab.run_cell(index)
        expect(lab.outputs(2)).to_contain_text("mcpServers")
        config = json.loads(lab.outputs(2).first.text_content())["mcpServers"]["notebook"]

        async def outside_agent() -> list[str]:
            server = MCPServerStreamableHttp(config, name="served")
            said: list[str] = []
            async with server:
                names = [t.name for t in await server.list_tools()]
                said.append(",".join(names))
                read = await server.call_tool("read_cell", {"id": "data"})
                said.append(text_of(read))
                put = await server.call_tool(
                    "insert_cell", {"cell_type": "code", "source": "print(x + 1)"}
                )
                said.append(text_of(put))
                inserted = re.search(r"Inserted cell (\S+) \(version now (\w+)\)", said[-1])
                assert inserted is not None, said[-1]
                cell, version = inserted.groups()
                ran = await server.call_tool(
                    "run_cells", {"cells": [{"id": cell, "version": version}]}
                )
                said.append(text_of(ran))
            return said

        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            calls = pool.submit(asyncio.run, outside_agent())
            cards = lab.outputs(1).locator(".ja-tool")
            for index in (1, 2):  # the insert, then the run (after read_cell's card): each waits
                card = cards.nth(index)
                expect(card).to_have_class(re.compile(r"\bja-st-waiting\b"))
                card.get_by_role("button", name="Approve", exact=True).click()
            said = calls.result(timeout=60)
        lab.screenshot("notebook-mcp-serve")
        names, read, put, ran = said
        assert {"list_cells", "read_cell", "insert_cell", "run_cells"} <= set(names.split(","))
        assert "x = 41" in read and put.startswith("Inserted cell ")
        assert "ran as [" in ran and "42" in ran
        # the new cell went to the end (after the empty cell Shift+Enter left) and ran here
        expect(lab.cell(5).locator(".cm-content")).to_have_text("print(x + 1)")
        expect(lab.outputs(5)).to_have_text("42\n")
