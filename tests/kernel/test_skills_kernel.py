"""Skills in a real kernel: ``%load_ext`` reads none (nor imports the loader); the notebook
agent finds the project's and the person's when a run starts, from the kernel's working folder,
lists them in ``load_skill`` and reads a body only when the model asks; a skipped skill is told
once, not at every run."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import kernel_value
from .frontend import Frontend
from .test_lazy_load import fresh

__all__ = ["fresh"]  # a kernel of its own, as a fixture

pytestmark = pytest.mark.kernel

SKILL = """---
name: pdf-tables
description: Extract tables from PDF files. Use when asked for a PDF's tables.
---
Open it with pdfplumber. BODY-MARKER-kernel-42
"""
MINE = "---\nname: notes\ndescription: Keep notes in notes.md.\n---\nNotes.\n"


def agent_cell(fe: Frontend, prompt: str) -> str:
    """Run a ``%%agent`` cell to its end; what it printed."""
    before = len(fe.run_widgets())
    msg_id = fe.execute(f"%%agent\n{prompt}")
    assert fe.reply(msg_id, timeout=60)["content"]["status"] == "ok"
    comm = fe.widget(before)
    fe.wait_for(lambda: fe.state(comm)["header"].get("live") is False, what="the end")
    assert fe.state(comm)["header"]["status"] == "done"
    return fe.stdout(msg_id)


def test_the_notebook_agent_finds_skills_when_a_run_starts(fresh: Frontend, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "notebooks").mkdir()
    (repo / ".agents" / "skills" / "pdf-tables").mkdir(parents=True)
    (repo / ".agents" / "skills" / "pdf-tables" / "SKILL.md").write_text(SKILL)
    (repo / ".agents" / "skills" / "Broken").mkdir()
    (tmp_path / "jupyter" / "jupyter_agents" / "skills" / "notes").mkdir(parents=True)
    (tmp_path / "jupyter" / "jupyter_agents" / "skills" / "notes" / "SKILL.md").write_text(MINE)

    fresh.run("%load_ext jupyter_agents")
    fresh.run(
        "import os, sys\n"
        f"os.environ['JUPYTER_CONFIG_DIR'] = {str(tmp_path / 'jupyter')!r}\n"
        f"os.chdir({str(repo / 'notebooks')!r})"
    )
    assert kernel_value(fresh, "'jupyter_agents.runtime.skills' in sys.modules") is False
    fresh.run(
        "from jupyter_agents.testing import ScriptedModel, text, tool_call\n"
        "demo = ScriptedModel([[tool_call('load_skill', {'name': 'pdf-tables', 'path': None})],"
        " [text('Done.')], [text('Again.')]])\n"
        "%agent model demo"
    )
    printed = agent_cell(fresh, "Get the tables out of report.pdf.")
    assert "jupyter_agents: Skill skipped: " in printed and "Broken" in printed
    first = kernel_value(fresh, "repr(demo.requests[0].tool_schemas)")
    assert "pdf-tables: Extract tables from PDF files." in first
    assert "notes: Keep notes in notes.md." in first
    assert "BODY-MARKER-kernel-42" not in kernel_value(fresh, "repr(demo.requests[0].input)")
    assert "BODY-MARKER-kernel-42" in kernel_value(fresh, "repr(demo.requests[1].input)")

    assert "Skill skipped" not in agent_cell(fresh, "And again.")  # told once, not every run
    assert "load_skill" in kernel_value(fresh, "demo.requests[2].tool_names")
