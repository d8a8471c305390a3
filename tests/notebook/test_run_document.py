"""The finished run's data bundle (application/vnd.jupyter-agents.run+json)."""

from __future__ import annotations

import json
from types import SimpleNamespace as NS
from typing import Any

import pytest

from jupyter_agents.notebook import run_document
from jupyter_agents.notebook.view import RunView

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
    assert value["version"] == 1 and value["encoding"] == "gzip+base64"
    document = run_document.decode(value)
    assert document == {"header": view.widget.header, "blocks": view.widget.blocks}
    (card,) = document["blocks"]
    assert card["name"] == "lookup" and card["output"] == "<script>1</script>"  # data, as sent
    assert {"text/html", "text/markdown", "text/plain"} <= set(bundle)  # fallbacks stay


def test_encoding_is_deterministic_and_json_safe() -> None:
    header, blocks = {"agent": "a", "status": "done"}, [{"kind": "text", "text": "é \u2028 </"}]
    first, second = run_document.encode(header, blocks), run_document.encode(header, blocks)
    assert first == second
    assert json.loads(json.dumps(first)) == first
    assert run_document.decode(first)["blocks"] == blocks


@pytest.mark.parametrize(
    "value",
    [
        None,
        {"version": 2, "encoding": "gzip+base64", "data": ""},
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
