"""docs/security.md names what enforces each guarantee and which tests prove it: every test file,
test and module it names exists, so the page cannot drift from the code."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "security.md").read_text()


def _defined_tests() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        names.update(re.findall(r"^(?:async )?def (test_\w+)", path.read_text(), re.M))
    return names


def test_every_test_file_it_names_exists() -> None:
    files = set(re.findall(r"`(tests/[\w/]+\.py)", PAGE))
    files |= {f"tests/security/{n}" for n in re.findall(r"`(test_\w+\.py)", PAGE)}
    assert files and not [f for f in files if not (ROOT / f).is_file()]


def test_every_test_it_names_exists() -> None:
    named = set(re.findall(r"::\s*(test_\w+)", PAGE))
    assert len(named) > 30
    assert sorted(named - _defined_tests()) == []


def test_every_module_it_names_exists() -> None:
    modules = set(re.findall(r"`((?:runtime|tools|mcp|notebook|_run)/[\w/]+\.py)`", PAGE))
    missing = []
    for module in modules:
        candidates = [
            ROOT / "jupyter_agents" / module,
            ROOT / "jupyter_agents" / "runtime" / module,
            ROOT / "jupyter_agents" / "runtime" / "sandbox" / module,
        ]
        if not any(c.is_file() for c in candidates):
            missing.append(module)
    bare = {m for m in re.findall(r"`(_?\w+\.py)`", PAGE) if not m.startswith("test_")}
    sandbox = ROOT / "jupyter_agents" / "runtime" / "sandbox"
    elsewhere = [p.name for p in (ROOT / "jupyter_agents").rglob("*.py")]
    missing += [m for m in bare if not (sandbox / m).is_file() and m not in elsewhere]
    assert modules and missing == []
