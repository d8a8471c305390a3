"""The site's locks in a real JupyterLab: the server's site (``JUPYTER_CONFIG_PATH``) holds an
administrator's ``jupyter_agents_config.json`` locking ``approve`` at ask and ``mode`` at plan.

Settings ▸ Settings Editor ▸ Agent runs offers only deny and ask as the Default approval mode and
says it is locked, by whom and in which file; the person's ``auto`` saved beforehand reads as
ask, and the kernel is told ask (the comm message the page sends, and what the kernel holds).
The status bar's mode menu offers agent disabled and its tooltip says the mode is locked. The
site's folder is named with markup, which the page shows as text. Screenshots of the settings
form and the mode menu, light and dark, go to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents.runtime.project.settings import FILE_NAME

from .lab import ARTIFACTS, Lab, Session, expect, expecting_session
from .test_lab_runs import set_theme

pytestmark = pytest.mark.browser

SITE = {"approve": "ask", "mode": "plan", "locked": ["approve", "mode"]}
HOSTILE = "site <img src=x onerror=window.__jaPwned=1>"
"""The site folder's name: the file the page names is data, shown as text."""
RUNS_SETTINGS = "lab/api/settings/jupyter-agents:runs"
CELLS = [
    "%load_ext jupyter_agents",
    "from jupyter_agents.notebook.host import current_host\n"
    "print('approve:', current_host().runs.default_approve)",
]
LOAD_CELL, APPROVE_CELL = range(2)
DONE = re.compile(r"^\[\d+\]:$")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("locks") / HOSTILE
    folder.mkdir()
    (folder / FILE_NAME).write_text(json.dumps(SITE))
    return folder


@pytest.fixture(scope="module")
def session(site: Path) -> Iterator[Session]:
    """JupyterLab whose site locks approve and mode (this module's own server)."""
    with expecting_session(env={"JUPYTER_CONFIG_PATH": str(site)}) as s:
        yield s


def save_user_settings(lab: Lab, values: dict[str, Any]) -> None:
    """Save the person's settings of ``jupyter-agents:runs`` as the Settings editor would."""
    url = lab.server.url(RUNS_SETTINGS)
    put = lab.page.request.put(url, data=json.dumps({"raw": json.dumps(values)}))
    assert put.ok, put.text()


def settings_sent(frames: list[Any]) -> list[str]:
    """The ``approve`` of each settings message the page sent on a kernel's websocket."""
    found = []
    for payload in frames:
        text = payload if isinstance(payload, str) else bytes(payload).decode("utf-8", "replace")
        if '"type":"settings"' in text:
            found += re.findall(r'"approve":"(\w+)"', text)
    return found


def wait_until(lab: Lab, condition: Callable[[], bool], failure: str) -> None:
    """Let the page run until ``condition`` holds (30 s at most)."""
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, failure
        lab.page.wait_for_timeout(100)  # lets the page's events (its websocket frames) run


def open_notebook(lab: Lab, name: str) -> list[Any]:
    """Open a notebook of ``CELLS`` and load the extension; the frames the page sends."""
    frames: list[Any] = []
    lab.page.on("websocket", lambda ws: ws.on("framesent", lambda p: frames.append(p)))
    lab.write_notebook(name, CELLS)
    lab.open(name)
    lab.run_cell(LOAD_CELL)
    expect(lab.prompt(LOAD_CELL)).to_have_text(DONE)
    return frames


def open_runs_settings(lab: Lab) -> Any:
    """Settings ▸ Settings Editor, then Agent runs; its form."""
    lab.menu("Settings", "Settings Editor")
    entry = lab.page.locator(".jp-PluginList-entry", has_text=re.compile("^Agent runs$"))
    entry.click()
    form = lab.page.locator(".jp-SettingsPanel .jp-SettingsEditor-jupyter-agents\\:runs")
    form = form.or_(lab.page.locator("[id^='jp-SettingsEditor-jupyter-agents:runs']")).first
    expect(form).to_be_visible()
    return form


