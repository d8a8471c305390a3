"""An evaluation report, a comparison and a batch's progress survive save and reopen in a real
JupyterLab.

A notebook runs two evaluations, compares them and runs a batch, and is saved. Reopened while
its kernel still runs, each output is the live widget again; reopened with a fresh kernel (the
widgets' models are gone) and with no kernel at all, each is drawn from its saved form, never
"Error displaying widget: model not found". Screenshots of the reopened notebook in the light
and dark themes go to ``test-artifacts/saved-forms-{light,dark}-{report,batch}.png`` (look at
them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_agents.notebook.saved import saved_forms

from .lab import Lab, Session, expect, expecting_session
from .test_batch_lab import _theme

pytestmark = pytest.mark.browser

SETUP = """%load_ext jupyter_agents
import os, tempfile
import pandas as pd
from pydantic_evals.evaluators import EqualsExpected
from jupyter_agents import Agent
from jupyter_agents.evals import compare
from jupyter_agents.testing import ScriptedModel, text
os.chdir(tempfile.mkdtemp())
qa = pd.DataFrame({"input": ["capital of France", "2 + 2", "<img src=x onerror=alert(1)>"],
                   "expected": ["Paris", "4", "inert"]}, index=["france", "sum", "hostile"])
def agent(name, answers):
    return Agent(name=name, model=ScriptedModel(respond=lambda r: text(answers[r.user_text])))
right = dict(zip(qa["input"], ["Paris", "4", "inert"]))
v1 = agent("v1", right)
v2 = agent("v2", right | {"capital of France": "Lyon"})
checks = [EqualsExpected()]
tickets = pd.DataFrame({"text": [f"ticket <b>{i}</b>" for i in range(5)]})
%agent model ScriptedModel(respond=lambda r: text("billing <script>alert(1)</script>"))"""
EVAL_A = "%%agent v1 --eval qa --scorer checks --out a"
EVAL_B = "%%agent v2 --eval qa --scorer checks --out b"
COMPARE = "compare(a, b)"
BATCH = "%%agent --over tickets --concurrency 2 --out labels\nClassify: {text}"
NAME = "saved_forms.ipynb"
FORM = ".ja-saved-form"


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with expecting_session(30_000) as s:
        yield s


def run_and_save(lab: Lab) -> Path:
    """Run every cell, wait until each widget shows, save."""
    path = lab.write_notebook(NAME, [SETUP, EVAL_A, EVAL_B, COMPARE, BATCH])
    lab.open(NAME)
    _theme(lab, "light")
    lab.run_all()
    live = f"{FORM}[data-ja-shown='live']"  # while the kernel has the widgets, they show
    report = lab.cell(2).locator(f"{live} .ja-ev")
    expect(report.locator(".ja-ev-summary")).to_contain_text("3 cases · 2 passed", timeout=90_000)
    expect(lab.cell(3).locator(f"{live} .ja-ev-title")).to_have_text("v1 on qa → v2 on qa")
    batch = lab.cell(4).locator(f"{live} .ja-batch")
    expect(batch).to_contain_text("5/5 rows", timeout=60_000)
    expect(batch.locator("button")).to_have_text("Done")
    expect(lab.cell(4).locator(".jp-OutputArea")).to_contain_text("the result is in 'labels'")
    lab.save(path)
    return path


def saved_documents(path: Path) -> dict[str, int]:
    """How many outputs of each saved form the file holds."""
    found: dict[str, int] = {}
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            for mime in output.get("data", {}):
                if mime in (saved_forms.EVAL_MIME_TYPE, saved_forms.BATCH_MIME_TYPE):
                    found[mime] = found.get(mime, 0) + 1
    return found


def open_without_kernel(lab: Lab) -> None:
    """Open the notebook in a page where no kernel can start (the server refuses the session):
    JupyterLab says so, asks for another kernel, and is told "No Kernel"."""

    def refuse(route: object) -> None:
        request = route.request  # type: ignore[attr-defined]
        if request.method == "POST":
            body = '{"message": "no kernel in this test"}'
            route.fulfill(status=503, body=body, content_type="application/json")  # type: ignore[attr-defined]
        else:
            route.continue_()  # type: ignore[attr-defined]

    lab.page.route(re.compile(r".*/api/sessions.*"), refuse)
    lab.opened.append(NAME)
    lab.page.goto(lab.server.url(f"lab/workspaces/e2e-no-kernel/tree/{NAME}"))
    expect(lab.page.locator(".jp-Dialog")).to_contain_text("no kernel in this test")
    lab.page.locator(".jp-Dialog .jp-mod-accept").click()  # then it asks for another kernel
    lab.page.locator(".jp-Dialog").get_by_role("button", name="No Kernel").click()
    expect(lab.page.locator(".jp-Dialog")).to_have_count(0)
    tab = lab.page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=NAME)
    lab.panel_id = tab.get_attribute("data-id")
    expect(lab.panel.locator(".jp-Toolbar-kernelName")).to_have_text("No Kernel")


def check_drawn(lab: Lab, theme: str) -> None:
    """Each report, the comparison and each batch's progress drawn from its saved form."""
    expect(lab.panel).not_to_contain_text("model not found")
    for index in (1, 2):  # each evaluation: its batch's progress, then its report
        progress = lab.cell(index).locator(f"{FORM}[data-ja-shown='saved'] .ja-bp")
        expect(progress.locator(".ja-bp-line")).to_contain_text("3/3 rows")
        report = lab.cell(index).locator(f"{FORM}[data-ja-shown='saved'] .ja-ev")
        expect(report.locator(".ja-ev-row")).to_have_count(3)
    report = lab.cell(2).locator(".ja-ev")
    expect(report.locator(".ja-ev-summary")).to_contain_text("3 cases · 2 passed")
    first = report.locator(".ja-ev-row").first
    expect(first).to_have_class(re.compile("ja-ev-fail"))
    first.click()  # the saved report opens a case as the live one does
    expect(report.locator(".ja-ev-detail .ja-ev-pre").nth(2)).to_have_text("Lyon")
    versus = lab.cell(3).locator(f"{FORM}[data-ja-shown='saved'] .ja-ev")
    expect(versus.locator(".ja-ev-title")).to_have_text("v1 on qa → v2 on qa")
    expect(versus.locator(".ja-ev-row").first).to_have_class(re.compile("ja-ev-ch-worse"))
    batch = lab.cell(4).locator(f"{FORM}[data-ja-shown='saved'] .ja-bp")
    expect(batch.locator(".ja-bp-line")).to_contain_text("5/5 rows")
    expect(batch.locator(".ja-bp-row")).to_have_count(5)
    expect(batch.locator(".ja-bp-row").first).to_contain_text("billing <script>")
    assert (
        lab.panel.locator(".ja-saved-form script, .ja-saved-form b, .ja-saved-form img").count()
        == 0
    )
    lab.notebook.click(position={"x": 4, "y": 4})  # command mode: no cursor in the shots
    lab.scroll_to_top(2)
    lab.screenshot(f"saved-forms-{theme}-report")
    lab.scroll_to_top(3)
    lab.screenshot(f"saved-forms-{theme}-batch")


