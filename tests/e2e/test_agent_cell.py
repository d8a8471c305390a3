"""The JupyterLab extension in a real JupyterLab: ``%%agent`` cells read as prose.

In a code cell whose first line is ``%%agent``, CodeMirror highlights the body as Markdown
(JupyterLab's own Markdown, with CodeMirror's standard ``tok-*`` token classes), the magic line
as a header with its options, and ``{expression}`` spans as Python. Other code cells keep
JupyterLab's Python highlighting, and removing the magic line turns a cell back into Python.

Screenshots of the cell in the light and dark themes go to ``test-artifacts/`` (the ones in
``docs/images/`` are copies of them).
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from ..prerequisites import fail_or_skip
from .lab import ARTIFACTS, LabServer, Session, expect, expecting_session

pytestmark = pytest.mark.browser

AGENT_CELL = (
    "%%agent analyst --model gpt-4.1 --max-turns 4 --bogus\n"
    "# Plan\n"
    "Summarise **the** columns of {df.describe()} in a short _table_,\n"
    "then compare them with `last_week`.\n"
    "\n"
    "- Keep it under {limit * 2} words.\n"
    "- Literal braces stay text: {{like this}}."
)
PYTHON_CELL = "# Plan\nx = 1  # a Python cell"

LINE_SPANS = """line => Array.from(line.querySelectorAll('span'))
    .filter(s => s.childElementCount === 0)
    .map(s => [s.className, s.textContent])"""
"""The innermost spans of a ``.cm-line`` as ``[class, text]`` pairs."""


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with expecting_session() as s:
        _require_extension(s.server)
        yield s


def _require_extension(server: LabServer) -> None:
    """The server's JupyterLab lists the extension (a stale editable install may not have it)."""
    with urllib.request.urlopen(server.url("lab"), timeout=10) as response:
        page = response.read().decode()
    found = re.search(r'<script id="jupyter-config-data"[^>]*>(.*?)</script>', page, re.S)
    config = json.loads(found.group(1)) if found else {}
    names = [e.get("name") for e in config.get("federated_extensions", [])]
    if "jupyter-agents" not in names:
        fail_or_skip(
            "the jupyter-agents JupyterLab extension is not installed in this environment "
            f"(it has {names}): `pip install -e .` installs the prebuilt one"
        )


def _spans(cell: Any, line: int) -> list[list[str]]:
    spans: list[list[str]] = cell.locator(".cm-line").nth(line).evaluate(LINE_SPANS)
    return spans


def _classes_of(spans: list[list[str]], text: str) -> set[str]:
    return {c for cls, t in spans if text in t for c in cls.split()}


def _tok_classes(cell: Any) -> int:
    count: int = cell.locator(".cm-content [class*='tok-']").count()
    return count


