"""An evaluation in a real JupyterLab: ``%%agent --eval`` shows the report widget (anywidget,
loaded by the page from the kernel), failing case first; a click opens the case; compare(a, b)
shows what got worse first. Hostile text in the dataset stays text. Screenshots of the widget
in the light and dark themes go to ``test-artifacts/``."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from .lab import Session, expect, expecting_session
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
checks = [EqualsExpected()]"""
EVAL_A = "%%agent v1 --eval qa --scorer checks --out a"
EVAL_B = "%%agent v2 --eval qa --scorer checks --out b"
COMPARE = "compare(a, b)"


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with expecting_session(20_000) as s:
        yield s


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_report_and_the_comparison(session: Session, theme: str) -> None:
    with session.lab(f"e2e-evals-{theme}", viewport=(1100, 900)) as lab:
        lab.write_notebook(f"evals_{theme}.ipynb", [SETUP, EVAL_A, EVAL_B, COMPARE])
        lab.open(f"evals_{theme}.ipynb")
        _theme(lab, theme)
        lab.run_all()
        report = lab.outputs(2).locator(".ja-ev")
        expect(report.locator(".ja-ev-summary")).to_contain_text(
            "3 cases · 2 passed", timeout=60_000
        )
        first = report.locator(".ja-ev-row").first
        expect(first.locator(".ja-ev-name")).to_have_text("france")
        expect(first).to_have_class(re.compile("ja-ev-fail"))
        first.click()
        detail = report.locator(".ja-ev-detail")
        expect(detail.locator(".ja-ev-pre").nth(2)).to_have_text("Lyon")
        lab.screenshot(f"evals_report_{theme}")

        versus = lab.outputs(3).locator(".ja-ev")
        expect(versus.locator(".ja-ev-title")).to_have_text("v1 on qa → v2 on qa", timeout=30_000)
        expect(versus.locator(".ja-ev-row").first).to_have_class(re.compile("ja-ev-ch-worse"))
        hostile = versus.locator(".ja-ev-row").filter(has_text="onerror")
        expect(hostile).to_have_count(1)
        assert lab.page.locator(".ja-ev img").count() == 0
        lab.screenshot(f"evals_compare_{theme}")
        assert not lab.errors, lab.errors
