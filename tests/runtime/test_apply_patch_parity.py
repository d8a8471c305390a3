"""apply_patch against its peers' own test cases, as data: Codex's fixture scenarios and the unit
tests of ``codex-rs/apply-patch`` (``parser.rs``, ``lib.rs``, ``seek_sequence.rs``) and of
``core/src/safety.rs``; the SDK's ``apply_diff`` tests, its sandbox editor's and its
``ApplyPatchTool``'s. Where we differ on purpose, the case says why (docs/tools.md lists them).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    ApplyPatchOperation,
    ApplyPatchResult,
    ApplyPatchTool,
    ApprovalDecision,
    RunConfig,
    Runner,
    WorkspaceEditor,
    apply_diff,
)
from jupyter_agents.runtime.approvals import rejection_message
from jupyter_agents.runtime.tools.patch._line_index import LineIndex
from jupyter_agents.runtime.tools.patch._patch_apply import codex_new_file
from jupyter_agents.runtime.tools.patch._patch_format import (
    PatchError,
    PatchOp,
    _one_chunk,
    codex_chunks,
    parse_patch,
)
from jupyter_agents.runtime.tools.patch._patch_policy import assess_patch
from jupyter_agents.runtime.tools.patch.apply_patch import APPLY_PATCH
from jupyter_agents.testing import ScriptedModel, output_item

SCENARIOS = Path(__file__).parents[1] / "fixtures" / "apply_patch_scenarios"

DIFFERENCES = {
    "015_failure_after_partial_success_leaves_changes": (
        "all or none: Codex keeps the files written before a later hunk fails; we write "
        "nothing (the tree stays as the input)"
    ),
}

REFUSED = {"005", "006", "007", "008", "009", "012", "013"}
"""The scenarios whose patch Codex refuses (the tree stays as it was)."""


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under ``root``, as Codex's runner compares."""
    if not root.is_dir():
        return {}
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def apply_whole_patch(root: Path, patch: str) -> str | None:
    """Apply a whole patch as our chat-form tool does; the error told to the model, if any."""
    try:
        WorkspaceEditor(root).apply(parse_patch(patch))
    except PatchError as e:
        return str(e)
    return None


# -- Codex: tests/fixtures/scenarios -------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in SCENARIOS.iterdir() if p.is_dir()))
def test_codex_scenario(name: str, tmp_path: Path) -> None:
    case = SCENARIOS / name
    work = tmp_path / "work"
    work.mkdir()
    if (case / "input").is_dir():
        shutil.copytree(case / "input", work, dirs_exist_ok=True)
    before = tree(work)
    error = apply_whole_patch(work, (case / "patch.txt").read_text())
    if name in DIFFERENCES:
        assert error is not None and tree(work) == before, DIFFERENCES[name]
        return
    assert tree(work) == tree(case / "expected")
    assert (error is not None) == (name[:3] in REFUSED), error


def test_every_codex_scenario_is_here() -> None:
    names = [p.name for p in SCENARIOS.iterdir() if p.is_dir()]
    assert len(names) == 23 and set(DIFFERENCES) <= set(names)


# -- Codex: src/parser.rs ------------------------------------------------------------------------


def summary(ops: list[PatchOp]) -> list[tuple[Any, ...]]:
    """Ops as Codex's ``Hunk`` values: (kind, path, contents | move and chunks)."""
    out: list[tuple[Any, ...]] = []
    for op in ops:
        if op.type == "create_file":
            out.append(("add", op.path, codex_new_file(op.diff)))
        elif op.type == "delete_file":
            out.append(("delete", op.path))
        else:
            chunks, _ = codex_chunks(op.diff.split("\n"))
            rows = [(c.contexts, c.old, c.new, c.at_end) for c in chunks]
            out.append(("update", op.path, op.move_to, rows))
    return out