def test_agent_cells_read_as_markdown_and_other_cells_stay_python(session: Session) -> None:
    with session.lab("e2e-agent-cell") as lab:
        lab.write_notebook("agent_cell.ipynb", [AGENT_CELL, PYTHON_CELL])
        lab.open("agent_cell.ipynb")
        agent, python = lab.cell(0), lab.cell(1)

        # The agent cell: in agent mode, the magic line a header with its words marked.
        expect(agent.locator(".cm-editor.jp-agent-cell")).to_have_count(1)
        header = agent.locator(".cm-line.jp-agent-magic-line")
        expect(header).to_have_count(1)
        expect(header.locator(".jp-agent-magic-command")).to_have_text("%%agent")
        expect(header.locator(".jp-agent-magic-agent")).to_have_text("analyst")
        expect(header.locator(".jp-agent-magic-flag")).to_have_text(["--model", "--max-turns"])
        expect(header.locator(".jp-agent-magic-value")).to_have_text(["gpt-4.1", "4"])
        expect(header.locator(".jp-agent-magic-invalid")).to_have_text("--bogus")

        # The body: CodeMirror's Markdown tokens (heading, strong, emphasis).
        expect(agent.locator(".cm-line").nth(1).locator(".tok-heading")).not_to_have_count(0)
        expect(agent.locator(".tok-strong", has_text="the")).not_to_have_count(0)
        expect(agent.locator(".tok-emphasis", has_text="table")).not_to_have_count(0)
        # {expression}: marked, and parsed as Python inside.
        expect(agent.locator(".jp-agent-expression").first).to_have_text("{df.describe()}")
        expect(agent.locator(".tok-propertyName", has_text="describe")).to_have_count(1)
        expect(agent.locator(".tok-variableName", has_text="limit")).to_have_count(1)
        assert "jp-agent-expression" not in _classes_of(_spans(agent, 6), "like this")

        # The Python cell: JupyterLab's Python highlighting, none of the above.
        expect(python.locator(".cm-editor.jp-agent-cell")).to_have_count(0)
        expect(python.locator(".jp-agent-magic-line")).to_have_count(0)
        assert _tok_classes(python) == 0
        comment = _classes_of(_spans(python, 0), "# Plan")
        assert comment, "the Python cell's comment has no highlighting class"
        heading = _classes_of(_spans(agent, 1), "Plan")
        assert "tok-heading" in heading and not comment & heading

        # Typing the magic line turns the Python cell into an agent cell...
        python.locator(".cm-content").click()
        lab.page.keyboard.press("Control+Home")
        lab.page.keyboard.type("%%agent\n")
        expect(python.locator(".cm-editor.jp-agent-cell")).to_have_count(1)
        expect(python.locator(".cm-line").nth(1).locator(".tok-heading")).not_to_have_count(0)
        expect(python.locator(".jp-agent-magic-line")).to_have_count(1)
        # ...and deleting it turns it back into Python, with the same classes as before.
        for _ in "%%agent\n":
            lab.page.keyboard.press("Backspace")
        expect(python.locator(".cm-editor.jp-agent-cell")).to_have_count(0)
        expect(python.locator(".jp-agent-magic-line")).to_have_count(0)
        expect(python.locator(".cm-content [class*='tok-']")).to_have_count(0)
        assert _classes_of(_spans(python, 0), "# Plan") == comment

        # Removing the magic line of the agent cell makes it Python too.
        agent.locator(".cm-content").click()
        lab.page.keyboard.press("Control+Home")
        lab.page.keyboard.press("Shift+ArrowDown")
        lab.page.keyboard.press("Backspace")
        expect(agent.locator(".cm-editor.jp-agent-cell")).to_have_count(0)
        expect(agent.locator(".cm-content [class*='tok-']")).to_have_count(0)
        assert _classes_of(_spans(agent, 0), "# Plan") == comment
        assert not lab.errors, lab.errors


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_agent_cell_screenshots(session: Session, theme: str) -> None:
    """The highlighted cell in JupyterLab's light and dark themes (look at them)."""
    with session.lab(f"e2e-agent-cell-{theme}", viewport=(1000, 700)) as lab:
        lab.write_notebook(f"agent_cell_{theme}.ipynb", [AGENT_CELL, PYTHON_CELL])
        lab.open(f"agent_cell_{theme}.ipynb")
        name = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}[theme]
        if lab.page.locator(f"body[data-jp-theme-name='{name}']").count() == 0:
            lab.menu("Settings", "Theme", name)
        expect(lab.page.locator(f"body[data-jp-theme-name='{name}']")).to_have_count(1)
        agent = lab.cell(0)
        expect(agent.locator(".cm-editor.jp-agent-cell")).to_have_count(1)
        expect(agent.locator(".tok-propertyName", has_text="describe")).to_have_count(1)
        lab.notebook.click(position={"x": 4, "y": 4})  # command mode: no cursor in the shot
        first, second = agent.bounding_box(), lab.cell(1).bounding_box()
        assert first and second
        ARTIFACTS.mkdir(exist_ok=True)
        lab.page.screenshot(
            path=str(ARTIFACTS / f"agent-cell-{theme}.png"),
            clip={
                "x": first["x"],
                "y": first["y"] - 8,
                "width": first["width"],
                "height": second["y"] + second["height"] - first["y"] + 16,
            },
        )
