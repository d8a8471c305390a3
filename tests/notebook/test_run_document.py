"""The finished run's data bundle (application/vnd.jupyter-agents.run+json)."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest

from jupyter_agents.notebook.saved import run_document
from jupyter_agents.notebook.view.run_view import RunView

from .test_view import item_event, saved_notebook


def finished_bundle() -> tuple[dict[str, Any], RunView]:
    view = RunView(agent="assistant", model="gpt-4.1")
    bundles: list[dict[str, Any]] = []
    view._handle = NS(update=lambda bundle, raw: bundles.append(bundle))
    call = NS(type="function_call", name="lookup", call_id="c1", arguments='{"q": "<b>x</b>"}')
    view.on_event(item_event("tool_called", raw_item=call))
    view.on_event(
        item_event("tool_output", call_id="c1", raw_item={"output": "<script>1</script>"})
    )
    view.finish("done")
    return bundles[0], view


def test_the_bundle_holds_what_the_widget_showed_last() -> None:
    bundle, view = finished_bundle()
    value = bundle[run_document.MIME_TYPE]
    assert value["version"] == 2 and value["encoding"] == "gzip+base64"
    document = run_document.decode(value)
    assert document == {"header": view.widget.header, "blocks": view.widget.blocks}
    (card,) = document["blocks"]
    assert card["name"] == "lookup"
    assert card["parts"] == [{"type": "text", "text": "<script>1</script>"}]  # data, as sent
    assert {"text/html", "text/markdown", "text/plain"} <= set(bundle)  # fallbacks stay


def test_encoding_is_deterministic_and_json_safe() -> None:
    header, blocks = {"agent": "a", "status": "done"}, [{"kind": "text", "text": "é \u2028 </"}]
    first, second = run_document.encode(header, blocks), run_document.encode(header, blocks)
    assert first is not None and first == second
    assert json.loads(json.dumps(first)) == first
    assert run_document.decode(first)["blocks"] == blocks


@pytest.mark.parametrize(
    "value",
    [
        None,
        {"version": 3, "encoding": "gzip+base64", "data": ""},
        {"version": 1, "encoding": "zip", "data": ""},
        {"version": 1, "encoding": "gzip+base64", "data": 5},
    ],
)
def test_anything_else_is_refused(value: Any) -> None:
    with pytest.raises(ValueError):
        run_document.decode(value)


def test_the_data_bundle_costs_little_in_a_saved_notebook() -> None:
    notebook = json.loads(saved_notebook(100))
    data = notebook["cells"][0]["outputs"][0]["data"]
    assert len(json.dumps(data[run_document.MIME_TYPE])) < 3_000  # 100 cards, compressed


def test_a_document_that_inflates_past_the_bound_is_refused_while_inflating() -> None:
    # Half a megabyte of gzip that inflates to 400 MB (the bomb a crafted notebook can carry).
    member = gzip.compress(b" " * (4 * 1024 * 1024), compresslevel=9)
    bomb = member * 100
    assert len(bomb) < 1024 * 1024
    value = {"version": 1, "encoding": "gzip+base64", "data": base64.b64encode(bomb).decode()}
    with pytest.raises(ValueError, match="inflates to more than"):
        run_document.decode(value)


def test_a_run_too_large_to_inflate_safely_is_saved_with_its_transcripts_only() -> None:
    big = [{"id": f"k{n}", "output": "x" * 100_000 + str(n)} for n in range(100)]
    assert run_document.encode({"status": "done"}, big) is None
    small = [{"id": "k1", "output": "x" * 100_000}]
    value = run_document.encode({"status": "done"}, small)
    assert value is not None and run_document.decode(value)["blocks"] == small


def test_one_large_gzip_member_is_refused_too_and_a_cut_one_is_an_error() -> None:
    member = gzip.compress(b" " * (64 * 1024 * 1024), compresslevel=9)
    encoded = base64.b64encode(member).decode()
    with pytest.raises(ValueError, match="inflates to more than"):
        run_document.decode({"version": 1, "encoding": "gzip+base64", "data": encoded})
    good = run_document.encode({"status": "done"}, [])
    assert good is not None
    cut = base64.b64encode(base64.b64decode(good["data"])[:-12]).decode()
    with pytest.raises(ValueError, match="cut short"):
        run_document.decode({**good, "data": cut})


def test_the_lab_extension_inflates_no_more_than_the_kernel_writes() -> None:
    source = (Path(__file__).parents[2] / "labextension/src/transcript/document.ts").read_text()
    assert "export const MAX_DECODED_BYTES = 8 * 1024 * 1024;" in source
    assert run_document.MAX_DECODED_BYTES == 8 * 1024 * 1024