FIRST_LINE = "The first line of the patch must be '*** Begin Patch'"
LAST_LINE = "The last line of the patch must be '*** End Patch'"
UPDATE_FOO = "*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch"
UPDATE_FOO_HUNKS: list[tuple[Any, ...]] = [
    ("update", "file2.py", None, [([], ["import foo"], ["import foo", "bar"], False)])
]

PARSE_CASES: list[tuple[str, str, Any]] = [
    ("bad", "bad", FIRST_LINE),
    ("no end", "*** Begin Patch\nbad", LAST_LINE),
    (
        "padded markers",
        "*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch",
        [("add", "foo", "hi\n")],
    ),
    (
        "empty update",
        "*** Begin Patch\n*** Update File: test.py\n*** End Patch",
        "on line 2: Update file hunk for path 'test.py' is empty",
    ),
    # Codex reads an empty patch and fails when applying it ("No files were modified.").
    ("empty patch", "*** Begin Patch\n*** End Patch", "changes no file"),
    (
        "every kind",
        "*** Begin Patch\n*** Add File: path/add.py\n+abc\n+def\n"
        "*** Delete File: path/delete.py\n*** Update File: path/update.py\n"
        "*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n*** End Patch",
        [
            ("add", "path/add.py", "abc\ndef\n"),
            ("delete", "path/delete.py"),
            (
                "update",
                "path/update.py",
                "path/update2.py",
                [(["def f():"], ["    pass"], ["    return 123"], False)],
            ),
        ],
    ),
    (
        "update then add",
        "*** Begin Patch\n*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n"
        "+content\n*** End Patch",
        [
            ("update", "file.py", None, [([], [], ["line"], False)]),
            ("add", "other.py", "content\n"),
        ],
    ),
    ("first hunk without @@", UPDATE_FOO, UPDATE_FOO_HUNKS),
    # parse_patch_text in lenient mode: a heredoc around the patch (as gpt-4.1 sends it)
    ("heredoc", f"<<EOF\n{UPDATE_FOO}\nEOF\n", UPDATE_FOO_HUNKS),
    ("single-quoted heredoc", f"<<'EOF'\n{UPDATE_FOO}\nEOF\n", UPDATE_FOO_HUNKS),
    ("double-quoted heredoc", f'<<"EOF"\n{UPDATE_FOO}\nEOF\n', UPDATE_FOO_HUNKS),
    ("mismatched heredoc quotes", f"<<\"EOF'\n{UPDATE_FOO}\nEOF\n", FIRST_LINE),
    (
        "heredoc without the end marker",
        "<<EOF\n*** Begin Patch\n*** Update File: file2.py\nEOF\n",
        LAST_LINE,
    ),
    # Beyond Codex: stacked @@ headers (the SDK's form) narrow the search; Codex rejects them.
    (
        "stacked headers",
        "*** Begin Patch\n*** Update File: a.py\n@@ class A\n@@     def f():\n-x\n+y\n"
        "*** End Patch",
        [("update", "a.py", None, [(["class A", "    def f():"], ["x"], ["y"], False)])],
    ),
]


@pytest.mark.parametrize(
    ("patch", "expected"), [c[1:] for c in PARSE_CASES], ids=[c[0] for c in PARSE_CASES]
)
def test_codex_parser(patch: str, expected: Any) -> None:
    if isinstance(expected, str):
        with pytest.raises(PatchError) as told:
            parse_patch(patch)
        assert expected in str(told.value)
    else:
        assert summary(parse_patch(patch)) == expected


def test_codex_parse_one_hunk_names_the_valid_headers() -> None:
    with pytest.raises(PatchError) as told:
        parse_patch("*** Begin Patch\nbad\n*** End Patch")
    assert str(told.value) == (
        "Invalid patch hunk on line 2: 'bad' is not a valid hunk header. Valid hunk headers: "
        "'*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"
    )


