"""apply_patch: the patch format, the workspace editor's safety (nothing outside the workspace,
all or nothing), the tool in the model loop with approvals, and both wire formats over HTTP.
(Attacks are in tests/security/test_patch_attacks.py; Codex's and the SDK's own cases in
test_apply_patch_parity.py.)"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agents import (
    Agent,
    ApplyPatchOperation,
    ApplyPatchResult,
    ApplyPatchTool,
    ApprovalDecision,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    ToolCallOutputItem,
    UserError,
    WorkspaceEditor,
    apply_diff,
)
from jupyter_agents.runtime.tools.patch._patch_format import PatchError, PatchOp, parse_patch
from jupyter_agents.testing import ScriptedModel, output_item, tool_call
from jupyter_agents.testing.server import (
    FakeOpenAIServer,
    Reply,
    ReplyItem,
    ReplyText,
    ReplyToolCall,
)

from ..recorded import json_bodies

APP = (
    "import os\n\n\ndef main():\n    print('hi')\n    return 0\n\n\n"
    "if __name__ == '__main__':\n    main()\n"
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP)
    (root / "old.txt").write_text("bye\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    os.symlink(tmp_path, root / "escape")
    return root


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root.parent)): p.read_text()
        for p in sorted(root.parent.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


# -- the format ---------------------------------------------------------------------------------


def test_apply_diff_updates_with_several_hunks_and_creates() -> None:
    diff = (
        "@@ def main():\n-    print('hi')\n+    print('hello')\n"
        "@@\n if __name__ == '__main__':\n-    main()\n+    raise SystemExit(main())\n"
    )
    out = apply_diff(APP, diff)
    assert "print('hello')" in out and "raise SystemExit(main())" in out
    assert out.count("\n") == APP.count("\n")
    assert apply_diff("", "+a\n+b\n", mode="create") == "a\nb"  # as the SDK: no newline added
    assert apply_diff("", "+a\n+b\n+\n", mode="create") == "a\nb\n"


def test_context_at_the_end_of_the_file_and_crlf_files() -> None:
    assert apply_diff("a\nb\nb\n", "@@\n b\n-b\n+c\n*** End of File\n") == "a\nb\nc\n"
    assert apply_diff("x\r\ny\r\n", "-y\n+z\n") == "x\r\nz\r\n"


def test_a_hunk_that_does_not_apply_says_which_and_where() -> None:
    with pytest.raises(PatchError, match="hunk 2: its context was not found after line 5"):
        apply_diff(APP, "@@\n-    print('hi')\n+    print('x')\n@@\n-nothing like this\n+y\n")


def test_a_whole_patch_reads_every_operation() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: notes/todo.md\n+first\n"
        "*** Update File: src/app.py\n*** Move to: src/main.py\n"
        "@@\n-    print('hi')\n+    print('ho')\n"
        "*** Delete File: old.txt\n*** End Patch\n"
    )
    ops = parse_patch(patch)
    assert [(o.type, o.path, o.move_to) for o in ops] == [
        ("create_file", "notes/todo.md", None),
        ("update_file", "src/app.py", "src/main.py"),
        ("delete_file", "old.txt", None),
    ]
    for bad, why in (
        ("*** Add File: a\n+x\n*** End Patch", "Begin Patch"),
        ("*** Begin Patch\n+x\n*** End Patch", "'\\+x' is not a valid hunk header"),
        ("*** Begin Patch\n*** Delete File: a\n+x\n*** End Patch", "line 3: '\\+x' is not"),
        ("*** Begin Patch\n*** End Patch", "changes no file"),
        ("*** Begin Patch\n*** Update File: a\n*** End Patch", "hunk for path 'a' is empty"),
    ):
        with pytest.raises(PatchError, match=why):
            parse_patch(bad)


# -- the workspace editor -----------------------------------------------------------------------


def test_every_operation_golden(ws: Path) -> None:
    editor = WorkspaceEditor(ws)
    done = editor.apply(
        [
            PatchOp("create_file", "notes/todo.md", "+one\n+two\n"),
            PatchOp(
                "update_file", "src/app.py", "-    print('hi')\n+    print('ho')\n", "src/main.py"
            ),
            PatchOp("delete_file", "old.txt"),
        ]
    )
    assert done == [  # worded as the SDK's editor words them
        "Created notes/todo.md",
        "Updated src/app.py\nMoved src/app.py to src/main.py",
        "Deleted old.txt",
    ]
    assert (ws / "notes" / "todo.md").read_text() == "one\ntwo"  # V4A: no newline added
    assert not (ws / "src" / "app.py").exists()
    assert (ws / "src" / "main.py").read_text() == APP.replace("print('hi')", "print('ho')")
    assert not (ws / "old.txt").exists()
    assert not [p for p in ws.rglob("*") if ".patch-" in p.name]  # no temporary file left


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/etc/passwd", "outside the workspace"),
        ("../outside.txt", "outside the workspace"),
        ("src/../../outside.txt", "outside the workspace"),
        ("escape/outside.txt", "symbolic link 'escape'"),  # a symlinked folder: never followed
        (".git/config", "inside .git"),
        ("sub/.git/hooks/pre-commit", "inside .git"),
        (".jupyter_agents/index.db", "inside .jupyter_agents"),
        ("", "needs the path"),
        ("src", "is a folder"),
        (".", "names a folder"),
    ],
)
def test_malicious_paths_are_refused_and_nothing_changes(ws: Path, path: str, why: str) -> None:
    before = snapshot(ws)
    with pytest.raises(PatchError, match=why):
        WorkspaceEditor(ws).apply(
            [PatchOp("create_file", "ok.txt", "+fine\n"), PatchOp("create_file", path, "+x\n")]
        )
    assert snapshot(ws) == before  # the good first operation did not happen either


def test_a_failing_hunk_changes_nothing(ws: Path) -> None:
    before = snapshot(ws)
    with pytest.raises(PatchError, match=r"src/app\.py: hunk 1: its context was not found"):
        WorkspaceEditor(ws).apply(
            [PatchOp("delete_file", "old.txt"), PatchOp("update_file", "src/app.py", "-nope\n+x\n")]
        )
    assert snapshot(ws) == before


def test_create_over_an_existing_file_replaces_it_and_a_missing_file_is_refused(
    ws: Path,
) -> None:
    editor = WorkspaceEditor(ws)
    # As Codex and the SDK do; the model is told that a file was there.
    done = editor.apply([PatchOp("create_file", "old.txt", "+x\n+")])
    assert done == ["Created old.txt (it replaced the file that was there)"]
    assert (ws / "old.txt").read_text() == "x\n"
    with pytest.raises(PatchError, match=r"no file 'gone\.txt'"):
        editor.apply([PatchOp("update_file", "gone.txt", "-a\n+b\n")])
    with pytest.raises(PatchError, match=r"no file 'gone\.txt' to delete"):
        editor.apply([PatchOp("delete_file", "gone.txt")])
    with pytest.raises(PatchError, match="has no hunk"):
        editor.apply([PatchOp("update_file", "old.txt", "")])
    with pytest.raises(UserError, match="not a folder"):
        WorkspaceEditor(ws / "nope")


PATHS = st.sampled_from(
    ["a.txt", "src/app.py", "../x.txt", "/tmp/y", "escape/z", ".git/HEAD", "d/../../w", "new/f.md"]
)
OPS = st.lists(
    st.builds(
        PatchOp,
        st.sampled_from(["create_file", "update_file", "delete_file"]),
        PATHS,
        st.sampled_from(["+x\n", "-    print('hi')\n+    print('y')\n", "-zzz\n+q\n", "bad\n"]),
    ),
    min_size=1,
    max_size=4,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_fuzzed_patches_never_write_outside_or_half_apply(ws: Path, ops: list[PatchOp]) -> None:
    outside_before = (ws.parent / "outside.txt").read_text()
    before = snapshot(ws)
    try:
        WorkspaceEditor(ws).apply(ops)
    except PatchError:
        assert snapshot(ws) == before  # refused: nothing changed at all
    else:
        after = snapshot(ws)
        changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
        assert all(k.startswith("ws/") and not k.startswith("ws/.git") for k in changed)
        for k in changed:  # put the workspace back for the next example
            if k in before:
                (ws.parent / k).write_text(before[k])
            else:
                (ws.parent / k).unlink()
    assert (ws.parent / "outside.txt").read_text() == outside_before


# -- the tool in the model loop ----------------------------------------------------------------


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


async def test_the_model_loop_applies_a_patch_and_reports_it(ws: Path) -> None:
    op = {
        "type": "update_file",
        "path": "src/app.py",
        "diff": "-    print('hi')\n+    print('ok')\n",
    }
    model = ScriptedModel([[patch_call(op)], ["Patched."]])
    tool = ApplyPatchTool(WorkspaceEditor(ws), approval_policy="on-request")
    result = await Runner.run(Agent(name="p", model=model, tools=[tool]), "Change the greeting.")
    assert "print('ok')" in (ws / "src" / "app.py").read_text()
    sent = model.requests[1].input[-1]
    assert sent == {
        "type": "apply_patch_call_output",
        "call_id": "p1",
        "status": "completed",
        "output": "Updated src/app.py",
    }
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem) and output.status == "ok"


async def test_a_failing_patch_is_told_to_the_model_as_failed(ws: Path) -> None:
    op = {"type": "update_file", "path": "src/app.py", "diff": "-no such line\n+x\n"}
    model = ScriptedModel([[patch_call(op)], ["Sorry."]])
    tool = ApplyPatchTool(WorkspaceEditor(ws), approval_policy="on-request")
    result = await Runner.run(Agent(name="p", model=model, tools=[tool]), "Change it.")
    sent = model.requests[1].input[-1]
    assert sent["status"] == "failed" and "context was not found" in sent["output"]
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem) and output.status == "error"
    assert (ws / "src" / "app.py").read_text() == APP


async def test_approval_is_asked_and_a_rejection_writes_nothing(ws: Path) -> None:
    op = {"type": "create_file", "path": "new.txt", "diff": "+hello\n"}
    model = ScriptedModel([[patch_call(op)], ["ok"]])
    tool = ApplyPatchTool(WorkspaceEditor(ws), needs_approval=True)
    seen: list[Any] = []

    def reject(request: Any) -> ApprovalDecision:
        seen.append(request)
        return ApprovalDecision.reject("no new files")

    await Runner.run(Agent(name="p", model=model, tools=[tool]), "Add it.", approval_handler=reject)
    assert seen[0].arguments["operations"][0]["path"] == "new.txt"
    assert not (ws / "new.txt").exists()
    assert model.requests[1].input[-1]["status"] == "failed"


async def test_a_custom_editor_gets_the_sdk_operations(ws: Path) -> None:
    calls: list[ApplyPatchOperation] = []

    class Recorder:
        def create_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
            calls.append(operation)
            return ApplyPatchResult("completed", f"made {operation.path}")

        async def update_file(self, operation: ApplyPatchOperation) -> str:
            calls.append(operation)
            return "changed"

        def delete_file(self, operation: ApplyPatchOperation) -> None:
            calls.append(operation)

    op = {"type": "create_file", "path": "a.txt", "diff": "+x\n"}
    model = ScriptedModel([[patch_call(op)], ["ok"]])
    tool = ApplyPatchTool(Recorder(), approval_policy="never")
    await Runner.run(Agent(name="p", model=model, tools=[tool]), "go")
    assert [(c.type, c.path, c.diff) for c in calls] == [("create_file", "a.txt", "+x\n")]
    assert model.requests[1].input[-1]["output"] == "made a.txt"
    with pytest.raises(UserError, match="editor must be"):
        ApplyPatchTool(editor="vim")  # type: ignore[arg-type]


class HalfFailing:
    """An editor that creates files but reports a failure for every update (as the SDK's
    ``ApplyPatchResult(status="failed")``), and records what it was given."""

    def __init__(self, failed: Any) -> None:
        self.failed = failed
        self.ran: list[str] = []

    def create_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        self.ran.append(f"create {operation.path}")
        return ApplyPatchResult("completed", f"made {operation.path}")

    def update_file(self, operation: ApplyPatchOperation) -> Any:
        self.ran.append(f"update {operation.path}")
        return self.failed

    def delete_file(self, operation: ApplyPatchOperation) -> None:
        self.ran.append(f"delete {operation.path}")


@pytest.mark.parametrize(
    ("failed", "told"),
    [
        (ApplyPatchResult("failed", "no such context in b.txt"), "no such context in b.txt"),
        ({"status": "failed", "output": "b.txt is locked"}, "b.txt is locked"),
        (ApplyPatchResult("failed"), "update_file b.txt failed"),
    ],
)
async def test_an_editor_failing_one_operation_of_a_whole_patch_fails_the_call(
    failed: Any, told: str
) -> None:
    """As the SDK runs an editor: every operation runs, and one reported failed makes the
    call failed (the model is told, and the run's item says so)."""
    patch = (
        "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n@@\n-old\n+new\n"
        "*** Delete File: c.txt\n*** End Patch"
    )
    editor = HalfFailing(failed)
    model = ScriptedModel([[tool_call("apply_patch", {"patch": patch}, "p1")], ["Sorry."]])
    tool = ApplyPatchTool(editor, approval_policy="never")
    result = await Runner.run(Agent(name="p", model=model, tools=[tool]), "Change them.")
    assert editor.ran == ["create a.txt", "update b.txt", "delete c.txt"]
    (item,) = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert item.status == "error", "a failed operation was reported as a success"
    sent = model.requests[1].input[-1]
    assert sent["type"] == "function_call_output"
    assert told in sent["output"] and "made a.txt" in sent["output"]


async def test_an_editor_failing_a_responses_operation_fails_the_call() -> None:
    op = {"type": "update_file", "path": "b.txt", "diff": "-old\n+new\n"}
    model = ScriptedModel([[patch_call(op)], ["Sorry."]])
    failed = ApplyPatchResult("failed", "no such context in b.txt")
    tool = ApplyPatchTool(HalfFailing(failed), approval_policy="never")
    result = await Runner.run(Agent(name="p", model=model, tools=[tool]), "Change it.")
    sent = model.requests[1].input[-1]
    assert sent["status"] == "failed" and sent["output"] == "no such context in b.txt"
    (item,) = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert item.status == "error"


@pytest.mark.http
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_over_http_in_both_wire_formats(
    openai_server: FakeOpenAIServer, ws: Path, kind: str
) -> None:
    if kind == "responses":
        call: Any = ReplyItem(
            {
                "type": "apply_patch_call",
                "call_id": "p1",
                "status": "completed",
                "operation": {"type": "create_file", "path": "hello.md", "diff": "+# Hi\n"},
            }
        )
    else:
        patch = (
            "*** Begin Patch\n*** Add File: hello.md\n+# Hi\n"
            "*** Delete File: old.txt\n*** End Patch"
        )
        call = ReplyToolCall("apply_patch", {"patch": patch}, call_id="p1")
    openai_server.enqueue(Reply([call]), Reply([ReplyText("Written.")]))
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    agent = Agent(
        name="p",
        model=cls("gpt-test", openai_client=client),
        tools=[ApplyPatchTool(WorkspaceEditor(ws), approval_policy="on-request")],
    )
    result = await Runner.run(agent, "Write hello.md.")
    assert result.final_output == "Written."
    # A Responses diff is the SDK's V4A (no newline added), a whole patch is Codex's.
    assert (ws / "hello.md").read_text() == ("# Hi" if kind == "responses" else "# Hi\n")
    first, second = json_bodies(openai_server.model_requests)
    if kind == "responses":
        assert first["tools"] == [{"type": "apply_patch"}]
        assert second["input"][-1]["type"] == "apply_patch_call_output"
        assert second["input"][-1]["status"] == "completed"
    else:
        assert first["tools"][0]["function"]["name"] == "apply_patch"
        assert not (ws / "old.txt").exists()  # both operations of the one call
        assert "Created hello.md\\nDeleted old.txt" in json.dumps(second["messages"])


# -- what the docs promise about writes ------------------------------------------------------


def test_a_failed_write_removes_the_folders_it_made(
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
    before = snapshot(ws)
    with pytest.raises(PatchError, match="No space left on device"):
        WorkspaceEditor(ws).apply(
            [
                PatchOp("create_file", "new/deep/a.txt", "+a\n"),
                PatchOp("create_file", "new/deep/b.txt", "+b\n"),
            ]
        )
    assert snapshot(ws) == before and not (ws / "new").exists()
    assert not [p for p in ws.rglob("*") if ".patch-" in p.name]


def test_a_file_changed_after_it_was_read_is_not_overwritten(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open
    state = {"done": False}

    def hooked(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT and not state["done"]:
            state["done"] = True  # someone else writes the file meanwhile
            (ws / "old.txt").write_text("theirs, longer\n")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", hooked)
    with pytest.raises(PatchError, match="changed while the patch was being written"):
        WorkspaceEditor(ws).apply([PatchOp("update_file", "old.txt", "@@\n-bye\n+hi\n")])
    assert (ws / "old.txt").read_text() == "theirs, longer\n"


def test_big_files_are_not_patched_and_a_move_onto_itself_is_an_update(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupyter_agents.runtime.tools.patch import _safe_fs

    monkeypatch.setattr(_safe_fs, "MAX_BYTES", 3)
    with pytest.raises(PatchError, match="is over"):
        WorkspaceEditor(ws).apply([PatchOp("update_file", "old.txt", "@@\n-bye\n+hi\n")])
    monkeypatch.undo()
    done = WorkspaceEditor(ws).apply(
        [PatchOp("update_file", "old.txt", "@@\n-bye\n+hi\n", "./old.txt")]
    )
    assert done == ["Updated old.txt"] and (ws / "old.txt").read_text() == "hi\n"
