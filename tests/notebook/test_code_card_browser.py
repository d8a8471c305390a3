"""The code interpreter's card in the widget in Chromium: the code highlighted (as text), the
printed output as it comes, and a plot as an image."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from jupyter_agents import Agent, KernelCodeInterpreter
from jupyter_agents.testing import ScriptedModel, text, tool_call

from .test_shell_card_browser import DARK
from .test_widget_browser import (  # noqa: F401 (lab and site are fixtures)
    SITE_ROOT,
    Lab,
    drive,
    lab,
    make_view,
    site,
)

pytest.importorskip("playwright")
pytest.importorskip("matplotlib")
from playwright.async_api import expect

from ..prerequisites import needs_bwrap

pytestmark = [
    pytest.mark.kernel,
    needs_bwrap,
]

CODE = """import time, pathlib
import matplotlib.pyplot as plt
print("loading <b>data</b>")  # a comment
while not pathlib.Path("go").exists():
    time.sleep(0.05)
plt.plot([1, 3, 2])
plt.show()
"""


async def test_the_code_card_shows_code_output_and_the_plot(
    lab: Lab,  # noqa: F811 (the fixture)
    tmp_path: Path,
) -> None:
    tool = KernelCodeInterpreter({"workspace": str(tmp_path), "approval_policy": "never"})
    view = make_view()
    model = ScriptedModel([[tool_call("code_interpreter", {"code": CODE}, "k1")], [text("Done.")]])
    await lab.mount(view)
    run = asyncio.ensure_future(drive(view, Agent(name="a", model=model, tools=[tool])))
    try:
        card = lab.page.locator(".ja-tool")
        await card.locator("summary").first.click()
        code = card.locator("pre.ja-code")
        await expect(code.locator("span.ja-py-kw").first).to_have_text("import")
        await expect(code.locator("span.ja-py-str").first).to_have_text('"loading <b>data</b>"')
        await expect(code.locator("span.ja-py-com")).to_have_text("# a comment")
        live = card.locator("pre.ja-printed")
        await expect(live).to_contain_text("loading <b>data</b>", timeout=30_000)  # as it runs
        await lab.shot("code_card_running")
        (tmp_path / "go").touch()
        await asyncio.wait_for(run, 60)
        await lab.settle()
        await expect(card).to_have_class("ja-tool ja-st-done ja-terminal")
        image = card.locator("img.ja-image")
        await expect(image).to_be_visible()
        assert await image.evaluate("img => img.naturalWidth") > 100
        assert await lab.page.locator(".ja-run b").count() == 0  # the markup stayed text
        assert lab.remote == []
        await lab.shot("code_card_done")
        if DARK.exists():  # the same card in JupyterLab's dark theme
            shutil.copy(DARK, SITE_ROOT[0] / "dark.css")
            await lab.page.evaluate(
                "() => { document.querySelector('link[href=\"theme.css\"]').href = 'dark.css'; }"
            )
            await expect(lab.page.locator("body")).to_have_css(
                "background-color", "rgb(17, 17, 17)"
            )
            await lab.shot("code_card_done_dark")
    finally:
        await tool.shutdown()
