"""A property test against a live JupyterLab document: 500 random changes (valid and junk) sent
by the kernel over the document comm, the last 50 of them edits of the cell the page is typing
into while it types. The notebook stays valid (nbformat, unique ids) in the page and on disk,
every valid change applies and no junk one does, no keystroke is lost, and an edit that names
a source the cell no longer holds is refused, never applied over the typing."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

import nbformat
import pytest

from .lab import Session

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

DRIVER = (Path(__file__).parent / "document_fuzz_driver.py").read_text()
SEED = 20261125
CALLS, RACING = 450, 50
PROTECTED = ["setup", "typed", "driver"]


def test_random_changes_and_typing_leave_a_valid_notebook_and_every_keystroke(
    session: Session,
) -> None:
    run = (
        f"import json\nsummary = await fuzz({SEED}, {CALLS}, {RACING}, {PROTECTED!r}, 'typed')\n"
        "print(json.dumps(summary))"
    )
    cells = ["%load_ext jupyter_agents\n" + DRIVER, "# typed here", run]
    cells += [f"s{i} = {i}" for i in range(6)]
    ids = [*PROTECTED, *(f"s{i}" for i in range(6))]
    with session.lab("document-fuzz") as lab:
        path = lab.write_notebook("fuzz.ipynb", cells, ids)
        lab.open("fuzz.ipynb")
        lab.run_cell(0)
        lab.run_cell(2)  # the driver: runs while the page types below
        editor = lab.cell(1).locator(".cm-content")
        editor.click()
        lab.page.keyboard.press("Control+End")
        typed: list[str] = []
        rng = random.Random(SEED)
        finished = lab.outputs(2).filter(has_text=re.compile(r"\{.*\}|Error"))
        deadline = time.monotonic() + 420
        while not finished.count():
            assert time.monotonic() < deadline, "the driver did not finish"
            token = f" k{len(typed)}."
            lab.page.keyboard.type(token, delay=rng.choice([0, 2, 5]))
            typed.append(token.strip())
            if rng.random() < 0.2:  # a typist's pause (pacing, not waiting on anything)
                lab.page.wait_for_timeout(rng.choice([50, 150, 300]))
        lab.screenshot("document-fuzz")
        summary = json.loads(finished.first.text_content())
        lab.save(path)
    assert summary["wrong"] == [], summary["wrong"][:5]
    assert sum(summary["tally"].values()) == CALLS
    assert summary["stale"] + len(summary["applied"]) == RACING
    saved = nbformat.read(path, as_version=4)
    nbformat.validate(saved)
    assert len({c["id"] for c in saved.cells}) == len(saved.cells)
    source = next(c.source for c in saved.cells if c.get("id") == "typed")
    lost = [t for t in typed if source.count(t) != 1]
    around = ""
    if lost:  # where it should have been: the bursts before and after it, as saved
        i = typed.index(lost[0])
        start = source.find(typed[i - 1]) if i else 0
        around = repr(source[max(start, 0) : max(start, 0) + 160])
    assert lost == [], f"{len(lost)} of {len(typed)} bursts lost or doubled: {lost[:5]} {around}"
    assert all(source.count(m) == 1 for m in summary["applied"])  # each applied edit, once
    assert summary["applied"] and summary["stale"]  # both paths taken while the page typed
    print(
        f"\n{summary['tally']}, {summary['seconds']} s, racing: {len(summary['applied'])} "
        f"applied, {summary['stale']} refused as stale, {len(typed)} bursts typed"
    )
