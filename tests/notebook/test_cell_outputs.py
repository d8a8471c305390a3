"""A cell as a model reads it, from the outputs a real kernel made (nbclient): one-line summaries,
model content with images as images and tables as rows, errors without colours, malformed
outputs skipped; and the version an edit must name."""

from __future__ import annotations

import base64
import io
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from PIL import Image

from jupyter_agents.notebook.workspace.cell_outputs import (
    cell_version,
    model_outputs,
    outputs_summary,
)
from jupyter_agents.runtime.tools.outputs import ToolOutputImage, ToolOutputText

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(120)]

CELLS = {
    "print": "print('Sunny in Paris')\nprint('and Oslo')",
    "small": "import pandas as pd\npd.DataFrame({'a': [1, 2, 3], 'b': ['x', 'y', 'z']})",
    "large": "pd.DataFrame({f'c{i}': range(1000) for i in range(12)})",
    "plot": (
        "import matplotlib\nmatplotlib.use('agg')\nimport matplotlib.pyplot as plt\n"
        "%matplotlib inline\nfig = plt.figure(figsize=(4, 3), dpi=100)\nplt.plot([1, 2])\n"
        "plt.show()"
    ),
    "error": "{'a': 1}['missing']",
}


@pytest.fixture(scope="module")
def outputs() -> dict[str, list[Any]]:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS.values()])
    NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True).execute()
    return {name: cell.outputs for name, cell in zip(CELLS, nb.cells, strict=True)}


def test_summaries_say_what_each_cell_shows(outputs: dict[str, list[Any]]) -> None:
    assert outputs_summary(outputs["print"]) == "text: 'Sunny in Paris' (+1 lines)"
    assert outputs_summary(outputs["small"]) == "DataFrame 3x2"
    assert outputs_summary(outputs["large"]) == "DataFrame 1000x12"
    png = outputs["plot"][0]["data"]["image/png"]
    width, height = Image.open(io.BytesIO(base64.b64decode(png))).size
    assert outputs_summary(outputs["plot"]) == f"image {width}x{height}"
    assert outputs_summary(outputs["error"]) == "error: KeyError"
    assert outputs_summary([]) == ""


def test_model_content_keeps_images_and_reads_tables_as_rows(outputs: dict[str, list[Any]]) -> None:
    assert model_outputs(outputs["print"]) == "Sunny in Paris\nand Oslo\n"
    table = model_outputs(outputs["small"])
    assert table == "a b\n0 1 x\n1 2 y\n2 3 z\n"  # no markup, no style sheet, a row a line
    plot = model_outputs(outputs["plot"])
    assert isinstance(plot, list)
    assert any(
        isinstance(p, ToolOutputImage)
        and p.image_url is not None
        and p.image_url.startswith("data:image/png;base64,")
        for p in plot
    )


def test_an_error_reaches_the_model_without_terminal_colours(outputs: dict[str, list[Any]]) -> None:
    assert any("\x1b[" in line for line in outputs["error"][0]["traceback"])  # the kernel's
    text = model_outputs(outputs["error"])
    assert isinstance(text, str) and "KeyError" in text and "\x1b" not in text


def test_long_text_keeps_its_head_and_tail() -> None:
    stream = [{"output_type": "stream", "name": "stdout", "text": "A" * 50_000 + "END"}]
    text = model_outputs(stream, max_chars=1000)
    assert isinstance(text, str) and len(text) < 1200 and text.endswith("END")


@pytest.mark.parametrize(
    "junk",
    [
        [None, 3, "text", {"output_type": "display_data", "data": "nope"}],
        [{"output_type": "stream", "text": None}, {"output_type": "error"}],
        [{"output_type": "display_data", "data": {"image/png": "not base64!"}}],
        [{"output_type": "execute_result", "data": {"text/plain": ["a", "b"]}}],
    ],
)
def test_malformed_outputs_are_skipped_not_raised(junk: list[Any]) -> None:
    outputs_summary(junk)
    model = model_outputs(junk)
    assert isinstance(model, str) or all(
        isinstance(p, (ToolOutputText, ToolOutputImage)) for p in model
    )


def test_the_version_changes_with_the_source_and_only_with_it() -> None:
    assert cell_version("x = 1") == cell_version("x = 1")
    assert cell_version("x = 1") != cell_version("x = 1 ")
    assert len(cell_version("")) == 12 and cell_version("\udcff")  # a lone surrogate is hashed
