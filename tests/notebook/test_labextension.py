"""The JupyterLab extension stays in step with the kernel side and the package.

The extension's rules for ``%%agent`` lines live in ``labextension/src/agentcell/syntax.ts``
(tested with ``jlpm test``); these tests check that its table of options is the magic's, and
that the committed prebuilt extension is where JupyterLab looks for it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jupyter_agents
from jupyter_agents.notebook.cells.options import _parser

ROOT = Path(__file__).resolve().parents[2]
SYNTAX_TS = ROOT / "labextension" / "src" / "agentcell" / "syntax.ts"


def _ts_table(name: str) -> str:
    pattern = rf"export const {name}\b[^=]*=\s*([\[{{].*?[\]}}]);"
    match = re.search(pattern, SYNTAX_TS.read_text(), re.S)
    assert match, f"{name} not found in {SYNTAX_TS}"
    return match.group(1)


def test_the_extension_knows_every_option_of_the_magic() -> None:
    flags = dict(re.findall(r"'(--[a-z-]+)':\s*'(value|switch)'", _ts_table("FLAGS")))
    expected = {
        option: "switch" if action.nargs == 0 else "value"
        for action in _parser()._actions
        for option in action.option_strings
    }
    assert flags == expected


def test_the_extension_knows_the_approve_choices() -> None:
    choices = re.findall(r"'([a-z]+)'", _ts_table("APPROVE_CHOICES"))
    (approve,) = (a for a in _parser()._actions if "--approve" in a.option_strings)
    assert choices == list(approve.choices or [])


def test_the_extension_knows_the_mode_choices() -> None:
    choices = re.findall(r"'([a-z]+)'", _ts_table("MODE_CHOICES"))
    (mode,) = (a for a in _parser()._actions if "--mode" in a.option_strings)
    assert choices == list(mode.choices or [])


def test_the_extension_knows_the_backend_choices() -> None:
    choices = re.findall(r"'([a-z]+)'", _ts_table("BACKEND_CHOICES"))
    (backend,) = (a for a in _parser()._actions if "--backend" in a.option_strings)
    assert choices == list(backend.choices or [])


def test_the_extension_knows_the_replay_tools_choices() -> None:
    choices = re.findall(r"'([a-z]+)'", _ts_table("REPLAY_TOOLS_CHOICES"))
    (tools,) = (a for a in _parser()._actions if "--replay-tools" in a.option_strings)
    assert choices == list(tools.choices or [])


def test_the_prebuilt_extension_is_where_jupyterlab_looks() -> None:
    (path,) = jupyter_agents._jupyter_labextension_paths()
    built = Path(jupyter_agents.__file__).parent / path["src"]
    meta = json.loads((built / "package.json").read_text())
    assert meta["name"] == path["dest"] == "jupyter-agents"
    assert meta["version"] == jupyter_agents.__version__
    assert (built / meta["jupyterlab"]["_build"]["load"]).is_file()
