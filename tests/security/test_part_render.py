"""Every display part type, with every hostile payload, stays inert in every Python frontend.

A tool card's parts come from a tool kind and hold what a model, a tool or a server wrote: the
static transcript (HTML and Markdown) escapes them, and the terminal view keeps no escape
sequence but colours in terminal output (nothing that moves the cursor, retitles the window or
talks to the terminal). The widget side is tests/notebook/test_widget_browser.py's.
"""

from __future__ import annotations

import re
import typing

import pytest

from jupyter_agents.notebook.saved import transcript
from jupyter_agents.notebook.view.display_text import part_text
from jupyter_agents.runtime.tools.display import PartType

from .payloads import ALL, PAYLOADS
from .test_render import assert_inert

PART_TYPES: tuple[str, ...] = typing.get_args(PartType)
TERMINAL_TRICKS = (
    "\x1b]0;owned\x07"  # retitle the window
    "\x1b[2J\x1b[H"  # clear the screen, cursor home
    "\x1b]52;c;ZXZpbA==\x07"  # write the clipboard
    "\x1bP+q544e\x1b\\"  # ask the terminal something
    "\r\x08\x07"  # overwrite, backspace, bell
    "\x1b[31mred\x1b[0m"  # a colour
)


def card(part_type: str, payload: str, role: str | None = None) -> dict[str, object]:
    part: dict[str, object] = {"type": part_type, "text": payload, "cut": 99}
    if role:
        part["role"] = role
    return {"id": "k1", "name": "t", "status": "error", "parts": [part], "printed": payload}


@pytest.mark.parametrize("role", [None, "call"])
@pytest.mark.parametrize("part_type", [*PART_TYPES, "<b onmouseover=x>"])
def test_every_part_type_is_inert_in_the_transcript(part_type: str, role: str | None) -> None:
    blocks = [card(part_type, ALL, role)]
    header = {"agent": PAYLOADS["img onerror"], "status": "done"}
    html = transcript.to_html(header, blocks)  # type: ignore[arg-type]
    assert_inert(html, styles_allowed=1)
    markdown = transcript.to_markdown(header, blocks)  # type: ignore[arg-type]
    assert markdown.count("\n") == 1
    assert_inert(markdown.replace("&#10;", "\n"))


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/x.png",
        "data:image/svg+xml;base64,PHN2Zz4=",
        'data:image/png;base64,AAAA" onerror="alert(1)',
        "javascript:alert(1)",
    ],
)
def test_an_image_part_that_is_not_inline_raster_data_is_never_an_image(url: str) -> None:
    image = {"id": "k1", "name": "t", "parts": [{"type": "image", "text": url}]}
    html = transcript.to_html({"status": "done"}, [image])  # type: ignore[typeddict-item,list-item]
    assert "<img" not in html and "evil.example" not in html and "alert" not in html
    assert_inert(html, styles_allowed=1)


@pytest.mark.parametrize("part_type", [*PART_TYPES, "unknown"])
def test_the_terminal_view_keeps_only_colours_and_only_in_terminal_output(part_type: str) -> None:
    shown = part_text({"type": part_type, "text": TERMINAL_TRICKS + ALL[:5000]})
    escapes = re.findall(r"\x1b[^m]*m?", shown)
    if part_type == "terminal":
        assert escapes == ["\x1b[31m", "\x1b[0m"]
    else:
        assert escapes == []
    assert not re.search(r"[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]", shown)  # no other control
