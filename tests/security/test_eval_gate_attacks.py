"""A baseline report is data: ``gate BASELINE.json`` without ``--run`` runs the function the
report names only when it is a module under the current folder, and it decides that without
importing anything. Each line of the table is a source a hostile report could name, and whether
the gate runs it (True) or refuses it (False); an installed package planted next to the test
records every import of it, and none may happen before a refusal."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_agents.evals import CaseResult, CaseRun, EvalReport, Score
from jupyter_agents.evals.gate import main

PLANTED = "ja_planted_pkg"
"""An "installed" package (on ``sys.path``, outside the current folder)."""

IMPORT_LOG = "import-log.txt"

_RECORD = """
with open({log!r}, "a") as f:
    f.write(__name__ + "\\n")
"""

HERE_SUITE = """
from jupyter_agents.evals import CaseResult, CaseRun, EvalReport, Score

def run():
    case = CaseResult(key="0", name="c", inputs="q", run=CaseRun(output="a"),
                      scores={"ok": Score("ok", True)})
    return EvalReport(name="here", cases=[case])
"""

CASES: list[tuple[str, bool]] = [
    # (the report's source, whether the gate runs it)
    ("suite_here:run", True),
    ("pkg_here.suite:run", True),
    (f"{PLANTED}:run", False),
    (f"{PLANTED}.sub:run", False),
    (f"{PLANTED}.sub.deeper:run", False),
    (f"{PLANTED}.missing:run", False),
    # a folder here named like the installed package does not make it "here"
    ("shadow_pkg.sub:run", False),
    ("os.path:join", False),
    ("json.decoder:JSONDecoder", False),
    (".relative:run", False),
    ("suite_here..x:run", False),
    ("../up:run", False),
]


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The current folder (with modules of its own) and an installed package outside it whose
    every module logs its import."""
    site, here = tmp_path / "site", tmp_path / "here"
    log = tmp_path / IMPORT_LOG
    for package in (PLANTED, "shadow_pkg"):
        for sub in ("", "sub", "sub/deeper"):
            folder = site / package / sub
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "__init__.py").write_text(_RECORD.format(log=str(log)) + "run = None\n")
    here.mkdir()
    (here / "suite_here.py").write_text(HERE_SUITE)
    (here / "pkg_here").mkdir()
    (here / "pkg_here" / "__init__.py").write_text("")
    (here / "pkg_here" / "suite.py").write_text(HERE_SUITE)
    (here / "shadow_pkg").mkdir()  # a plain folder, no __init__: the installed one wins
    (here / "shadow_pkg" / "sub.py").write_text(_RECORD.format(log=str(log)) + HERE_SUITE)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(here)
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:  # the modules this test imported
        del sys.modules[name]


def baseline(path: Path, source: str) -> Path:
    case = CaseResult(
        key="0", name="c", inputs="q", run=CaseRun(output="a"), scores={"ok": Score("ok", True)}
    )
    report = EvalReport(name="baseline", cases=[case])
    report.source = source
    return report.to_json(path)


@pytest.mark.parametrize(("source", "runs"), CASES, ids=[c[0] for c in CASES])
def test_a_baseline_cannot_make_the_gate_import_what_it_refuses(
    folders: Path, source: str, runs: bool
) -> None:
    file = baseline(folders / "baseline.json", source)
    out = io.StringIO()
    code = main(["gate", str(file)], out=out)
    line = out.getvalue().strip()
    log = folders / IMPORT_LOG
    imported = log.read_text().split() if log.exists() else []
    if runs:
        assert code == 0, line
        assert line == "ok   ok: 1.0000 -> 1.0000 (+0.0000)"
    else:
        assert code == 2 and "\n" not in line, line
        assert "is not a module under this folder" in line, line
        assert imported == [], f"{source} imported {imported} before it was refused"
        assert not [m for m in sys.modules if m.startswith((PLANTED, "shadow_pkg"))]


def test_run_given_by_the_person_still_imports_an_installed_module(folders: Path) -> None:
    # --run is the person's word, not the file's: it may name any module.
    file = baseline(folders / "baseline.json", f"{PLANTED}.sub:run")
    out = io.StringIO()
    assert main(["gate", str(file), "--run", f"{PLANTED}.sub:run"], out=out) == 2
    assert "has no function 'run'" in out.getvalue() or "not an EvalReport" in out.getvalue()
    assert (folders / IMPORT_LOG).read_text().split() == [PLANTED, f"{PLANTED}.sub"]
