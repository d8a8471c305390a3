"""The one sanitiser: every payload through every function and Python output path."""

from __future__ import annotations

import asyncio
from html.parser import HTMLParser
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_agents import Agent, Runner
from jupyter_agents._render import escape_markdown, inert_markdown, markdown_to_html
from jupyter_agents.notebook.saved import transcript
from jupyter_agents.testing import ReceivedRequest, ScriptedModel, ScriptedText, text

from .payloads import ALL, EVIL_HOST, PAYLOADS

ALLOWED_TAGS = {
    "a", "b", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
    "hr", "i", "li", "ol", "p", "pre", "s", "span", "strong", "table", "tbody", "td", "th",
    "thead", "tr", "ul", "details", "summary", "style",
}  # fmt: skip


class Found(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []
        self.styles: list[str] = []
        self._in_style = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._in_style = tag == "style"
        self.attrs += [(k, v or "") for k, v in attrs]

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)
            self._in_style = False


def assert_inert(html: str, styles_allowed: int = 0) -> None:
    found = Found(html)
    assert set(found.tags) <= ALLOWED_TAGS, set(found.tags) - ALLOWED_TAGS
    assert found.tags.count("style") <= styles_allowed
    for name, value in found.attrs:
        assert not name.startswith("on"), (name, value)
        assert name not in ("src", "srcset", "style", "action", "formaction", "xlink:href")
        if name == "href":
            assert value.startswith(("https://", "http://", "mailto:")), value
            assert EVIL_HOST not in value or value.startswith("https://"), value
    for css in found.styles:
        assert "url(" not in css and "@import" not in css


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_each_payload_renders_inert(name: str) -> None:
    payload = PAYLOADS[name]
    assert_inert(markdown_to_html(payload))
    md = inert_markdown(payload)
    assert "\n" not in md and md.startswith('<div class="jupyter-agents-md">')
    assert_inert(md.replace("&#10;", "\n"))
    assert "<" not in escape_markdown(payload).replace("\\<", "")


def test_no_image_ever_loads_and_text_stays_readable() -> None:
    html = markdown_to_html(ALL)
    assert "<img" not in html and "🖼 x (https://evil.example/pixel.png)" in html
    assert "&lt;script&gt;window.__pwned = 'script'&lt;/script&gt;" in html
    assert "characters not shown here" in html  # the 200,000-character line was cut


def test_reference_style_and_nested_bracket_images_become_text() -> None:
    for name in ("remote image reference", "remote image nested brackets"):
        html = markdown_to_html(PAYLOADS[name])
        assert "<img" not in html and "🖼" in html


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from([*"<>[]()!`*_&#;:/\"'= \nabjsvg-x.", "\\"])))
def test_any_markdownish_text_renders_inert(text_: str) -> None:
    assert_inert(markdown_to_html(text_))
    assert "\n" not in inert_markdown(text_)


async def test_reprs_of_results_and_agents_are_inert() -> None:
    result = await Runner.run(Agent(name="a", model=ScriptedModel([[text(ALL)]])), "x")
    shown = result._repr_markdown_()
    for part in shown.split("\n\n"):
        if part.startswith("<div"):
            assert "\n" not in part
            assert_inert(part.replace("&#10;", "\n"))
        else:
            assert "<" not in part.replace("\\<", "")
    agent = Agent(name="<img src=x onerror=alert(1)>", instructions=ALL[:5000])
    assert "<img" not in agent._repr_markdown_().replace("\\<", "")  # \\< is literal text


def test_transcripts_of_hostile_runs_are_inert() -> None:
    # Any: what a received notebook holds, not the state the view writes
    header: Any = {
        "agent": PAYLOADS["img onerror"],
        "model": PAYLOADS["svg onload"],
        "status": "done",
    }
    card = {
        "kind": "tool",
        "name": PAYLOADS["script tag"],
        "args": PAYLOADS["iframe srcdoc"],
        "status": "error",
        "output": ALL,
        "printed": PAYLOADS["html remote image"],
        "error": {"type": "<b>", "message": ALL[:2000], "traceback": ALL[:2000]},
        "approval": {"state": "rejected", "message": PAYLOADS["img onerror"]},
    }
    blocks: list[Any] = [{"kind": "text", "text": ALL}, card, {"kind": "notice", "text": ALL[:500]}]
    assert_inert(transcript.to_html(header, blocks), styles_allowed=1)
    md = transcript.to_markdown(header, blocks)
    assert md.count("\n") == 1
    assert_inert(md.replace("&#10;", "\n"))


def test_history_magic_is_inert(tmp_path: object) -> None:
    from jupyter_agents.notebook.host import NotebookHost
    from jupyter_agents.notebook.magics.agent_magic import _history

    host = NotebookHost(shell=None)
    conversation = host.conversation("notebook")
    items: list[dict[str, Any]] = [
        {"role": "user", "content": ALL},
        {"type": "message", "content": [{"text": ALL}]},
    ]
    asyncio.run(conversation.record("cell-1", items))
    bundle = _history(host, "notebook")
    assert_inert(bundle["text/html"])
    assert "\n" not in bundle["text/markdown"]
    assert_inert(bundle["text/markdown"].replace("&#10;", "\n"))
    host.close()


def test_a_batch_result_table_is_inert() -> None:
    import pandas as pd

    from jupyter_agents import run_batch

    def answer(request: ReceivedRequest) -> ScriptedText:
        if "fail" in request.user_text:
            raise RuntimeError(ALL[:2000])
        return text(ALL)

    rows = pd.DataFrame(
        {"text": ["a", "fail"]},
        index=pd.Index([PAYLOADS["img onerror"], PAYLOADS["script tag"]], name="<svg onload=x>"),
    )
    agent = Agent(name="<b>batch</b>", model=ScriptedModel(respond=answer))
    result = run_batch(agent, rows, prompt="{text}", cache=False, progress=None)
    assert result.counts == {"ok": 1, "failed": 1}
    found = Found(result._repr_html_())
    assert set(found.tags) <= {"p", "b", "table", "thead", "tbody", "tr", "th", "td"}
    # pandas' own header alignment is the only attribute with a value from outside the table
    assert set(found.attrs) <= {
        ("border", "1"),
        ("class", "dataframe"),
        ("style", "text-align: right;"),
    }