@pytest.fixture(scope="module")
def saved(session: Session) -> Path:
    """The notebook, run and saved; its kernel still runs."""
    with session.lab("e2e-saved-forms-run", viewport=(1100, 900)) as lab:
        path = run_and_save(lab)
        expect(lab.panel.locator(f"{FORM}[data-ja-shown='saved']")).to_have_count(0)
        assert not lab.errors, lab.errors
        lab.opened.clear()  # keep its kernel running when this page closes
    return path


@pytest.mark.timeout(600)
def test_the_file_holds_each_saved_form(saved: Path) -> None:
    assert saved_documents(saved) == {
        saved_forms.EVAL_MIME_TYPE: 3,  # two reports and the comparison
        saved_forms.BATCH_MIME_TYPE: 3,  # the two evaluations' batches and the batch
    }


@pytest.mark.timeout(300)
def test_reopened_while_the_kernel_runs_the_widgets_come_back(
    session: Session, saved: Path
) -> None:
    with session.lab("e2e-saved-forms-same-kernel", viewport=(1100, 900)) as lab:
        lab.open(NAME)  # the kernel that has the widgets' models
        for index, forms in [(1, 2), (2, 2), (3, 1), (4, 1)]:
            cell = lab.cell(index)
            expect(cell.locator(f"{FORM}[data-ja-shown='live']")).to_have_count(forms)
            expect(cell.locator(f"{FORM}[data-ja-shown='saved']")).to_have_count(0)
        live = f"{FORM}[data-ja-shown='live'] .ja-saved-form-live"
        expect(lab.cell(3).locator(f"{live} .ja-ev-title")).to_have_text("v1 on qa → v2 on qa")
        expect(lab.cell(4).locator(f"{live} .ja-batch")).to_contain_text("5/5 rows")
        assert not lab.errors, lab.errors


@pytest.mark.timeout(300)
def test_reopened_with_a_new_kernel_each_is_drawn_from_its_saved_form(
    session: Session, saved: Path
) -> None:
    for each in session.server.sessions(NAME):  # the kernel that had the models is gone
        session.server.api("DELETE", f"sessions/{each['id']}")
    with session.lab("e2e-saved-forms-new-kernel", viewport=(1100, 900)) as lab:
        lab.open(NAME)
        _theme(lab, "dark")
        check_drawn(lab, "dark")
        assert not lab.errors, lab.errors


@pytest.mark.timeout(300)
def test_reopened_with_no_kernel_each_is_drawn_from_its_saved_form(
    session: Session, saved: Path
) -> None:
    with session.lab("e2e-saved-forms-no-kernel", viewport=(1100, 900)) as lab:
        open_without_kernel(lab)
        _theme(lab, "light")
        check_drawn(lab, "light")
        # JupyterLab's widgets extension asks the missing session for its kernel (its error)
        assert set(lab.errors) <= {"Cannot read properties of null (reading 'kernel')"}
