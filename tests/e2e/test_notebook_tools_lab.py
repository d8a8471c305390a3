"""The notebook agent's reading tools in a real JupyterLab: the page answers the kernel's
``jupyter_agents.document`` requests from the notebook it shows, so the agent lists the cells
(its own marked as running), reads a cell with what the person typed and has not saved, and
inspects a DataFrame."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from .lab import Session, lab_session

try:
    from playwright.sync_api import expect
except ImportError:  # the fixture skips (or fails under CI) with install instructions
    expect = None

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


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with lab_session() as s:
        expect.set_options(timeout=30_000)
        try:
            yield s
        finally:
            expect.set_options(timeout=5_000)


def test_the_agent_reads_the_notebook_the_person_sees(session: Session) -> None:
    import nbformat

    cells = []
    for cell_id, source in CELLS:
        cell = nbformat.v4.new_code_cell(source)
        cell["id"] = cell_id
        cells.append(cell)
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, session.server.root / "reading.ipynb")
    with session.lab("notebook-tools") as lab:
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
        listing, draft, sales = json.loads(lab.outputs(4).first.inner_text())
        lab.screenshot("notebook-tools")
    lines = listing.splitlines()
    assert lines[0].startswith("1. setup code [1]: '%load_ext jupyter_agents'")
    assert lines[1].startswith("2. data code [2]: 'import pandas as pd'")
    assert re.match(r"4\. agent code( \[\d+\])?: '%%agent'.* · running now", lines[3]), listing
    assert draft.startswith("cell draft (code, version ")
    assert "x = 42  # typed, not saved" in draft  # what the page holds, not the file
    assert "sales: pandas DataFrame, 2 rows x 2 columns" in sales and "1 null" in sales
