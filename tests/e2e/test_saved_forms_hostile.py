"""Crafted saved forms of evaluation reports and batches, in a notebook someone sent, stay
harmless in a real JupyterLab.

The documents (``application/vnd.jupyter-agents.eval+json``, ``...batch+json``) are drawn by the
lab extension. Their values are untrusted: every text carries a hostile payload, the fields that
choose CSS classes name classes that would hide JupyterLab's own UI, other fields have the wrong
type, each output names a widget model (an untrusted output is never handed to a widget view),
and two documents inflate past the 8 MB bound (gzip bombs): those show their HTML form instead.
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import pytest

from jupyter_agents.notebook.saved.saved_forms import (
    BATCH_MIME_TYPE,
    EVAL_MIME_TYPE,
    WIDGET_VIEW_MIME_TYPE,
)
from tests.security.payloads import ALL, EVIL_HOST

from .lab import Session, expect

pytestmark = pytest.mark.browser

EVIL = "ja-evil jp-mod-hidden lm-mod-hidden"
TEXT = ALL[:4000]  # every payload but the longest (the saved texts are cut like this too)


def packed(state: Any) -> dict[str, Any]:
    data = gzip.compress(json.dumps(state).encode(), mtime=0)
    return {"version": 1, "encoding": "gzip+base64", "data": base64.b64encode(data).decode()}


BOMB = {
    "version": 1,
    "encoding": "gzip+base64",
    # 64 MB of spaces in one gzip member: about 90 KB of base64.
    "data": base64.b64encode(gzip.compress(b" " * (64 << 20), compresslevel=9)).decode(),
}

REPORT = {
    "mode": "report",
    "title": TEXT,
    "summary": TEXT,
    "scorers": [{"name": TEXT, "kind": EVIL, "a": 0.5, "b": None, "delta": None}],
    "cases": [
        {
            "key": "k1",
            "name": "crafted case",
            "status": f"fail {EVIL}",
            "change": EVIL,
            "input": TEXT,
            "expected": TEXT,
            "output": TEXT,
            "scores": {TEXT: {"shown": TEXT, "ok": EVIL, "reason": TEXT}},
            "scores_b": {},
            "output_b": "",
            "seconds": 1,
            "cost": None,
            "error": "",
            "tools": [{"name": TEXT, "arguments": TEXT, "status": EVIL}],
        }
    ],
    "total": 1,
}
COMPARISON = {  # fields of the wrong type: read as empty values, still drawn
    "mode": f"compare {EVIL}",
    "title": ["not", "text"],
    "summary": {"x": 1},
    "scorers": [{"name": "S", "kind": "assertion", "a": "0.5", "b": [], "delta": "1"}, "x"],
    "cases": [
        {"name": "typed wrong", "status": EVIL, "seconds": "3", "cost": "free", "tools": "none"},
        "not a case",
    ],
    "total": "all",
}
BATCH = {
    "line": TEXT,
    "finished": "many",
    "total": 2,
    "outcome": f"done {EVIL}",
    "latest": [{"label": TEXT, "status": f"ok {EVIL}", "text": TEXT}, None],
    "errors": [{"label": "row", "text": TEXT}],
}


def output(mime: str, document: Any, html: str) -> Any:
    import nbformat

    view = {"version_major": 2, "version_minor": 0, "model_id": "0" * 32}
    data = {"text/plain": "saved", "text/html": html, WIDGET_VIEW_MIME_TYPE: view, mime: document}
    return nbformat.v4.new_output("display_data", data=data)


def test_crafted_saved_forms_stay_inert_and_bombs_show_their_html(session: Session) -> None:
    import nbformat

    cells = ["# report", "# comparison", "# batch", "# report bomb", "# batch bomb"]
    with session.lab("e2e-saved-forms-hostile", viewport=(1100, 900)) as lab:
        evil: list[str] = []

        def note_evil(request: Any) -> None:  # a Playwright Request
            if EVIL_HOST in request.url:
                evil.append(request.url)

        lab.page.on("request", note_evil)
        path = lab.write_notebook("hostile_forms.ipynb", cells)
        notebook = nbformat.read(path, as_version=4)  # not signed: a notebook someone sent
        outputs = [
            output(EVAL_MIME_TYPE, packed(REPORT), "<p>report html</p>"),
            output(EVAL_MIME_TYPE, packed(COMPARISON), "<p>comparison html</p>"),
            output(BATCH_MIME_TYPE, packed(BATCH), "<p>batch html</p>"),
            output(EVAL_MIME_TYPE, BOMB, "<p>the report bomb's own html</p>"),
            output(BATCH_MIME_TYPE, BOMB, "<p>the batch bomb's own html</p>"),
        ]
        for cell, one in zip(notebook.cells, outputs, strict=True):
            cell.outputs = [one]
        nbformat.write(notebook, path)
        lab.open("hostile_forms.ipynb")

        forms = [lab.cell(i).locator(".ja-saved-form[data-ja-shown='saved']") for i in range(5)]
        expect(forms[0].locator(".ja-ev-row")).to_have_count(1)
        expect(forms[0].locator(".ja-ev-title")).to_contain_text("window.__pwned")  # as text
        forms[0].locator(".ja-ev-row").click()
        expect(forms[0].locator(".ja-ev-tool")).to_have_count(1)
        expect(forms[1].locator(".ja-ev-name")).to_have_text("typed wrong")
        expect(forms[2].locator(".ja-bp-row")).to_have_count(1)
        expect(forms[2].locator(".ja-bp-line")).to_contain_text("<script>")
        for index, what in [(3, "report"), (4, "batch")]:
            expect(forms[index]).to_contain_text("inflates to more than 8 MB")
            expect(forms[index]).to_contain_text(f"the {what} bomb's own html")
        lab.screenshot("e2e-saved-forms-hostile")

        drawn = lab.panel.locator(".ja-saved-form-static")  # what the documents chose
        classes = drawn.evaluate_all(
            "els => els.flatMap((el) => [...el.querySelectorAll('*')])"
            ".flatMap((e) => [...e.classList])"
        )
        assert not {"ja-evil", "jp-mod-hidden", "lm-mod-hidden"} & set(classes), classes
        assert {"ja-bp-unknown", "ja-bp-st-unknown", "ja-ev-row"} <= set(classes)
        inside = ".ja-saved-form :is(script, img, iframe, svg, object, embed, style, a)"
        assert lab.panel.locator(inside).count() == 0
        assert lab.panel.locator(".jupyter-widgets").count() == 0  # never a widget view
        assert lab.page.evaluate("window.__pwned") is None
        assert evil == []
        assert lab.errors == [], lab.errors
