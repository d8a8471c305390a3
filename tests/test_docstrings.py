"""Docstrings render as the API reference shows them: Markdown (mkdocstrings), where a Sphinx
role (``:class:`X```) would print as raw text. Names are written as code (````X````)."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "jupyter_agents"
ROLE = re.compile(r":(?:py:)?(?:class|meth|func|attr|mod|data|exc|obj|const|ref):`")


def test_no_docstring_uses_a_sphinx_role() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ROLE.search(line)
    ]
    assert found == [], f"Sphinx roles (write ``Name`` instead): {found[:20]}"
