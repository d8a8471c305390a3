"""A ``run_cells`` card in a real JupyterLab shows the code that would run, read from the page
when the card asks (here for a version the notebook handed the model: nothing read before);
the person changes that cell in the lab before clicking Approve, and nothing runs: the page
refuses the cell, the model is told in one line, the kernel never ran a line of it."""

from __future__ import annotations

import re

import pytest

from jupyter_agents.notebook.workspace.cell_outputs import cell_version

from .lab import Session, expect
from .test_notebook_tools_lab import waiting_card

pytestmark = pytest.mark.browser

TARGET = "shown = 'the code on the card'\nprint(shown)"
MARKED = "# tidy the imports\rimport this"  # Python reads the carriage return as a line break

SETUP = """%load_ext jupyter_agents
from jupyter_agents.testing import ScriptedModel, text, tool_call
demo = ScriptedModel([
    [tool_call("run_cells", {"cells": [{"id": "target", "version": "TARGET_V"},
                                       {"id": "marked", "version": "MARKED_V"}]}, "r1")],
    [text("Done.")],
])
%agent model demo
%agent tools add notebook"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_cell_changed_in_the_lab_after_its_card_was_shown_does_not_run(
    session: Session, theme: str
) -> None:
    setup = SETUP.replace("TARGET_V", cell_version(TARGET)).replace(
        "MARKED_V", cell_version(MARKED)
    )
    sources = [
        ("setup", setup),
        ("target", TARGET),
        ("marked", MARKED),
        ("agent", "%%agent\nRun what the notebook says."),
        ("check", "print('shown' in globals(), 'this' in globals())"),
    ]
    with session.lab(f"cell-cards-{theme}") as lab:
        name = f"cards_{theme}.ipynb"
        lab.write_notebook(name, [c for _i, c in sources], [i for i, _c in sources])
        lab.open(name)
        if theme == "dark":
            lab.menu("Settings", "Theme", "JupyterLab Dark")
        lab.run_cell(0)
        lab.run_cell(3)
        card = waiting_card(lab, 0)
        code = card.locator(".ja-code")
        expect(code.first).to_have_text(f"# cell target\n{TARGET}")  # whole, read from the page
        expect(code.nth(1)).to_contain_text("# tidy the imports⟨U+000D⟩\nimport this")
        expect(code.nth(1).locator(".ja-char")).to_have_text("⟨U+000D⟩")  # drawn to stand out
        card.scroll_into_view_if_needed()
        lab.screenshot(f"cell-card-{theme}")
        # the person changes the cell the card shows, then approves the card
        lab.cell(1).locator(".cm-content").click()
        lab.page.keyboard.press("Control+End")
        lab.page.keyboard.type("\nprint('typed after the card')")
        card.get_by_role("button", name="Approve", exact=True).click()
        expect(lab.outputs(3)).to_contain_text("Done.")
        expect(lab.prompt(3)).to_have_text(re.compile(r"\[\d+\]"))  # the run's cell ended
        ended = lab.cell(3).locator(".ja-tool").first  # (the ended run, redrawn)
        ended.locator("summary").first.click()  # open the card: what the model was told
        told = ended.locator(".ja-output")
        expect(told).to_contain_text("Not run: cell target changed since the card showed it")
        ended.scroll_into_view_if_needed()
        lab.screenshot(f"cell-card-refused-{theme}")
        assert lab.outputs(1).count() == 0 and lab.outputs(2).count() == 0  # nothing ran
        assert lab.execution_count(1) is None and lab.execution_count(2) is None
        lab.run_cell(4)
        expect(lab.outputs(4)).to_have_text("False False\n")  # the kernel never ran them
        assert not lab.errors, lab.errors