CHUNK_CASES: list[tuple[list[str], Any]] = [
    (["bad"], "line 123: Expected update hunk to start with a @@ context marker, got: 'bad'"),
    (["@@"], "line 124: Update hunk does not contain any lines"),
    (["@@", "bad"], "line 124: Unexpected line found in update hunk: 'bad'. Every line should"),
    (["@@", "*** End of File"], "line 124: Update hunk does not contain any lines"),
    (
        ["@@ change_context", "", " context", "-remove", "+add", " context2", "*** End Patch"],
        (
            ["change_context"],
            ["", "context", "remove", "context2"],
            ["", "context", "add", "context2"],
            False,
            6,
        ),
    ),
    (["@@", "+line", "*** End of File"], ([], [], ["line"], True, 3)),
]


@pytest.mark.parametrize(("lines", "expected"), CHUNK_CASES)
def test_codex_update_file_chunk(lines: list[str], expected: Any) -> None:
    if isinstance(expected, str):
        with pytest.raises(PatchError) as told:
            _one_chunk(lines, 123, False)
        assert expected in str(told.value)
        return
    chunk, used = _one_chunk(lines, 123, False)
    assert (chunk.contexts, chunk.old, chunk.new, chunk.at_end, used) == expected


# -- Codex: src/lib.rs ---------------------------------------------------------------------------

# (name, files before, patch body, files after (None: gone) or the error's words)
LIB_CASES: list[tuple[str, dict[str, str], str, Any]] = [
    ("add", {}, "*** Add File: add.txt\n+ab\n+cd", {"add.txt": "ab\ncd\n"}),
    ("delete", {"del.txt": "x"}, "*** Delete File: del.txt", {"del.txt": None}),
    (
        "update",
        {"update.txt": "foo\nbar\n"},
        "*** Update File: update.txt\n@@\n foo\n-bar\n+baz",
        {"update.txt": "foo\nbaz\n"},
    ),
    (
        "move",
        {"src.txt": "line\n"},
        "*** Update File: src.txt\n*** Move to: dst.txt\n@@\n-line\n+line2",
        {"src.txt": None, "dst.txt": "line2\n"},
    ),
    (
        "several chunks",
        {"multi.txt": "foo\nbar\nbaz\nqux\n"},
        "*** Update File: multi.txt\n@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX",
        {"multi.txt": "foo\nBAR\nbaz\nQUX\n"},
    ),
    (
        "interleaved",
        {"interleaved.txt": "a\nb\nc\nd\ne\nf\n"},
        "*** Update File: interleaved.txt\n@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n"
        "*** End of File",
        {"interleaved.txt": "a\nB\nc\nd\nE\nf\ng\n"},
    ),
    (
        "pure addition goes to the end",
        {"panic.txt": "line1\nline2\nline3\n"},
        "*** Update File: panic.txt\n@@\n+after-context\n+second-line\n@@\n line1\n-line2\n"
        "-line3\n+line2-replacement",
        {"panic.txt": "line1\nline2-replacement\nafter-context\nsecond-line\n"},
    ),
    (
        "unicode dashes",
        {"unicode.py": "import asyncio  # local import \u2013 avoids top\u2011level dep\n"},
        "*** Update File: unicode.py\n@@\n-import asyncio  # local import - avoids top-level dep\n"
        "+import asyncio  # HELLO",
        {"unicode.py": "import asyncio  # HELLO\n"},
    ),
    # the contents of unified_diff_from_chunks' cases (we show the patch, not a unified diff)
    (
        "first line",
        {"first.txt": "foo\nbar\nbaz\n"},
        "*** Update File: first.txt\n@@\n-foo\n+FOO\n bar\n",
        {"first.txt": "FOO\nbar\nbaz\n"},
    ),
    (
        "last line",
        {"last.txt": "foo\nbar\nbaz\n"},
        "*** Update File: last.txt\n@@\n foo\n bar\n-baz\n+BAZ\n",
        {"last.txt": "foo\nbar\nBAZ\n"},
    ),
    (
        "insert at the end",
        {"insert.txt": "foo\nbar\nbaz\n"},
        "*** Update File: insert.txt\n@@\n+quux\n*** End of File\n",
        {"insert.txt": "foo\nbar\nbaz\nquux\n"},
    ),
    (
        "a read-only file",
        {"readonly.txt": "before\n"},
        "*** Update File: readonly.txt\n@@\n-before\n+after",
        "read-only",
    ),
    # Codex writes CRLF files back with mixed line endings; we keep CRLF.
    (
        "crlf",
        {"w.txt": "a\r\nb\r\n"},
        "*** Update File: w.txt\n@@\n a\n-b\n+c",
        {"w.txt": "a\r\nc\r\n"},
    ),
]


