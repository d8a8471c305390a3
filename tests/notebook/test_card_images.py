"""Images in tool cards: shown when they are inline PNG/JPEG/GIF/WebP data, in the widget state
and the static transcript; anything else (an address, SVG, too large) is only named."""

from __future__ import annotations

import base64
from types import SimpleNamespace as NS
from typing import Any

import pytest

from jupyter_agents.notebook.saved import transcript
from jupyter_agents.notebook.view.card_parts import output_of
from jupyter_agents.notebook.view.display_text import MAX_IMAGE_CHARS, output_image
from jupyter_agents.notebook.view.run_view import RunView

from .test_view import item_event

PNG = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"x" * 30).decode()


def images(card: dict[str, Any]) -> list[str]:
    return [p["text"] for p in card.get("parts", []) if p["type"] == "image"]


def card_for(output: object) -> tuple[dict[str, Any], RunView]:
    view = RunView(agent="a", model="m")
    call = NS(type="function_call", name="view_image", call_id="c1", arguments="{}")
    view.on_event(item_event("tool_called", raw_item=call))
    view.on_event(item_event("tool_output", call_id="c1", raw_item={"output": output}))
    view.finish("done")
    return view.widget.blocks[0], view


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        (PNG, True),
        ("data:image/webp;base64,UklGRg==", True),
        ("data:image/svg+xml;base64,PHN2Zz4=", False),
        ("https://evil.example/x.png", False),
        ('data:image/png;base64,AAAA" onerror="alert(1)', False),
        ("data:image/png;base64," + "A" * MAX_IMAGE_CHARS, False),
    ],
)
def test_only_inline_raster_images_are_kept(url: str, kept: bool) -> None:
    output = [{"type": "input_image", "image_url": url}]
    assert (output_image(output) == url) is kept
    card, view = card_for(output)
    assert (images(card) == [url]) is kept
    html = view.transcript_html()
    assert ("<img" in html) is (kept and len(url) <= transcript.SAVED_IMAGE_CHARS)
    assert "evil.example" not in html and "onerror" not in html.replace("&quot;", "")


def test_a_large_image_is_named_in_the_transcript_but_shown_in_the_card() -> None:
    big = "data:image/png;base64," + "A" * (transcript.SAVED_IMAGE_CHARS + 100)
    card, view = card_for([{"type": "input_image", "image_url": big}])
    assert images(card) == [big]
    html = view.transcript_html()
    assert "<img" not in html and "not kept here" in html


def test_text_outputs_have_no_image() -> None:
    card, _view = card_for("plain text")
    assert images(card) == []


def test_a_computer_screenshot_shows_in_its_card() -> None:
    card, _view = card_for({"type": "computer_screenshot", "image_url": PNG})
    assert images(card) == [PNG] and output_of(card) == "[screenshot]"


def test_a_patch_card_carries_its_diff_and_the_transcript_colours_it() -> None:
    from jupyter_agents.testing import output_item

    raw = output_item(
        {
            "type": "apply_patch_call",
            "id": "ap_1",
            "call_id": "p1",
            "status": "completed",
            "operation": {
                "type": "update_file",
                "path": "src/<app>.py",
                "diff": "@@ def main():\n-    print('hi')\n+    print('<b>ho</b>')\n",
            },
        }
    ).raw
    from openai.types.responses import ResponseApplyPatchToolCall

    call = ResponseApplyPatchToolCall.model_validate(raw)
    view = RunView(agent="a", model="m")
    view.on_event(item_event("tool_called", raw_item=call))
    view.finish("done")
    card = view.widget.blocks[0]
    (diff,) = card["parts"]
    assert diff["type"] == "diff" and diff["role"] == "call"
    assert diff["text"].startswith("update_file src/<app>.py\n@@ def main():")
    html = view.transcript_html()
    assert """<span class="ja-good">+    print('&lt;b&gt;ho&lt;/b&gt;')</span>""" in html
    assert """<span class="ja-bad">-    print('hi')</span>""" in html
    assert "<b>ho</b>" not in html


def test_a_shell_card_reads_like_a_terminal() -> None:
    output = [
        {"stdout": "hi\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
        {"stdout": "", "stderr": "boom\n", "outcome": {"type": "exit", "exit_code": 2}},
        {"stdout": "", "stderr": "", "outcome": {"type": "timeout"}},
    ]
    card, _view = card_for(output)
    assert output_of(card) == "hi\n[exit code 0]\nboom\n[exit code 2]\n[timed out]"
