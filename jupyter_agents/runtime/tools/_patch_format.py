"""The patch format of the ``apply_patch`` tool (V4A): reading it and applying it to text.

A whole patch (what Chat Completions models send) looks like::

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
file alone (``+`` lines for a new file; ``@@`` hunks of context `` ``, removed ``-`` and added
``+`` lines for an update).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["PatchError", "PatchOp", "apply_diff", "parse_patch"]

OpType = Literal["create_file", "update_file", "delete_file"]


class PatchError(ValueError):
    """A patch that cannot be applied; the message says where and why (for the model)."""


@dataclass(frozen=True)
class PatchOp:
    """One file operation of a patch."""

    type: OpType
    path: str
    diff: str = ""
    move_to: str | None = None


@dataclass
class _Hunk:
    anchor: str
    old: list[str]
    new: list[str]
    at_end: bool


def _lines(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _hunks(diff: str, where: str) -> list[_Hunk]:
    hunks: list[_Hunk] = []
    current: _Hunk | None = None
    for number, line in enumerate(_lines(diff), 1):
        if line.startswith("@@"):
            current = _Hunk(line[2:].strip(), [], [], False)
            hunks.append(current)
            continue
        if line == "*** End of File":
            if current is None:
                raise PatchError(f"{where}: '*** End of File' before any change (line {number}).")
            current.at_end = True
            continue
        if current is None:  # changes without an @@ line: one hunk
            current = _Hunk("", [], [], False)
            hunks.append(current)
        marker, body = line[:1], line[1:]
        if marker == " " or line == "":
            current.old.append(body)
            current.new.append(body)
        elif marker == "-":
            current.old.append(body)
        elif marker == "+":
            current.new.append(body)
        else:
            raise PatchError(
                f"{where}: line {number} of the diff starts with {marker!r}; every line of a "
                "hunk starts with ' ' (context), '-' (removed) or '+' (added)."
            )
    return [h for h in hunks if h.old or h.new]


def _find(lines: list[str], block: list[str], start: int, at_end: bool) -> int:
    """Where ``block`` occurs in ``lines`` at or after ``start`` (-1: nowhere); exact first,
    then ignoring trailing whitespace, then ignoring all surrounding whitespace."""
    if not block:
        return len(lines) if at_end else start
    for norm in (lambda s: s, str.rstrip, str.strip):
        want = [norm(b) for b in block]
        candidates = (
            [len(lines) - len(block)] if at_end else range(start, len(lines) - len(block) + 1)
        )
        for i in candidates:
            if i >= start and [norm(x) for x in lines[i : i + len(block)]] == want:
                return i
    return -1


def apply_diff(text: str, diff: str, mode: Literal["default", "create"] = "default") -> str:
    """``text`` with ``diff`` applied (``mode="create"``: the new file's ``+`` lines).

    Raises:
        PatchError: A line is malformed, or a hunk's context is not in the text.
    """
    newline = "\r\n" if "\r\n" in (text if mode == "default" else diff) else "\n"
    if mode == "create":
        out = []
        for number, line in enumerate(_lines(diff), 1):
            if not line.startswith("+"):
                raise PatchError(
                    f"line {number} of a new file's diff does not start with '+': {line[:60]!r}"
                )
            out.append(line[1:])
        return newline.join(out) + (newline if out else "")
    lines = _lines(text)
    cursor = 0
    result: list[str] = []
    for number, hunk in enumerate(_hunks(diff, "the diff"), 1):
        start = cursor
        if hunk.anchor:
            anchored = _find(lines, [hunk.anchor], cursor, False)
            start = anchored + 1 if anchored >= 0 else cursor
        at = _find(lines, hunk.old, start, hunk.at_end)
        if at < 0:
            at = _find(lines, hunk.old, cursor, hunk.at_end)
        if at < 0:
            near = (start if hunk.anchor else cursor) + 1
            raise PatchError(f"hunk {number}: context not found near line {near}")
        result.extend(lines[cursor:at])
        result.extend(hunk.new)
        cursor = at + len(hunk.old)
    result.extend(lines[cursor:])
    ends_with_newline = text.endswith("\n") or not text
    return newline.join(result) + (newline if result and ends_with_newline else "")


_HEADERS = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$")


def parse_patch(patch: str) -> list[PatchOp]:
    """The operations of a whole patch (``*** Begin Patch`` ... ``*** End Patch``).

    Raises:
        PatchError: The patch is malformed (the message names the line).
    """
    lines = _lines(patch.strip())
    if not lines or lines[0].strip() != "*** Begin Patch":
        raise PatchError("A patch starts with '*** Begin Patch'.")
    if lines[-1].strip() != "*** End Patch":
        raise PatchError("A patch ends with '*** End Patch'.")
    ops: list[PatchOp] = []
    kind: str | None = None
    path = move_to = ""
    body: list[str] = []

    def close() -> None:
        if kind is None:
            return
        op_type: OpType = {"Add File": "create_file", "Update File": "update_file"}.get(
            kind, "delete_file"
        )  # type: ignore[assignment]
        if op_type == "delete_file" and body:
            raise PatchError(f"'*** Delete File: {path}' takes no lines after it.")
        ops.append(PatchOp(op_type, path, "\n".join(body), move_to or None))

    for number, line in enumerate(lines[1:-1], 2):
        header = _HEADERS.match(line)
        if header and header.group(1) == "Move to":
            if kind != "Update File" or body:
                raise PatchError(f"line {number}: '*** Move to:' belongs right after an update.")
            move_to = header.group(2).strip()
        elif header:
            close()
            kind, path, move_to, body = header.group(1), header.group(2).strip(), "", []
        elif kind is None:
            raise PatchError(
                f"line {number}: expected '*** Add File:', '*** Update File:' or "
                "'*** Delete File:'."
            )
        else:
            body.append(line)
    close()
    if not ops:
        raise PatchError("The patch changes no file.")
    return ops
