"""The patch format of the ``apply_patch`` tool: reading a whole patch into file operations.

A whole patch (what Chat Completions models send, in Codex's grammar) looks like::

    *** Begin Patch
    *** Add File: notes/todo.md
    +first line
    *** Update File: src/app.py
    *** Move to: src/main.py
    @@ def main():
    -    print("hi")
    +    print("hello")
    *** Delete File: old.txt
    *** End Patch

The Responses API sends one operation per call instead: a type, a path and the diff of that
file alone, in the SDK's V4A form (``+`` lines for a new file; ``@@`` hunks of context `` ``,
removed ``-`` and added ``+`` lines for an update). The two differ in small ways (where a hunk
that only adds lines goes, whether a file gains a final newline); an operation read from a
whole patch is marked ``style="codex"`` and applied as Codex applies it (see ``_patch_apply``).
Reading is as lenient as Codex's: padded markers and headers, blank lines between hunks, a
patch wrapped in a ``<<EOF`` heredoc.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ...errors import PatchError

__all__ = ["CodexChunk", "PatchError", "PatchOp", "codex_chunks", "parse_patch"]

OpType = Literal["create_file", "update_file", "delete_file"]
Style = Literal["v4a", "codex"]

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE = "*** Add File: ", "*** Delete File: ", "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"
_HEREDOCS = ("<<EOF", "<<'EOF'", '<<"EOF"')


@dataclass(frozen=True)
class PatchOp:
    """One file operation of a patch."""

    type: OpType
    path: str
    diff: str = ""
    move_to: str | None = None
    style: Style = "v4a"
    """How ``diff`` reads: the SDK's V4A (a Responses operation) or Codex's (a whole patch)."""


@dataclass
class CodexChunk:
    """One ``@@`` hunk of a Codex update: where it is, the lines it replaces and their
    replacement."""

    contexts: list[str] = field(default_factory=list)
    """The ``@@ LINE`` headers, each found after the one before (Codex takes one; stacked
    headers, as the SDK reads them, narrow the search)."""
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    at_end: bool = False
    """``*** End of File``: ``old`` ends the file."""


def _hunk_error(line_number: int, message: str) -> PatchError:
    return PatchError(f"Invalid patch hunk on line {line_number}: {message}")


def _boundaries(lines: list[str]) -> str | None:
    """What is wrong with the first and last lines (None: they are the patch markers)."""
    if not lines or lines[0].strip() != BEGIN:
        return f"Invalid patch: The first line of the patch must be '{BEGIN}'"
    if lines[-1].strip() != END:
        return f"Invalid patch: The last line of the patch must be '{END}'"
    return None


def _patch_lines(patch: str) -> list[str]:
    """The lines between the markers' lines included; a heredoc around them is dropped."""
    text = patch.strip()
    lines = [line.removesuffix("\r") for line in text.split("\n")] if text else []
    problem = _boundaries(lines)
    if problem is None:
        return lines
    if len(lines) >= 4 and lines[0] in _HEREDOCS and lines[-1].endswith("EOF"):
        inner = lines[1:-1]
        inner_problem = _boundaries(inner)
        if inner_problem is None:
            return inner
        problem = inner_problem
    raise PatchError(problem)


def _one_chunk(lines: list[str], number: int, first: bool) -> tuple[CodexChunk, int]:
    """The hunk at the start of ``lines`` (line ``number`` of the patch) and its line count."""
    chunk = CodexChunk()
    start = 0
    while start < len(lines) and (lines[start] == "@@" or lines[start].startswith("@@ ")):
        if lines[start] != "@@":
            chunk.contexts.append(lines[start][3:])
        start += 1
    if start == 0 and not first:
        raise _hunk_error(
            number, f"Expected update hunk to start with a @@ context marker, got: '{lines[0]}'"
        )
    if start >= len(lines):
        raise _hunk_error(number + start, "Update hunk does not contain any lines")
    parsed = 0
    for line in lines[start:]:
        if line == END_OF_FILE:
            if parsed == 0:
                raise _hunk_error(number + start, "Update hunk does not contain any lines")
            chunk.at_end = True
            parsed += 1
            break
        marker, body = line[:1], line[1:]
        if marker in ("", " "):
            chunk.old.append(body)
            chunk.new.append(body)
        elif marker == "+":
            chunk.new.append(body)
        elif marker == "-":
            chunk.old.append(body)
        elif parsed == 0:
            raise _hunk_error(
                number + start,
                f"Unexpected line found in update hunk: '{line}'. Every line should start "
                "with ' ' (context line), '+' (added line), or '-' (removed line)",
            )
        else:
            break  # the start of the next hunk
        parsed += 1
    return chunk, start + parsed


def codex_chunks(lines: list[str], number: int = 1) -> tuple[list[CodexChunk], int]:
    """The hunks of a Codex update's body (its first line is line ``number`` of the patch),
    and how many lines they take: they end at the next ``***`` line.

    Raises:
        PatchError: A hunk is malformed (the message names its line).
    """
    chunks: list[CodexChunk] = []
    used = 0
    while used < len(lines):
        line = lines[used]
        if not line.strip():  # blank lines between hunks
            used += 1
            continue
        if line.startswith("***"):
            break
        chunk, count = _one_chunk(lines[used:], number + used, not chunks)
        chunks.append(chunk)
        used += count
    return chunks, used


def _one_op(lines: list[str], number: int) -> tuple[PatchOp, int]:
    """The file operation at the start of ``lines`` and how many lines it takes."""
    header = lines[0].strip()
    if header.startswith(ADD):
        body = []
        for line in lines[1:]:
            if not line.startswith("+"):
                break
            body.append(line)
        return PatchOp("create_file", header[len(ADD) :], "\n".join(body), style="codex"), 1 + len(
            body
        )
    if header.startswith(DELETE):
        return PatchOp("delete_file", header[len(DELETE) :], style="codex"), 1
    if header.startswith(UPDATE):
        path = header[len(UPDATE) :]
        used = 1
        move_to = None
        if len(lines) > 1 and lines[1].startswith(MOVE):
            move_to = lines[1][len(MOVE) :]
            used = 2
        chunks, count = codex_chunks(lines[used:], number + used)
        if not chunks:
            raise _hunk_error(number, f"Update file hunk for path '{path}' is empty")
        diff = "\n".join(lines[used : used + count])
        return PatchOp("update_file", path, diff, move_to, "codex"), used + count
    raise _hunk_error(
        number,
        f"'{header}' is not a valid hunk header. Valid hunk headers: '{ADD}{{path}}', "
        f"'{DELETE}{{path}}', '{UPDATE}{{path}}'",
    )


def parse_patch(patch: str) -> list[PatchOp]:
    """The operations of a whole patch (``*** Begin Patch`` ... ``*** End Patch``).

    Raises:
        PatchError: The patch is malformed (the message names the line), or changes no file.
    """
    lines = _patch_lines(patch)
    ops: list[PatchOp] = []
    index = 1
    while index < len(lines) - 1:
        op, used = _one_op(lines[index : len(lines) - 1], index + 1)
        ops.append(op)
        index += used
    if not ops:
        raise PatchError("The patch changes no file: give at least one Add, Update or Delete.")
    return ops