@pytest.mark.parametrize(
    ("before", "body", "after"), [c[1:] for c in LIB_CASES], ids=[c[0] for c in LIB_CASES]
)
def test_codex_lib(tmp_path: Path, before: dict[str, str], body: str, after: Any) -> None:
    for name, text in before.items():
        (tmp_path / name).write_bytes(text.encode())
    if "readonly" in body:
        (tmp_path / "readonly.txt").chmod(0o444)
    error = apply_whole_patch(tmp_path, f"*** Begin Patch\n{body}\n*** End Patch")
    if isinstance(after, str):
        assert error is not None and after in error
        assert {n: (tmp_path / n).read_bytes().decode() for n in before} == before
        return
    assert error is None
    for name, text in after.items():
        path = tmp_path / name
        assert (path.read_bytes().decode() if path.exists() else None) == text


# -- Codex: src/seek_sequence.rs -----------------------------------------------------------------

SEEK_CASES = [
    (["foo", "bar", "baz"], ["bar", "baz"], 1),
    (["foo   ", "bar\t\t"], ["foo", "bar"], 0),  # trailing whitespace ignored
    (["    foo   ", "   bar\t"], ["foo", "bar"], 0),  # surrounding whitespace ignored
    (["just one line"], ["too", "many", "lines"], -1),
    (["a \u201cquoted\u201d \u2014 line\u00a0"], ['a "quoted" - line'], 0),  # typographic
]


@pytest.mark.parametrize(("lines", "pattern", "found"), SEEK_CASES)
def test_codex_seek_sequence(lines: list[str], pattern: list[str], found: int) -> None:
    assert LineIndex(lines).seek(pattern, 0) == found


# -- Codex: core/src/safety.rs (assess_patch_safety) ---------------------------------------------

SAFETY_CASES = [
    ("inner.txt", "on-request", "workspace-write", "write"),  # test_writable_roots_constraint
    ("../outside.txt", "on-request", "workspace-write", "ask"),
    ("../outside.txt", "never", "workspace-write", "refuse"),  # ...sandbox_approval_false...
    ("inner.txt", "on-request", "danger-full-access", "write"),  # external sandbox auto-approves
    (".jupyter_agents/config.toml", "on-request", "workspace-write", "ask"),  # like .codex/
    ("inner.txt", "untrusted", "workspace-write", "ask"),
]


@pytest.mark.parametrize(("path", "approval", "mode", "decision"), SAFETY_CASES)
def test_codex_assess_patch_safety(
    tmp_path: Path, path: str, approval: str, mode: str, decision: str
) -> None:
    verdict = assess_patch([path], approval, mode, tmp_path)
    assert verdict.decision == decision
    if decision == "refuse":
        assert "outside the workspace" in verdict.reason
    assert assess_patch([], approval, mode, tmp_path).decision == "refuse"  # empty patch


# -- the SDK: tests/test_apply_diff.py and tests/test_apply_diff_helpers.py ----------------------

STACKED_IN = (
    "class BaseClass\n    def search():\n        pass\n\nclass Subclass\n    def search():\n"
    "        pass\n"
)
STACKED_DIFF = (
    "@@ class BaseClass\n@@     def search():\n-        pass\n"
    "+        raise NotImplementedError()\n\n@@ class Subclass\n@@     def search():\n"
    "-        pass\n+        raise NotImplementedError()"
)
TARGET_IN = "class Target\n    def first():\n        pass\n\n    def second():\n        pass\n"
NARROW_IN = (
    "class First\n    def target():\n        return 0\n\nclass Second\n    def helper():\n"
    "        pass\n\n    def target():\n        pass\n"
)
PARTIAL_IN = (
    "class Target\n    def helper():\n        pass\n\n    def desired():\n        return 1\n"
)

