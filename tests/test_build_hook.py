"""hatch_build.py: when installing builds the JupyterLab extension. A git checkout as cloned
needs no build (so no Node.js); a missing build, or sources edited or committed after the
build, do (an editable install); a plain copy of the tree trusts the build it holds."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def build_due() -> Callable[..., str | None]:
    """``hatch_build.build_due``, loaded without hatchling (a build requirement only)."""
    stub = types.ModuleType("hatchling.builders.hooks.plugin.interface")
    stub.BuildHookInterface = object  # type: ignore[attr-defined]
    names = ["hatchling", "hatchling.builders", "hatchling.builders.hooks"]
    names += ["hatchling.builders.hooks.plugin", stub.__name__]
    saved = {name: sys.modules.get(name) for name in names}
    sys.modules.update({name: types.ModuleType(name) for name in names[:-1]})
    sys.modules[stub.__name__] = stub
    try:
        spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old
    return module.build_due  # type: ignore[no-any-return]


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def write(root: Path, name: str, text: str = "x") -> None:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text)


def edit_source(root: Path) -> None:
    write(root, "labextension/src/index.ts", "changed")


def new_source(root: Path) -> None:
    write(root, "labextension/src/plugin.ts")


def commit_source(root: Path) -> None:
    edit_source(root)
    git(root, "commit", "-qam", "a source change, not built")


def commit_source_then_build(root: Path) -> None:
    commit_source(root)
    write(root, "jupyter_agents/labextension/static/style.js", "rebuilt")
    git(root, "commit", "-qam", "the build")


def delete_build(root: Path) -> None:
    (root / "jupyter_agents/labextension/static/style.js").unlink()


def edit_a_test(root: Path) -> None:
    write(root, "labextension/test/plugin.spec.ts", "changed")


def no_git(root: Path) -> None:
    shutil.rmtree(root / ".git")
    edit_source(root)


def as_cloned(root: Path) -> None:
    pass


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A git checkout with the extension's sources and its committed build."""
    for name in ("labextension/src/index.ts", "labextension/package.json"):
        write(tmp_path, name)
    write(tmp_path, "labextension/test/plugin.spec.ts")
    for name in ("package.json", "static/style.js"):
        write(tmp_path, f"jupyter_agents/labextension/{name}")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "sources and build")
    return tmp_path


@pytest.mark.parametrize(
    ("change", "editable", "due"),
    [
        (as_cloned, True, None),
        (as_cloned, False, None),
        (edit_source, True, "sources changed since the build: M labextension/src/index.ts"),
        (edit_source, False, None),  # a wheel takes the build as it is, as before
        (new_source, True, "sources changed since the build: ?? labextension/src/plugin.ts"),
        (commit_source, True, "sources committed after the build, in "),
        (commit_source_then_build, True, None),
        (edit_a_test, True, None),  # tests are not built into the extension
        (delete_build, True, "jupyter_agents/labextension/static/style.js is missing"),
        (delete_build, False, "jupyter_agents/labextension/static/style.js is missing"),
        (no_git, True, None),  # an sdist: the build it ships is the build
    ],
)
def test_when_installing_builds_the_extension(
    build_due: Callable[..., str | None],
    checkout: Path,
    change: Callable[[Path], Any],
    editable: bool,
    due: str | None,
) -> None:
    change(checkout)
    reason = build_due(checkout, editable=editable)
    if due is None:
        assert reason is None
    else:
        assert reason is not None and reason.startswith(due), reason
