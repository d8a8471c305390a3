"""Hostile text in every output path stays inert in a real JupyterLab (trusted outputs).

A notebook displays the shared payload list (``tests/security/payloads.py``) through every path
that shows model, tool or server text: a ``RunResult`` and an ``Agent`` repr, a live ``%%agent``
run (its widget, a failing tool's error card, then the finished transcript), ``%agent history``,
and the sanitiser's HTML and Markdown forms displayed on their own. JupyterLab renders trusted
outputs without sanitising, so this is where a leak would run. No payload may run script (each
sets ``window.__pwned``), and the page may not request anything from the payloads' host.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.security.payloads import ALL, EVIL_HOST

from .lab import Session, expect

pytestmark = pytest.mark.browser

PAYLOAD = base64.b64encode(ALL.encode()).decode()

CELLS = [
    f'''%load_ext jupyter_agents
import base64
from IPython.display import display
from jupyter_agents import Agent, Runner, tool
from jupyter_agents._render import inert_markdown, markdown_to_html
from jupyter_agents.testing import ScriptedModel, text, tool_call
ALL = base64.b64decode("{PAYLOAD}").decode()

@tool
def boom() -> str:
    """Fails with hostile text."""
    raise ValueError(ALL[:3000])

demo = ScriptedModel([[tool_call("boom", {{}})], [text(ALL)]])''',
    "%agent model demo",
    'Runner.run_sync(Agent(name="r", model=ScriptedModel([[text(ALL)]])), "x")',
    'Agent(name="<b onmouseover=alert(1)>x</b>", instructions=ALL[:5000])',
    "%%agent\nShow me everything.",
    "%agent history",
    'display({"text/markdown": inert_markdown(ALL)}, raw=True)\n'
    'display({"text/html": markdown_to_html(ALL)}, raw=True)\n'
    'print("all shown")',
]
LAST = len(CELLS) - 1


def test_every_output_path_keeps_hostile_text_inert(session: Session) -> None:
    with session.lab("e2e-inert-outputs", viewport=(1280, 1000)) as lab:
        page = lab.page
        evil: list[str] = []

        def note_evil(request: Any) -> None:  # a Playwright Request
            if EVIL_HOST in request.url:
                evil.append(request.url)

        page.on("request", note_evil)
        lab.write_notebook("inert.ipynb", CELLS)
        lab.open("inert.ipynb")
        lab.run_all()
        expect(lab.outputs(LAST).last).to_contain_text("all shown", timeout=60_000)
        failure = lab.tracebacks()
        assert not failure.count(), f"a cell failed:\n{failure.first.inner_text()[:3000]}"
        agent_output = lab.outputs(4)
        saved = "[data-mime-type='application/vnd.jupyter-agents.run+json']"
        expect(agent_output.and_(page.locator(saved))).to_have_count(1)  # the run has ended
        expect(agent_output.first).to_contain_text("ValueError")
        for summary in page.locator(".jp-OutputArea summary").all():
            if summary.is_visible():
                summary.click()
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(500)  # let any delayed handler (onerror, ontoggle) fire
        lab.screenshot("e2e-inert-outputs")
        assert page.evaluate("window.__pwned") is None
        assert evil == []
        for index in (2, 4, 5, LAST):
            expect(lab.outputs(index).first).to_contain_text("window.__pwned")  # shown as text
        live = page.evaluate(
            """() => [...document.querySelectorAll('.jp-OutputArea-output *')].flatMap((e) => [
              ...['SCRIPT','IFRAME','OBJECT','EMBED','FORM','BASE','META','LINK']
                .filter((t) => e.tagName === t).map((t) => 'tag ' + t),
              // only our own tool-image elements, holding inline raster data or nothing
              ...(e.tagName === 'IMG' && !(/^ja-(image|thumb)$/.test(e.className)
                  && (!e.hasAttribute('src') || new RegExp('^data:image/(png|jpeg|gif|webp);'
                      + 'base64,[A-Za-z0-9+/]+=*$').test(e.getAttribute('src'))))
                  ? ['tag IMG'] : []),
              ...(e.tagName.toLowerCase() === 'svg' ? ['tag svg'] : []),
              ...[...e.attributes].filter((a) => a.name.startsWith('on')).map((a) => a.name),
              ...(e.tagName === 'A' && e.hasAttribute('href')
                  && !/^(https?:|mailto:)/.test(e.getAttribute('href'))
                  ? ['href ' + e.getAttribute('href')] : []),
            ])"""
        )
        assert live == []
        assert lab.errors == [], lab.errors
