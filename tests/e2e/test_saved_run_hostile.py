"""A crafted saved run, in a notebook someone sent, stays harmless in a real JupyterLab.

The run document (``application/vnd.jupyter-agents.run+json``) is drawn by the lab extension
with the live widget's code. Its values are untrusted: the status, level, state and kind fields
that choose CSS classes may only pick known ones (a class such as ``jp-mod-hidden`` or
``lm-mod-hidden`` could hide or restyle JupyterLab's own UI), and a document that inflates past
the bound (a gzip bomb) is not inflated: the cell shows the run's HTML transcript instead.
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import pytest

from jupyter_agents.notebook.saved.run_document import MIME_TYPE

from .lab import Session, expect

pytestmark = pytest.mark.browser

EVIL = "ja-evil jp-mod-hidden lm-mod-hidden"


def packed(document: dict[str, Any]) -> dict[str, Any]:
    data = gzip.compress(json.dumps(document).encode(), mtime=0)
    return {"version": 1, "encoding": "gzip+base64", "data": base64.b64encode(data).decode()}


CRAFTED = packed(
    {
        "header": {"agent": "a", "model": "m", "status": f"done {EVIL}", "live": False},
        "blocks": [
            {"id": "k1", "name": "t", "status": f"error {EVIL}", "output": "out"},
            {
                "id": "k2",
                "name": "u",
                "approval": {"state": f"approved {EVIL}"},
                "status": "rejected",
            },
            {"id": "n:1", "kind": "notice", "level": f"error {EVIL}", "text": "notice text"},
            {"id": "x:1", "kind": f"text {EVIL}", "label": "odd", "text": "odd kind"},
        ],
    }
)
BOMB = {
    "version": 1,
    "encoding": "gzip+base64",
    # 64 MB of spaces in one gzip member: about 90 KB of base64.
    "data": base64.b64encode(gzip.compress(b" " * (64 << 20), compresslevel=9)).decode(),
}


def saved_output(document: dict[str, Any], html: str) -> Any:
    import nbformat

    return nbformat.v4.new_output(
        "display_data",
        data={"text/plain": "run", "text/html": html, MIME_TYPE: document},
    )


def test_a_crafted_saved_run_picks_only_known_classes_and_a_bomb_shows_the_transcript(
    session: Session,
) -> None:
    import nbformat

    with session.lab("e2e-saved-run-hostile") as lab:
        path = lab.write_notebook("hostile.ipynb", ["# crafted", "# bomb"])
        notebook = nbformat.read(path, as_version=4)  # not signed: a notebook someone sent
        notebook.cells[0].outputs = [saved_output(CRAFTED, "<p>crafted transcript</p>")]
        notebook.cells[1].outputs = [saved_output(BOMB, "<p>the bomb's own transcript</p>")]
        nbformat.write(notebook, path)
        lab.open("hostile.ipynb")
        crafted = lab.cell(0).locator(".ja-saved-run")
        expect(crafted.locator(".ja-tool")).to_have_count(2)
        expect(crafted).to_contain_text("notice text")
        expect(crafted).to_contain_text("odd kind")
        classes = crafted.evaluate(
            "el => [el, ...el.querySelectorAll('*')].flatMap((e) => [...e.classList])"
        )
        assert not {"ja-evil", "jp-mod-hidden", "lm-mod-hidden"} & set(classes), classes
        assert {"ja-s-unknown", "ja-st-unknown", "ja-a-unknown", "ja-l-info"} <= set(classes)
        bomb = lab.cell(1).locator(".ja-saved-run")
        expect(bomb).to_contain_text("the bomb's own transcript")
        expect(bomb).to_contain_text("inflates to more than 8 MB")
        expect(bomb.locator(".ja-tool")).to_have_count(0)
        lab.screenshot("e2e-saved-run-hostile")
        assert lab.errors == [], lab.errors
