"""A batch in a real JupyterLab: the progress widget counts rows while the cell runs, Stop
ends it (rows in flight finish, none start), and running the cell again goes on from there.
Screenshots of the widget in the light and dark themes go to ``test-artifacts/``."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from .lab import Lab, Session, expect, expecting_session

pytestmark = pytest.mark.browser

SETUP = """%load_ext jupyter_agents
import os, tempfile, time
import pandas as pd
from jupyter_agents.testing import ScriptedModel, text
os.chdir(tempfile.mkdtemp())
tickets = pd.DataFrame({"text": [f"ticket <b>{i}</b> refund" for i in range(300)]})
def slow(request):
    time.sleep(0.1)
    return text("billing <script>alert(1)</script>")
%agent model ScriptedModel(respond=slow)"""
BATCH = "%%agent --over tickets --concurrency 2 --out labels\nClassify: {text}"
AFTER = 'print("after:", labels.counts, labels.stopped)'


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with expecting_session(20_000) as s:  # runs take seconds
        yield s


def _theme(lab: Lab, theme: str) -> None:
    name = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}[theme]
    if lab.page.locator(f"body[data-jp-theme-name='{name}']").count() == 0:
        lab.menu("Settings", "Theme", name)
    expect(lab.page.locator(f"body[data-jp-theme-name='{name}']")).to_have_count(1)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_progress_stop_and_go_on(session: Session, theme: str) -> None:
    with session.lab(f"e2e-batch-{theme}", viewport=(1100, 800)) as lab:
        lab.write_notebook(f"batch_{theme}.ipynb", [SETUP, BATCH, AFTER])
        lab.open(f"batch_{theme}.ipynb")
        _theme(lab, theme)
        lab.run_all()
        out = lab.outputs(1)
        summary = out.locator(".widget-html").first
        expect(summary).to_contain_text(re.compile(r"[1-9]\d*/300 rows"), timeout=60_000)
        lab.screenshot(f"batch_progress_{theme}")
        assert out.locator("b").count() == 0 and out.locator("script").count() == 0  # text
        out.get_by_role("button", name="Stop").click()
        expect(summary).to_contain_text("stopped: run the cell again to go on", timeout=30_000)
        expect(lab.outputs(2)).to_contain_text("after:", timeout=30_000)
        shown = lab.outputs(2).text_content()
        assert "'pending'" in shown and "True" in shown
        lab.screenshot(f"batch_stopped_{theme}")
        assert not lab.errors, lab.errors
