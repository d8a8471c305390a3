"""``%agent cost`` as JupyterLab shows it: its Markdown goes through JupyterLab's math step and
then MathJax, and no two amounts may read as the ends of a formula."""

from __future__ import annotations

import html
import re
from decimal import Decimal
from typing import Any

import pytest
from markdown_it import MarkdownIt

from jupyter_agents.notebook.magics import costs
from jupyter_agents.notebook.magics.costs import CostBook, CostEntry, cost_magic
from jupyter_agents.runtime.cost import RunCost


def math_runs(markup: str) -> list[str]:
    """The runs of text MathJax searches for ``$...$`` in rendered HTML: it starts a new run at
    every element but ``<br>``, and skips ``code`` and ``pre``."""
    markup = re.sub(r"<(code|pre)\b.*?</\1>", "", markup, flags=re.S)
    return [html.unescape(run) for run in re.split(r"<(?!br\b)[^>]*>", markup)]


def unescaped_dollars(markdown: str) -> list[int]:
    """Where JupyterLab's step before Markdown (``removeMath``) would see a ``$`` delimiter."""
    return [m.start() for m in re.finditer(r"(?<!\\)\$", markdown)]


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    out: list[str] = []
    monkeypatch.setattr(costs, "display", lambda markdown: out.append(markdown.data))
    return out


def cost(usd: str | None, priced: str) -> RunCost:
    return RunCost(None if usd is None else Decimal(usd), Decimal(priced), usd is not None)


def test_no_two_amounts_of_percent_agent_cost_read_as_math(shown: list[str]) -> None:
    book = CostBook(cell_budget=Decimal("0.50"), notebook_budget=Decimal(5))
    book.add(CostEntry("c1", "notebook", "gpt-4.1", "done", 6_000, cost("0.0014", "0.0014")))
    book.add(CostEntry("c2", "a$b", "m$1$2", "done", 3_000, cost(None, "0.0007")))
    cost_magic(book, [])
    (markdown,) = shown
    assert "$0.50" in markdown.replace("\\", "") and "$5.00" in markdown.replace("\\", "")
    assert unescaped_dollars(markdown) == []
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    for run in math_runs(rendered):
        assert run.count("$") <= 1, f"MathJax would read math in {run!r}"
    text = html.unescape(re.sub(r"<[^>]+>", "", rendered))
    assert "total: $0.0021 + price unknown (budget per cell $0.50 · notebook budget $5.00" in text
    assert "| m$1$2 |" not in text and "m$1$2" in text  # every $ kept, as written


def test_math_runs_finds_the_math_of_two_amounts_in_one_paragraph() -> None:
    rendered = MarkdownIt("commonmark").render("**total**: \\$1 (spent \\$2)")
    assert any(run.count("$") == 2 for run in math_runs(rendered))


def test_an_empty_book_says_so(capsys: pytest.CaptureFixture[str], shown: list[Any]) -> None:
    cost_magic(CostBook(), [])
    assert shown == [] and "no %%agent run yet" in capsys.readouterr().out
