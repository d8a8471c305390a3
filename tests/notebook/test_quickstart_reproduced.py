"""nbconvert (``jupyter nbconvert --execute``) and papermill reproduce notebooks/quickstart.ipynb
offline from the recordings its agent cells keep: the notebook is executed live once (its
scripted model through the real openai client and the local test server), then executed by
each tool in a network namespace of its own, model requests sent where nothing listens. Neither
tool holds the notebook for the kernel, so the kernel finds the recordings in the notebooks of
its working folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from jupyter_agents.runtime.sandbox.bwrap import find_bwrap

from .replay_helpers import NOWHERE, RUN_TIMEOUT, agent_cells, headless, run_of

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(600)]

QUICKSTART = Path(__file__).resolve().parents[2] / "notebooks" / "quickstart.ipynb"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """The quickstart executed live: the executed file (with its recordings) and notebook."""
    folder = tmp_path_factory.mktemp("quickstart")
    shutil.copy(QUICKSTART, folder / QUICKSTART.name)
    live, said = headless(folder / QUICKSTART.name, {"JUPYTER_AGENTS_SCRIPTED_HTTP": "1"})
    assert all(c.metadata["jupyter_agents"]["cassette"] for c in agent_cells(live)), said
    return folder / "quickstart.out.ipynb", live


def offline(argv: list[str], folder: Path) -> str:
    """Run ``argv`` in ``folder`` with no network and no model server; what it printed."""
    bwrap = find_bwrap()
    assert bwrap is not None, "bubblewrap is needed (apt-get install bubblewrap)"
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "JUPYTER_AGENTS"))}
    env = {**keep, "JUPYTER_AGENTS_SCRIPTED_HTTP": NOWHERE, "JUPYTER_AGENTS_APPROVE": "auto"}
    env["PATH"] = f"{BIN}:{env.get('PATH', '/usr/bin:/bin')}"
    run = subprocess.run(
        [bwrap, "--dev-bind", "/", "/", "--unshare-net", "--die-with-parent", *argv],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=env,
        cwd=folder,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout + run.stderr


def assert_reproduced(live: Any, again: Any, said: str) -> None:
    before, after = agent_cells(live), agent_cells(again)
    assert len(before) == 3 and [c.source for c in before] == [c.source for c in after]
    for was, now in zip(before, after, strict=True):
        assert run_of(now) == run_of(was), f"{now.source!r} differs:\n{said}"
        summary = next(o.data["text/plain"] for o in now.outputs if "data" in o)
        assert " · done · replayed · " in summary, f"{now.source!r} ran live:\n{said}"


def test_nbconvert_reproduces_the_quickstart_offline(
    recorded: tuple[Path, Any], tmp_path: Path
) -> None:
    path, live = recorded
    shutil.copy(path, tmp_path / "quickstart.ipynb")
    argv = ["jupyter", "nbconvert", "--to", "notebook", "--execute", "quickstart.ipynb"]
    said = offline([*argv, "--output", "reproduced.ipynb"], tmp_path)
    again = nbformat.read(tmp_path / "reproduced.ipynb", as_version=4)
    assert_reproduced(live, again, said)


def test_papermill_reproduces_the_quickstart_offline(
    recorded: tuple[Path, Any], tmp_path: Path
) -> None:
    path, live = recorded
    shutil.copy(path, tmp_path / "quickstart.ipynb")
    said = offline(["papermill", "quickstart.ipynb", "reproduced.ipynb"], tmp_path)
    again = nbformat.read(tmp_path / "reproduced.ipynb", as_version=4)
    assert_reproduced(live, again, said)