# (name, input, diff, mode, the result or the error's words)
APPLY_DIFF_CASES: list[tuple[str, str, str, str, str]] = [
    ("floating hunk adds lines", "", "@@\n+hello\n+world", "default", "hello\nworld\n"),
    ("empty input, CRLF diff", "", "@@\r\n+hello\r\n+world", "default", "hello\r\nworld\r\n"),
    ("create needs '+'", "", "plain line", "create", "does not start with '+'"),
    ("create keeps the final newline", "", "+hello\n+world\n+", "create", "hello\nworld\n"),
    ("create adds none", "", "+hello\n+world\n", "create", "hello\nworld"),
    (
        "contextual replacement",
        "line1\nline2\nline3\n",
        "@@ line1\n-line2\n+updated\n line3",
        "default",
        "line1\nupdated\nline3\n",
    ),
    (
        "stacked anchors (the tool description's example)",
        STACKED_IN,
        STACKED_DIFF,
        "default",
        STACKED_IN.replace("        pass", "        raise NotImplementedError()"),
    ),
    (
        "a parent anchor reused across stacked hunks",
        TARGET_IN,
        "@@ class Target\n@@     def first():\n-        pass\n+        return 1\n"
        "@@ class Target\n@@     def second():\n-        pass\n+        return 2",
        "default",
        TARGET_IN.replace("pass", "return 1", 1).replace("pass", "return 2"),
    ),
    (
        "stacked anchors narrow to the named block",
        NARROW_IN,
        "@@ class Second\n@@     def target():\n-        pass\n+        return 1",
        "default",
        NARROW_IN[: NARROW_IN.rindex("pass")] + "return 1\n",
    ),
    ("one unmatched anchor is advisory", "a\nb\n", "@@ nope\n-b\n+B", "default", "a\nB\n"),
    (
        "partially matched stacked anchors",
        PARTIAL_IN,
        "@@ class Target\n@@     def missing():\n-        pass\n+        return 99",
        "default",
        "'@@ def missing():' was not found",
    ),
    (
        "the first stacked anchor missing",
        "class Wrong\n    def desired():\n        pass\n",
        "@@ class Target\n@@     def desired():\n-        pass\n+        return 99",
        "default",
        "'@@ class Target' was not found",
    ),
    (
        "a missing anchor and a bare marker",
        "a\nb\n",
        "@@ missing\n@@\n-b\n+B",
        "default",
        "'@@ missing' was not found",
    ),
    (
        "a trailing bare anchor",
        "class Only\n    def run():\n        pass\n",
        "@@ class Only\n@@\n-        pass\n+        return 1",
        "default",
        "class Only\n    def run():\n        return 1\n",
    ),
    (
        "context mismatch",
        "one\ntwo\n",
        "@@ -1,2 +1,2 @@\n x\n-two\n+2",
        "default",
        "context was not found",
    ),
    (
        "CRLF input, LF diff",
        "line1\r\nline2\r\nline3\r\n",
        "@@ line1\n-line2\n+updated\n line3",
        "default",
        "line1\r\nupdated\r\nline3\r\n",
    ),
    (
        "LF input, CRLF diff",
        "line1\nline2\nline3\n",
        "@@ line1\r\n-line2\r\n+updated\r\n line3",
        "default",
        "line1\nupdated\nline3\n",
    ),
    (
        "CRLF both",
        "line1\r\nline2\r\nline3\r\n",
        "@@ line1\r\n-line2\r\n+updated\r\n line3",
        "default",
        "line1\r\nupdated\r\nline3\r\n",
    ),
    ("create keeps CRLF", "", "+hello\r\n+world\r\n+", "create", "hello\r\nworld\r\n"),
    # the helpers' cases, through apply_diff
    ("an end-of-file section", "a\nb\n", "@@\n-b\n+c\n*** End of File", "default", "a\nc\n"),
    ("an invalid marker", "a\n", "@@\n*** Bad Marker", "default", "not a patch line"),
    ("an empty section", "a\n", "@@", "default", "a hunk with no lines"),
    (
        "end-of-file context missing",
        "one\n",
        "@@\n-missing\n+x\n*** End of File",
        "default",
        "not found at the end of the file",
    ),
    ("a stripped match", " line \n", "@@\n-line\n+x", "default", "x\n"),
]


