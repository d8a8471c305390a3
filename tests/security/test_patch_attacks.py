"""apply_patch attacked as a hostile model would: patches that write where the run's policy says
they may not, symlinks swapped in while a patch is being written, errors half-way through a
patch, and patches that make the context search take minutes or that should stop when the call
is cancelled."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    ApplyPatchTool,
    ApprovalDecision,
    RunConfig,
    Runner,
    WorkspaceEditor,
)
from jupyter_agents.runtime.tools.patch import workspace as workspace_module
from jupyter_agents.runtime.tools.patch._patch_format import PatchError, PatchOp
from jupyter_agents.runtime.tools.patch._patch_policy import leaves_workspace
from jupyter_agents.runtime.tools.patch.apply_patch import APPLY_PATCH
from jupyter_agents.testing import ScriptedModel, output_item, tool_call


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "notes.txt").write_text("one\ntwo\n")
    (root / "old.txt").write_text("bye\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "notes.txt").write_text("secret\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the current folder is not the workspace
    return root


def patch_call(op: dict[str, Any], call_id: str = "p1") -> Any:
    return output_item(
        {
            "type": "apply_patch_call",
            "id": f"ap_{call_id}",
            "call_id": call_id,
            "status": "completed",
            "operation": op,
        }
    )


async def run_patch(
    op: dict[str, Any], config: RunConfig, tool: ApplyPatchTool | None = None
) -> tuple[list[Any], dict[str, Any]]:
    """Run one apply_patch call; the approval requests made (all approved) and the output."""
    asked: list[Any] = []

    def approve(request: Any) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.approve()

    model = ScriptedModel([[patch_call(op)], ["ok"]])
    agent = Agent(name="p", model=model, tools=[tool or ApplyPatchTool()])
    await Runner.run(agent, "go", run_config=config, approval_handler=approve)
    return asked, model.requests[1].input[-1]


# -- 1. the run's policy -------------------------------------------------------------------------

# (approval policy, sandbox mode, path, verdict): "writes" without asking, "asks" (and writes once
# approved), "refused" (nothing asked, nothing written, the model is told why).
POLICY = [
    ("untrusted", "workspace-write", "new.txt", "asks"),
    ("untrusted", "read-only", "new.txt", "asks"),
    ("untrusted", "danger-full-access", "new.txt", "asks"),
    ("on-request", "workspace-write", "new.txt", "writes"),
    ("on-request", "workspace-write", "deep/er/new.txt", "writes"),
    ("on-request", "workspace-write", "../outside/new.txt", "asks"),
    ("on-request", "workspace-write", "OUTSIDE_ABS", "asks"),
    ("on-request", "workspace-write", "WS_ABS", "writes"),
    ("on-request", "workspace-write", ".git/hooks/post-commit", "asks"),
    ("on-request", "workspace-write", "vendor/lib/.git/hooks/pre-commit", "asks"),
    ("on-request", "workspace-write", ".jupyter_agents/state.json", "asks"),
    ("on-request", "read-only", "new.txt", "asks"),
    ("on-request", "danger-full-access", "../outside/new.txt", "writes"),
    ("on-failure", "workspace-write", "new.txt", "writes"),
    ("on-failure", "workspace-write", "../outside/new.txt", "asks"),
    ("on-failure", "read-only", "new.txt", "asks"),
    ("never", "workspace-write", "new.txt", "writes"),
    ("never", "workspace-write", "../outside/new.txt", "refused"),
    ("never", "workspace-write", ".git/hooks/post-commit", "refused"),
    ("never", "read-only", "new.txt", "refused"),
    ("never", "danger-full-access", "../outside/new.txt", "writes"),
]


@pytest.mark.parametrize(("approval", "mode", "path", "verdict"), POLICY)
async def test_the_runs_policy_decides_whether_a_patch_asks(
    ws: Path, approval: str, mode: str, path: str, verdict: str
) -> None:
    path = path.replace("OUTSIDE_ABS", str(ws.parent / "outside" / "new.txt"))
    path = path.replace("WS_ABS", str(ws / "abs.txt"))
    target = Path(path) if os.path.isabs(path) else ws / path
    config = RunConfig(approval_policy=approval, sandbox_mode=mode, workspace=ws)  # type: ignore[arg-type]
    asked, sent = await run_patch({"type": "create_file", "path": path, "diff": "+hi\n"}, config)
    assert bool(asked) == (verdict == "asks")
    assert target.exists() == (verdict != "refused")
    assert not (Path.cwd() / "new.txt").exists()  # never the current folder
    if verdict == "refused":
        assert sent["status"] == "failed" and "never" in sent["output"]


async def test_the_workspace_is_the_runs_and_resolved_per_run(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = ApplyPatchTool(approval_policy="on-request")
    later = tmp_path / "later"
    later.mkdir()
    monkeypatch.chdir(later)  # the tool was made elsewhere: the run's current folder counts
    op = {"type": "create_file", "path": "a.txt", "diff": "+a\n"}
    await run_patch(op, RunConfig(), tool)
    assert (later / "a.txt").exists()
    await run_patch({**op, "path": "b.txt"}, RunConfig(workspace=ws), tool)
    assert (ws / "b.txt").exists() and not (later / "b.txt").exists()


async def test_an_explicit_needs_approval_wins_but_cannot_leave_the_workspace(ws: Path) -> None:
    config = RunConfig(approval_policy="untrusted", workspace=ws)
    inside = {"type": "create_file", "path": "in.txt", "diff": "+x\n"}
    asked, _ = await run_patch(inside, config, ApplyPatchTool(needs_approval=False))
    assert not asked and (ws / "in.txt").exists()
    outside = {"type": "create_file", "path": "../outside/x.txt", "diff": "+x\n"}
    asked, sent = await run_patch(outside, config, ApplyPatchTool(needs_approval=False))
    assert not asked and sent["status"] == "failed" and "approval" in sent["output"]
    assert not (ws.parent / "outside" / "x.txt").exists()


async def test_the_card_shows_the_verdict(ws: Path) -> None:
    config = RunConfig(approval_policy="never", workspace=ws)
    op = {"type": "create_file", "path": "../outside/x.txt", "diff": "+x\n"}
    model = ScriptedModel([[patch_call(op)], ["ok"]])
    result = await Runner.run(
        Agent(name="p", model=model, tools=[ApplyPatchTool()]), "go", run_config=config
    )
    from jupyter_agents import describe_call

    call, output = result.new_items[0], result.new_items[1]
    assert describe_call(call, output).badge == "refused"
    op = {"type": "create_file", "path": "y.txt", "diff": "+y\n"}
    model = ScriptedModel([[patch_call(op)], ["ok"]])
    result = await Runner.run(
        Agent(name="p", model=model, tools=[ApplyPatchTool()]), "go", run_config=config
    )
    assert describe_call(result.new_items[0], result.new_items[1]).badge == "writes: workspace"


@pytest.mark.parametrize(("approval", "verdict"), [("on-request", "asks"), ("never", "refused")])
async def test_a_move_into_git_is_judged_by_its_destination(
    ws: Path, approval: str, verdict: str
) -> None:
    patch = (
        "*** Begin Patch\n*** Update File: old.txt\n*** Move to: .git/hooks/post-checkout\n"
        "@@\n-bye\n+#!/bin/sh\n*** End Patch"
    )
    (ws / ".git" / "hooks").mkdir(parents=True)
    config = RunConfig(approval_policy=approval, workspace=ws)  # type: ignore[arg-type]
    asked: list[Any] = []

    def reject(request: Any) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.reject()

    model = ScriptedModel([[tool_call("apply_patch", {"patch": patch})], ["ok"]])
    await Runner.run(
        Agent(name="p", model=model, tools=[ApplyPatchTool()]),
        "go",
        run_config=config,
        approval_handler=reject,
    )
    assert bool(asked) == (verdict == "asks")
    assert not (ws / ".git" / "hooks" / "post-checkout").exists()
    assert (ws / "old.txt").read_text() == "bye\n"


@pytest.mark.parametrize(
    ("path", "leaves"),
    [
        ("a.txt", False),
        ("src/../b.txt", False),
        ("./c/d.txt", False),
        ("..", True),
        ("../x", True),
        ("a/../../x", True),
        ("a\\..\\..\\x", True),  # backslashes read as "/"
        ("/etc/passwd", True),
        (".git/config", True),
        ("vendor/.git/hooks/x", True),
        (".jupyter_agents/db", True),
        (".gitignore", False),
    ],
)
def test_which_paths_are_decided_on_their_own(path: str, leaves: bool) -> None:
    assert leaves_workspace(path) == leaves


async def test_an_always_for_a_patch_inside_does_not_cover_one_outside(ws: Path) -> None:
    inside = {"type": "create_file", "path": "a.txt", "diff": "+a\n"}
    outside = {"type": "create_file", "path": "../outside/evil.txt", "diff": "+x\n"}
    asked: list[str] = []

    def decide(request: Any) -> ApprovalDecision:
        path = request.arguments["operations"][0]["path"]
        asked.append(path)
        return (
            ApprovalDecision.approve(always=True) if path == "a.txt" else ApprovalDecision.reject()
        )

    model = ScriptedModel([[patch_call(inside, "p1")], [patch_call(outside, "p2")], ["ok"]])
    await Runner.run(
        Agent(name="p", model=model, tools=[ApplyPatchTool()]),
        "go",
        run_config=RunConfig(approval_policy="untrusted", workspace=ws),
        approval_handler=decide,
    )
    assert asked == ["a.txt", "../outside/evil.txt"]  # the outside write was asked on its own
    assert (ws / "a.txt").exists() and not (ws.parent / "outside" / "evil.txt").exists()


# -- 2. symlinks swapped in while the patch is written ----------------------------------------


def swap_before_first_create(monkeypatch: pytest.MonkeyPatch, swap: Any) -> dict[str, int]:
    """Run ``swap`` once, just before the first file is created (after every check)."""
    real_open = os.open
    state = {"swapped": 0}

    def hooked(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT and not state["swapped"]:
            state["swapped"] = 1
            swap()
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", hooked)
    return state


def test_a_folder_swapped_for_a_symlink_mid_patch_does_not_lead_out(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = ws.parent / "outside"

    def swap() -> None:  # what a shell call running at the same time can do
        (ws / "sub").rename(ws / "sub.moved")
        os.symlink(outside, ws / "sub")

    state = swap_before_first_create(monkeypatch, swap)
    try:
        WorkspaceEditor(ws).apply([PatchOp("update_file", "sub/notes.txt", "@@\n-two\n+TWO\n")])
    except PatchError:
        pass  # refused is fine; writing outside is not
    assert state["swapped"]
    assert (outside / "notes.txt").read_text() == "secret\n"
    assert sorted(p.name for p in outside.iterdir()) == ["notes.txt"]


def test_a_file_swapped_for_a_symlink_mid_patch_is_not_followed(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = ws.parent / "outside"

    def swap() -> None:
        (ws / "sub" / "notes.txt").unlink()
        os.symlink(outside / "notes.txt", ws / "sub" / "notes.txt")

    swap_before_first_create(monkeypatch, swap)
    try:
        WorkspaceEditor(ws).apply([PatchOp("update_file", "sub/notes.txt", "@@\n-two\n+TWO\n")])
    except PatchError:
        pass
    assert (outside / "notes.txt").read_text() == "secret\n"


@pytest.mark.parametrize(
    ("setup", "op"),
    [
        ("link_dir_in", PatchOp("create_file", "linked/new.txt", "+x\n")),
        ("link_file_in", PatchOp("update_file", "link.txt", "@@\n-bye\n+hi\n")),
        ("link_file_out", PatchOp("update_file", "leak.txt", "@@\n+copied\n")),
        ("link_file_out", PatchOp("delete_file", "leak.txt")),
        ("fifo", PatchOp("update_file", "pipe", "@@\n+x\n")),
    ],
)
def test_symlinks_and_special_files_are_refused(ws: Path, setup: str, op: PatchOp) -> None:
    if setup == "link_dir_in":
        os.symlink(ws / "sub", ws / "linked")  # even one that stays inside
    elif setup == "link_file_in":
        os.symlink(ws / "old.txt", ws / "link.txt")
    elif setup == "link_file_out":
        os.symlink(ws.parent / "outside" / "notes.txt", ws / "leak.txt")
    else:
        os.mkfifo(ws / "pipe")  # reading it would block the call forever
    before = {p: p.read_text() for p in ws.rglob("*.txt") if not p.is_symlink()}
    with pytest.raises(PatchError, match=r"symbolic link|not a regular file"):
        WorkspaceEditor(ws).apply([op])
    assert {p: p.read_text() for p in ws.rglob("*.txt") if not p.is_symlink()} == before
    assert (ws.parent / "outside" / "notes.txt").read_text() == "secret\n"


def test_a_file_hard_linked_from_outside_is_replaced_not_written_through(ws: Path) -> None:
    outside = ws.parent / "outside" / "notes.txt"
    (ws / "sub" / "notes.txt").unlink()
    os.link(outside, ws / "sub" / "notes.txt")  # the same file, under two names
    WorkspaceEditor(ws).apply([PatchOp("update_file", "sub/notes.txt", "@@\n-secret\n+mine\n")])
    assert (ws / "sub" / "notes.txt").read_text() == "mine\n"
    assert outside.read_text() == "secret\n"


# -- 3. all or none, modes, speed, cancellation ------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        PatchOp("create_file", "new.txt", "+ok\n+\ud800\n"),  # a lone surrogate (from JSON)
        PatchOp("create_file", "bad\ud800.txt", "+x\n"),
        PatchOp("update_file", "sub/notes.txt", "@@\n-two\n+\udcff\n"),
    ],
)
def test_any_error_leaves_every_file_as_it_was(ws: Path, bad: PatchOp) -> None:
    before = {p.relative_to(ws): p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    with pytest.raises(PatchError):
        WorkspaceEditor(ws).apply(
            [
                PatchOp("delete_file", "old.txt"),
                PatchOp("create_file", "made/first.txt", "+first\n"),
                bad,
            ]
        )
    after = {p.relative_to(ws): p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    assert after == before
    assert not (ws / "made").exists()


def test_a_write_that_fails_half_way_puts_everything_back(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_replace = os.replace
    calls = {"n": 0}

    def failing(*args: Any, **kwargs: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        real_replace(*args, **kwargs)

    monkeypatch.setattr(os, "replace", failing)
    before = {p.relative_to(ws): p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    with pytest.raises(PatchError, match=r"nothing was changed"):
        WorkspaceEditor(ws).apply(
            [
                PatchOp("update_file", "old.txt", "@@\n-bye\n+hello\n"),
                PatchOp("delete_file", "sub/notes.txt"),
                PatchOp("create_file", "c.txt", "+c\n"),
            ]
        )
    after = {p.relative_to(ws): p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    assert after == before


def test_files_keep_their_mode_and_new_files_follow_the_umask(ws: Path) -> None:
    script = ws / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    old = os.umask(0o027)
    try:
        WorkspaceEditor(ws).apply(
            [
                PatchOp("update_file", "run.sh", "@@\n-echo hi\n+echo ho\n"),
                PatchOp("create_file", "fresh.txt", "+new\n"),
            ]
        )
        assert stat.S_IMODE(script.stat().st_mode) == 0o755
        assert stat.S_IMODE((ws / "fresh.txt").stat().st_mode) == 0o640
        WorkspaceEditor(ws).apply(
            [PatchOp("update_file", "run.sh", "@@\n-echo ho\n+echo hey\n", "bin/run.sh")]
        )
    finally:
        os.umask(old)
    assert stat.S_IMODE((ws / "bin" / "run.sh").stat().st_mode) == 0o755
    assert (ws / "bin" / "run.sh").read_text() == "#!/bin/sh\necho hey\n"


@pytest.mark.timeout(20)
def test_the_context_search_is_not_quadratic(ws: Path) -> None:
    # 200,000 nearly identical lines; the patch's 400 context lines match only at the end, and
    # only once trailing whitespace is ignored (so every pass but the first has to run).
    body = ["x = 1  "] * 200_000 + ["y = 2"]
    (ws / "big.py").write_text("\n".join(body) + "\n")
    context = "".join(" x = 1\n" for _ in range(400))
    WorkspaceEditor(ws).apply([PatchOp("update_file", "big.py", f"@@\n{context}-y = 2\n+y = 3\n")])
    assert (ws / "big.py").read_text().endswith("x = 1  \ny = 3\n")


async def test_a_cancelled_call_stops_and_writes_nothing(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, release, finished = threading.Event(), threading.Event(), threading.Event()
    real_apply = WorkspaceEditor.apply
    real_engine = workspace_module.apply_diff  # type: ignore[attr-defined]  # the name it calls
    flags: list[Any] = []

    def slow_engine(*args: Any, **kwargs: Any) -> Any:
        entered.set()  # the call is cancelled while the patch is being worked out
        flag = flags[0] if flags else None  # its cancel flag, if the editor takes one
        (flag or release).wait(10)  # go on once the cancellation has reached the worker
        return real_engine(*args, **kwargs)

    def apply(self: Any, *args: Any, **kwargs: Any) -> Any:
        flags.append(kwargs.get("cancel"))
        try:
            return real_apply(self, *args, **kwargs)
        finally:
            finished.set()

    monkeypatch.setattr(workspace_module, "apply_diff", slow_engine)
    monkeypatch.setattr(WorkspaceEditor, "apply", apply)
    tool = ApplyPatchTool(WorkspaceEditor(ws))
    ops = {
        "operations": [
            {"type": "delete_file", "path": "old.txt"},
            {"type": "update_file", "path": "sub/notes.txt", "diff": "@@\n-two\n+TWO\n"},
        ]
    }
    ctx: Any = type("Ctx", (), {"run_config": None, "tool_call_id": "c1", "context": None})()
    task = asyncio.ensure_future(APPLY_PATCH.invoke(tool, ctx, json.dumps(ops)))
    assert await asyncio.to_thread(entered.wait, 10)
    task.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(finished.wait, 10)
    assert (ws / "old.txt").read_text() == "bye\n"
    assert (ws / "sub" / "notes.txt").read_text() == "one\ntwo\n"


async def test_the_tool_timeout_stops_a_patch_and_nothing_is_written(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_apply = WorkspaceEditor.apply
    real_engine = workspace_module.apply_diff  # type: ignore[attr-defined]  # the name it calls
    flags: list[Any] = []

    def slow_engine(*args: Any, **kwargs: Any) -> Any:
        flags[0].wait(30)  # works until the timeout cancels the call
        return real_engine(*args, **kwargs)

    def apply(self: Any, *args: Any, **kwargs: Any) -> Any:
        flags.append(kwargs["cancel"])
        return real_apply(self, *args, **kwargs)

    monkeypatch.setattr(workspace_module, "apply_diff", slow_engine)
    monkeypatch.setattr(WorkspaceEditor, "apply", apply)
    op = {"type": "update_file", "path": "sub/notes.txt", "diff": "@@\n-two\n+TWO\n"}
    config = RunConfig(approval_policy="never", workspace=ws, tool_timeout=0.3)
    _, sent = await run_patch(op, config)
    assert sent["status"] == "failed" and "0.3 s" in sent["output"]
    assert flags[0].is_set()
    assert (ws / "sub" / "notes.txt").read_text() == "one\ntwo\n"
