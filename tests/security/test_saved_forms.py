"""The saved forms of evaluation reports and batches (``saved_forms.py``) keep hostile text
inert: their HTML and Markdown escape every text (a dataset's input, a model's output, a row's
error, a scorer's reason), and a saved document is data whatever it holds."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from jupyter_agents.notebook.saved import saved_forms
from jupyter_agents.notebook.saved.saved_forms import BatchState

from .payloads import PAYLOADS
from .test_render import assert_inert


def hostile_report(text: str, mode: str = "report") -> dict[str, object]:
    cell = {"shown": text, "ok": None, "reason": text}
    return {
        "mode": mode,
        "title": text,
        "summary": text,
        "scorers": [{"name": text, "kind": text, "a": text, "b": None, "delta": text}],
        "cases": [
            {
                "key": text,
                "name": text,
                "status": text,
                "change": text,
                "input": text,
                "expected": text,
                "output": text,
                "scores": {text: cell},
                "scores_b": {text: cell},
                "output_b": text,
                "seconds": 1,
                "cost": None,
                "error": text,
                "tools": [{"name": text, "arguments": text, "status": text}],
            }
        ],
        "total": 1,
    }


def hostile_batch(text: str) -> BatchState:
    return {
        "line": text,
        "finished": 1,
        "total": 2,
        "outcome": text,
        "latest": [{"label": text, "status": text, "text": text}],
        "errors": [{"label": text, "text": text}],
    }


def forms(text: str) -> list[tuple[str, str]]:
    """(HTML, Markdown) of every saved form holding ``text`` everywhere."""
    return [
        (
            saved_forms.report_html(hostile_report(text)),
            saved_forms.report_markdown(hostile_report(text)),
        ),
        (
            saved_forms.report_html(hostile_report(text, "compare")),
            saved_forms.report_markdown(hostile_report(text, "compare")),
        ),
        (
            saved_forms.batch_html(hostile_batch(text)),
            saved_forms.batch_markdown(hostile_batch(text)),
        ),
    ]


def markdown_renderers() -> list[MarkdownIt]:
    """CommonMark with raw HTML on (as JupyterLab renders trusted Markdown)."""
    return [MarkdownIt("commonmark", {"html": True})]


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_each_payload_stays_text_in_every_saved_form(name: str) -> None:
    for html, markdown in forms(PAYLOADS[name]):
        assert_inert(html, styles_allowed=1)  # the form's own theme styles
        assert markdown.count("\n") == 1 and markdown.endswith("</div>\n")  # one HTML block
        assert "<style" not in markdown
        for md in markdown_renderers():
            assert_inert(md.render(markdown))
        assert len(html) < 20_000  # every text cut for the table


def test_a_saved_document_is_data() -> None:
    state = hostile_report(PAYLOADS["script tag"])
    document = saved_forms.encode(state)
    assert document is not None and "<script" not in str(document)  # base64 of gzip
    assert saved_forms.decode(document) == state  # as written; the views treat it as text