@pytest.mark.parametrize(
    ("text", "diff", "mode", "expected"),
    [c[1:] for c in APPLY_DIFF_CASES],
    ids=[c[0] for c in APPLY_DIFF_CASES],
)
def test_sdk_apply_diff(text: str, diff: str, mode: Any, expected: str) -> None:
    is_error = any(w in expected for w in ("not found", "not start", "no lines", "not a patch"))
    if not is_error:
        assert apply_diff(text, diff, mode) == expected
        return
    with pytest.raises(ValueError) as told:  # PatchError is a ValueError, as the SDK raises
        apply_diff(text, diff, mode)
    assert expected in str(told.value)


# -- the SDK: tests/sandbox/test_apply_patch.py (its WorkspaceEditor) ----------------------------

# (name, files before, operation, files after (None: gone) or the error's words)
EDITOR_CASES: list[tuple[str, dict[str, str], PatchOp, Any]] = [
    (
        "invalid context",
        {"bad.txt": "alpha\nbeta\n"},
        PatchOp("update_file", "bad.txt", "@@\n missing\n-beta\n+gamma\n"),
        "context was not found",
    ),
    (
        "anchor jump",
        {"anchor.txt": "a\nb\nmarker\nc\nd\n"},
        PatchOp("update_file", "anchor.txt", "@@ marker\n c\n-d\n+e\n"),
        {"anchor.txt": "a\nb\nmarker\nc\ne\n"},
    ),
    (
        "stacked anchor jump",
        {"stacked.py": NARROW_IN},
        PatchOp(
            "update_file",
            "stacked.py",
            "@@ class Second\n@@     def target():\n-        pass\n+        return 1\n",
        ),
        {"stacked.py": NARROW_IN[: NARROW_IN.rindex("pass")] + "return 1\n"},
    ),
    (
        "partially matched stacked anchors",
        {"stacked.py": PARTIAL_IN},
        PatchOp(
            "update_file",
            "stacked.py",
            "@@ class Target\n@@     def missing():\n-        pass\n+        return 99\n",
        ),
        "was not found",
    ),
    (
        "end-of-file context",
        {"tail.txt": "one\ntwo\nthree\n"},
        PatchOp("update_file", "tail.txt", "@@\n two\n-three\n+four\n*** End of File\n"),
        {"tail.txt": "one\ntwo\nfour\n"},
    ),
    ("update without a diff", {"file.txt": "x\n"}, PatchOp("update_file", "file.txt"), "no hunk"),
    (
        "update of a missing file",
        {},
        PatchOp("update_file", "missing.txt", "@@\n-old\n+new\n"),
        "no file 'missing.txt' to update",
    ),
    ("delete of a missing file", {}, PatchOp("delete_file", "nope.txt"), "no file 'nope.txt'"),
    ("escaping the root", {}, PatchOp("create_file", "../escape.txt", "+nope"), "outside"),
    ("an empty path", {}, PatchOp("create_file", "", "+nope"), "needs the path"),
    (
        "backslashes in the path",
        {},
        PatchOp("create_file", "nested\\new.txt", "+hello"),
        {"nested/new.txt": "hello"},
    ),
    (
        "backslashes in move_to",
        {"source.txt": "alpha\n"},
        PatchOp("update_file", "source.txt", "@@\n-alpha\n+beta\n", "nested\\moved.txt"),
        {"nested/moved.txt": "beta\n", "source.txt": None},
    ),
    (
        "an absolute path inside",
        {},
        PatchOp("create_file", "ROOT/abs-ok.txt", "+hello"),
        {"abs-ok.txt": "hello"},
    ),
    (
        "an absolute path outside",
        {},
        PatchOp("create_file", "/tmp/outside.txt", "+nope"),
        "outside the workspace",
    ),
    ("create needs '+' lines", {}, PatchOp("create_file", "new.txt", "oops"), "start with '+'"),
    (
        "an invalid line prefix",
        {"oops.txt": "alpha\nbeta\n"},
        PatchOp("update_file", "oops.txt", "oops"),
        "starts with 'o'",
    ),
    (
        "not UTF-8",
        {"binary.txt": "\udcff\udcfe\udcfd"},
        PatchOp("update_file", "binary.txt", "@@\n+\n"),
        "not UTF-8",
    ),
]


