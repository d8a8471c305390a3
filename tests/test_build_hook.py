"""hatch_build.py: when installing builds the JupyterLab extension. A checkout as cloned needs
no build (so no Node.js): the build records the digest of the sources it read, and an editable
install builds only when the tree's sources have another digest (content, not commit order: a
change to the widget's JavaScript, which the lab build does not read, needs none); a missing
build always does; a wheel trusts the build it holds."""

from __future__ import annotations

import importlib.util
import json
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
def hook() -> Any:
    """``hatch_build``, loaded without hatchling (a build requirement only)."""
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
    return module


@pytest.fixture(scope="module")
def build_due(hook: Any) -> Callable[..., str | None]:
    return hook.build_due  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def source_digest(hook: Any) -> Callable[[Path], str]:
    return hook.source_digest  # type: ignore[no-any-return]


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


def record_digest(root: Path, digest: Callable[[Path], str]) -> None:
    """What ``jlpm build:prod`` does last: record the digest of the sources it read."""
    value = {"sources_sha256": digest(root / "labextension")}
    write(root, "jupyter_agents/labextension/sources.json", json.dumps(value))


def edit_source(root: Path) -> None:
    write(root, "labextension/src/index.ts", "changed")


def new_source(root: Path) -> None:
    write(root, "labextension/src/plugin.ts")


def edit_style(root: Path) -> None:
    write(root, "labextension/style/base.css", "changed")


def edit_the_widget(root: Path) -> None:
    write(root, "labextension/src/widget/index.js", "changed")  # build:widget's, not the lab's


def edit_a_test(root: Path) -> None:
    write(root, "labextension/test/plugin.spec.ts", "changed")


def crlf_checkout(root: Path) -> None:
    path = root / "labextension/src/index.ts"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))


def delete_build(root: Path) -> None:
    (root / "jupyter_agents/labextension/static/style.js").unlink()


def delete_digest(root: Path) -> None:
    (root / "jupyter_agents/labextension/sources.json").unlink()


def no_sources(root: Path) -> None:
    shutil.rmtree(root / "labextension")


def as_cloned(root: Path) -> None:
    pass


@pytest.fixture
def checkout(tmp_path: Path, source_digest: Callable[[Path], str]) -> Path:
    """A tree with the extension's sources and its build, made from them."""
    write(tmp_path, "labextension/src/index.ts", "line one\nline two\n")
    write(tmp_path, "labextension/src/widget/index.js")
    write(tmp_path, "labextension/style/base.css")
    write(tmp_path, "labextension/package.json")
    write(tmp_path, "labextension/test/plugin.spec.ts")
    for name in ("package.json", "static/style.js"):
        write(tmp_path, f"jupyter_agents/labextension/{name}")
    record_digest(tmp_path, source_digest)
    return tmp_path


CHANGED = "the sources in labextension/ differ from those the committed build was made from"


@pytest.mark.parametrize(
    ("change", "editable", "due"),
    [
        (as_cloned, True, None),
        (as_cloned, False, None),
        (edit_source, True, CHANGED),
        (edit_source, False, None),  # a wheel takes the build as it is
        (new_source, True, CHANGED),
        (edit_style, True, CHANGED),
        (edit_the_widget, True, None),  # the lab build does not read it: no Node needed
        (edit_a_test, True, None),  # tests are not built into the extension
        (crlf_checkout, True, None),  # a Windows checkout's line ends are the same text
        (delete_build, True, "jupyter_agents/labextension/static/style.js is missing"),
        (delete_build, False, "jupyter_agents/labextension/static/style.js is missing"),
        (delete_digest, True, "jupyter_agents/labextension/sources.json is missing"),
        (no_sources, True, None),  # no sources to build from: the shipped build is the build
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


def test_a_fresh_clone_of_this_repository_needs_no_build(
    build_due: Callable[..., str | None], tmp_path: Path
) -> None:
    """``git clone`` + ``pip install -e .`` needs no Node: the committed build's recorded
    digest is the digest of the committed sources."""
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    git(tmp_path, "clone", "-q", "--no-checkout", str(ROOT), "clone")
    git(tmp_path / "clone", "checkout", "-q", head)
    assert build_due(tmp_path / "clone", editable=True) is None


@pytest.mark.skipif(shutil.which("node") is None, reason="the build's own digest needs Node")
def test_the_build_records_the_digest_this_hook_computes(
    source_digest: Callable[[Path], str], tmp_path: Path
) -> None:
    """``source-digest.mjs`` (run by ``jlpm build:prod``) and :func:`source_digest` agree."""
    folder = tmp_path / "labextension"
    shutil.copytree(
        ROOT / "labextension",
        folder,
        ignore=shutil.ignore_patterns("node_modules", "lib", "build-test"),
    )
    crlf = folder / "src" / "index.ts"
    crlf.write_bytes(crlf.read_bytes().replace(b"\n", b"\r\n"))
    (tmp_path / "jupyter_agents" / "labextension").mkdir(parents=True)
    subprocess.run(["node", "source-digest.mjs"], cwd=folder, check=True)
    written = json.loads((tmp_path / "jupyter_agents/labextension/sources.json").read_text())
    assert written == {"sources_sha256": source_digest(folder)}
