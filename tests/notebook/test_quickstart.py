"""The quickstart notebook (the README's main job) in a real kernel, headless."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "quickstart.ipynb"


def execute(env: dict[str, str]) -> Any:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "JUPYTER_AGENTS"))}
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update({**clean, **env})
    try:
        NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return {cell.id: cell for cell in nb.cells}


def text_of(cell: Any) -> str:
    parts = []
    for output in cell.outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif "data" in output:
            parts.append(output.data.get("text/markdown", "") or output.data.get("text/plain", ""))
    return "".join(parts)


def shown_text(cell: Any) -> str:
    """What a reader sees of a cell's outputs: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", text_of(cell)))


def test_stored_notebook_has_no_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


@pytest.mark.kernel
def test_headless_with_approve_auto_tells_the_whole_story() -> None:
    cells = execute({"JUPYTER_AGENTS_APPROVE": "auto"})
    assert text_of(cells["load"]).startswith("jupyter_agents 0.1.0")
    ask = cells["ask"]
    bundle = ask.outputs[0].data
    # When the run ends, the live widget gives way to a static transcript, which reads well
    # on GitHub or nbviewer and needs no kernel.
    assert "application/vnd.jupyter.widget-view+json" not in bundle
    assert "text/html" in bundle and "text/markdown" in bundle
    assert "sunny, 21 °C" in bundle["text/markdown"]
    assert "I emailed it to ana@example.com." in bundle["text/markdown"]
    assert "<script" not in bundle["text/html"]
    assert "I wrote to ana@example.com" in shown_text(cells["followup"])
    result = text_of(cells["result"])
    assert "light rain, 9 °C" in result and "cloudy, 18 °C" in result
    assert "emails sent: [{'to': 'ana@example.com', 'body'" in result
    table = re.sub(r"\\(.)", r"\1", text_of(cells["agent-tools"]))  # as rendered
    assert "| send_email | Send an email. | to: string, body: string | yes |" in table


@pytest.mark.kernel
def test_headless_without_approve_auto_rejects_instead_of_hanging() -> None:
    cells = execute({"JUPYTER_AGENTS_APPROVAL_GRACE": "0.5"})
    markdown = cells["ask"].outputs[0].data["text/markdown"]
    assert "was not sent: no notebook frontend showed the run" in markdown
    assert "you rejected" not in markdown  # nobody did: nobody was there
    assert "emails sent: []" in text_of(cells["result"])