@pytest.mark.parametrize(
    ("before", "op", "after"), [c[1:] for c in EDITOR_CASES], ids=[c[0] for c in EDITOR_CASES]
)
def test_sdk_editor(tmp_path: Path, before: dict[str, str], op: PatchOp, after: Any) -> None:
    for name, text in before.items():
        (tmp_path / name).write_bytes(text.encode("utf-8", "surrogateescape"))
    if op.path.startswith("ROOT/"):
        op = PatchOp(op.type, str(tmp_path / op.path[5:]), op.diff)
    if isinstance(after, str):
        snapshot = tree(tmp_path)
        with pytest.raises(PatchError) as told:
            WorkspaceEditor(tmp_path).apply([op])
        assert after in str(told.value) and tree(tmp_path) == snapshot
        return
    WorkspaceEditor(tmp_path).apply([op])
    for name, text in after.items():
        path = tmp_path / name
        assert (path.read_text() if path.exists() else None) == text


# -- the SDK: tests/test_apply_patch_tool.py (ApplyPatchTool with your editor) ------------------


class RecordingEditor:
    def __init__(self) -> None:
        self.operations: list[ApplyPatchOperation] = []

    def create_file(self, operation: ApplyPatchOperation) -> Any:
        self.operations.append(operation)
        return ApplyPatchResult(output=f"Created {operation.path}")

    def update_file(self, operation: ApplyPatchOperation) -> Any:
        self.operations.append(operation)
        return ApplyPatchResult(status="completed", output=f"Updated {operation.path}")

    def delete_file(self, operation: ApplyPatchOperation) -> Any:
        self.operations.append(operation)
        return ApplyPatchResult(output=f"Deleted {operation.path}")


UPDATE = {"type": "update_file", "path": "tasks.md", "diff": "-a\n+b\n"}


def patch_call(op: dict[str, Any], call_id: str = "call_apply") -> Any:
    return output_item(
        {
            "type": "apply_patch_call",
            "id": "ap_1",
            "call_id": call_id,
            "status": "completed",
            "operation": op,
        }
    )


async def run_tool(tool: ApplyPatchTool, **options: Any) -> tuple[Any, ScriptedModel]:
    model = ScriptedModel([[patch_call(UPDATE)], ["done"]])
    result = await Runner.run(Agent(name="patcher", model=model, tools=[tool]), "go", **options)
    return result, model


async def test_sdk_tool_success() -> None:
    editor = RecordingEditor()
    result, model = await run_tool(ApplyPatchTool(editor, approval_policy="on-request"))
    sent = model.requests[1].input[-1]
    assert sent == {
        "type": "apply_patch_call_output",
        "call_id": "call_apply",
        "status": "completed",
        "output": "Updated tasks.md",
    }
    assert editor.operations[0].type == "update_file"
    assert editor.operations[0].ctx_wrapper is not None
    assert editor.operations[0].ctx_wrapper.context is result.context_wrapper.context


