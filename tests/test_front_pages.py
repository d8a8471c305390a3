"""The pages a newcomer reads first: README.md says how to begin (clone, a virtual environment,
then two commands), .ci/run checks its install runs every notebook, and docs/index.md links
every page of the guide."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from .notebook import replay_helpers

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text()
INSTALL = 'pip install -e ".[lab]"'


def test_every_page_in_docs_is_linked_from_the_index() -> None:
    linked = set(re.findall(r"\]\(([\w-]+\.md)(?:#[\w-]*)?\)", (DOCS / "index.md").read_text()))
    pages = {page.name for page in DOCS.glob("*.md")} - {"index.md"}
    assert pages, "no pages found"
    assert sorted(pages - linked) == [], "link these pages from docs/index.md"
    assert sorted(linked - pages) == [], "docs/index.md links pages that do not exist"


def test_the_readme_begins_with_a_clone_a_venv_then_two_commands() -> None:
    blocks = re.findall(r"```bash\n(.*?)```", README, re.S)
    assert blocks[:2] == [
        f"{INSTALL} && jupyter lab notebooks/quickstart.ipynb\n",
        'pip install -e ".[test]" && python -m pytest\n',
    ]
    before = README[: README.index("```bash")]
    assert "Clone this repository" in before and "python3 -m venv .venv" in before


def test_ci_runs_every_notebook_after_the_readme_install_alone() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    step = ci[ci.index("python3 -m venv .venv-readme") : ci.index('export CI="${CI:-true}"')]
    installs = [line.split(" >")[0] for line in step.splitlines() if ".venv-readme/bin/pip" in line]
    assert installs == [f".venv-readme/bin/{INSTALL}"]  # exactly the README's, nothing more
    waited = step.index('wait "$readme_install"')  # installed in the background, waited for
    assert waited < step.index('export JUPYTER_AGENTS_README_PYTHON="$PWD/.venv-readme/bin/python"')
    # ... and the notebook tests run every notebook with that Python (under CI, only with it)
    assert replay_helpers.README_PYTHON == "JUPYTER_AGENTS_README_PYTHON"
    assert "notebook_python()" in inspect.getsource(replay_helpers.headless)