def test_the_default_approval_mode_offers_only_what_the_lock_allows_and_the_kernel_gets_ask(
    session: Session, site: Path
) -> None:
    with session.lab("e2e-locks-settings") as lab:
        save_user_settings(lab, {"defaultApproval": "auto"})
        try:
            frames = open_notebook(lab, "locks.ipynb")
            # The page tells the kernel the lock's ask, never the person's auto.
            lab.run_cell(APPROVE_CELL)
            expect(lab.outputs(APPROVE_CELL)).to_contain_text("approve: ask")
            sent = settings_sent(frames)
            assert sent and set(sent) == {"ask"}, sent

            open_runs_settings(lab)
            select = lab.page.locator("select[id$='defaultApproval']")
            expect(select.locator("option:checked")).to_have_text("ask")  # (values: indices)
            options = select.locator("option")
            expect(options).to_have_text(["deny", "ask"])
            note = f"Locked by your administrator: at least as careful as ask ({site / FILE_NAME})."
            field = lab.page.locator(".jp-FormGroup-content", has=select).last  # the innermost
            expect(field).to_contain_text(note)
            assert field.locator("img").count() == 0
            for dark in (False, True):
                theme = "dark" if dark else "light"
                set_theme(lab, dark)
                lab.screenshot(f"lab-locks-settings-{theme}")
                field.screenshot(path=str(ARTIFACTS / f"lab-locks-setting-field-{theme}.png"))
            set_theme(lab, False)

            # A stricter choice stays the person's, and reaches the kernel once saved.
            select.select_option(label="deny")
            sent_deny = lambda: settings_sent(frames)[-1:] == ["deny"]  # noqa: E731
            wait_until(lab, sent_deny, "the page never told the kernel deny")
            lab.page.locator(".lm-TabBar-tab", has_text="locks.ipynb").click()
            lab.run_cell(APPROVE_CELL)
            expect(lab.outputs(APPROVE_CELL)).to_contain_text("approve: deny")
            assert lab.page.evaluate("window.__jaPwned") is None
            assert lab.errors == [], lab.errors
        finally:
            save_user_settings(lab, {})


def test_the_mode_menu_offers_agent_disabled_and_says_the_mode_is_locked(
    session: Session, site: Path
) -> None:
    with session.lab("e2e-locks-mode") as lab:
        open_notebook(lab, "modes.ipynb")
        status = lab.page.locator(".ja-mode-status")
        expect(status).to_have_text("Mode: plan")  # the site's value
        note = f"Locked by your administrator: at least as strict as plan ({site / FILE_NAME})."
        expect(status).to_have_attribute("title", re.compile(re.escape(note)))
        menu = lab.page.locator(".lm-Menu.ja-mode-menu")
        item = menu.locator(".lm-Menu-item")
        for dark in (False, True):
            theme = "dark" if dark else "light"
            set_theme(lab, dark)
            status.click()
            expect(menu).to_be_visible()
            agent = item.filter(has_text="Agent Mode: Agent")
            expect(agent).to_have_class(re.compile(r"\blm-mod-disabled\b"))
            expect(agent).to_contain_text("Agent Mode: Agent (locked)")
            for allowed in ("Agent Mode: Ask", "Agent Mode: Plan"):
                expect(item.filter(has_text=allowed)).not_to_have_class(re.compile("disabled"))
            lab.screenshot(f"lab-locks-mode-menu-{theme}")
            shown, bar = menu.bounding_box(), status.bounding_box()
            assert shown is not None and bar is not None
            top = shown["y"] - 8
            clip = {"x": 0, "y": top, "width": 560, "height": bar["y"] + bar["height"] - top}
            shot = ARTIFACTS / f"lab-locks-mode-menu-clip-{theme}.png"
            lab.page.screenshot(path=str(shot), clip=clip)
            agent.click(force=True)  # disabled: nothing happens, the menu stays
            expect(status).to_have_text("Mode: plan")
            lab.page.keyboard.press("Escape")
            expect(menu).to_be_hidden()
        set_theme(lab, False)

        # The allowed stricter mode still works.
        status.click()
        item.filter(has_text="Agent Mode: Ask").click()
        expect(status).to_have_text("Mode: ask")
        assert lab.page.evaluate("window.__jaPwned") is None
        assert lab.errors == [], lab.errors