async def test_sdk_tool_an_editor_that_raises_is_a_failed_output_not_the_end() -> None:
    class Exploding(RecordingEditor):
        def update_file(self, operation: ApplyPatchOperation) -> Any:
            raise RuntimeError("boom")

    result, model = await run_tool(ApplyPatchTool(Exploding(), approval_policy="on-request"))
    sent = model.requests[1].input[-1]
    assert sent["status"] == "failed" and "boom" in sent["output"]
    assert result.final_output == "done"  # the run went on


async def test_sdk_tool_needs_approval_interrupts() -> None:
    tool = ApplyPatchTool(RecordingEditor(), needs_approval=lambda *_: True)
    result, _ = await run_tool(tool)
    assert [i.tool_name for i in result.interruptions] == ["apply_patch"]


@pytest.mark.parametrize("formatter", [False, True])
async def test_sdk_tool_a_rejection_is_a_failed_output(formatter: bool) -> None:
    editor = RecordingEditor()
    tool = ApplyPatchTool(editor, needs_approval=True)
    config = RunConfig(
        tool_error_formatter=(lambda a: f"{a.tool_name} denied ({a.call_id})")
        if formatter
        else None
    )
    _, model = await run_tool(
        tool, run_config=config, approval_handler=lambda _: ApprovalDecision.reject()
    )
    sent = model.requests[1].input[-1]
    # The SDK's default words are "Tool execution was not approved."; ours name the tool.
    expected = (
        "apply_patch denied (call_apply)" if formatter else rejection_message("apply_patch", None)
    )
    assert sent["status"] == "failed" and sent["output"] == expected
    assert editor.operations == []


@pytest.mark.parametrize("approve", [True, False])
async def test_sdk_tool_on_approval_decides(approve: bool) -> None:
    editor = RecordingEditor()
    tool = ApplyPatchTool(
        editor,
        needs_approval=True,
        on_approval=lambda _ctx, _item: {"approve": approve, "reason": "Not allowed"},
    )
    _, model = await run_tool(tool)
    sent = model.requests[1].input[-1]
    if approve:
        assert sent["output"] == "Updated tasks.md"
    else:  # the SDK sends the reason alone; ours says the call was rejected, then the reason
        assert sent["status"] == "failed" and sent["output"].endswith("Reason: Not allowed")
    assert len(editor.operations) == (1 if approve else 0)


async def test_sdk_tool_a_failed_operation_fails_the_call_and_the_rest_still_run() -> None:
    class Mixed(RecordingEditor):
        def update_file(self, operation: ApplyPatchOperation) -> Any:
            self.operations.append(operation)
            return ApplyPatchResult(status="failed", output=f"Failed {operation.path}")

        def create_file(self, operation: ApplyPatchOperation) -> Any:
            self.operations.append(operation)
            return {"status": "completed", "output": f"Created {operation.path}"}  # a mapping

        def delete_file(self, operation: ApplyPatchOperation) -> Any:
            return f"Deleted {operation.path}"  # plain text

    editor = Mixed()
    tool = ApplyPatchTool(editor, approval_policy="never")
    operations = [
        {"type": "update_file", "path": "a.md", "diff": "-x\n+y\n"},
        {"type": "create_file", "path": "b.md", "diff": "+hi\n"},
        {"type": "delete_file", "path": "c.md", "diff": ""},
    ]
    ctx: Any = type("Ctx", (), {"run_config": None, "tool_call_id": "c1", "context": None})()
    with pytest.raises(PatchError) as failed:  # the call fails; the model is told the outputs
        await APPLY_PATCH.invoke(tool, ctx, json.dumps({"operations": operations}))
    told = tool.failure_error_function(ctx, failed.value)
    item = APPLY_PATCH.output_item(type("C", (), {"call_id": "c1"})(), told)
    assert item["status"] == "failed"
    assert item["output"] == "Failed a.md\nCreated b.md\nDeleted c.md"
    assert [o.path for o in editor.operations] == ["a.md", "b.md"]
