"""Applying one file's diff to its text: the SDK's ``apply_diff`` (V4A, what a Responses
``apply_patch_call`` carries) and Codex's update (what a whole patch carries).

They agree on most patches and differ where each project decided differently; both are kept so
that each matches its own project's tests:

* a hunk that only adds lines goes at its place in V4A (after its ``@@`` line or the hunk
  before) but at the end of the file in Codex;
* V4A keeps a missing final newline, Codex adds one;
* one ``@@ LINE`` header that is not found is ignored by V4A (stacked headers must all be
  found) and an error in Codex;
* a V4A header found earlier in the file keeps the search where it is (the SDK's rule).

Both keep a CRLF file's line endings, find context with ``LineIndex`` (linear time; exact,
then ignoring trailing, then surrounding whitespace, then typographic punctuation) and call
``check`` between hunks, so that a cancelled call stops.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from ._line_index import EXACT, STRIP, LineIndex
from ._patch_format import PatchError, codex_chunks

__all__ = ["apply_codex_update", "apply_diff", "codex_new_file"]

Check = Callable[[], None]
_SECTION_ENDS = ("*** End Patch", "*** Update File:", "*** Delete File:", "*** Add File:")
_END_OF_FILE = "*** End of File"


def _shown(lines: Sequence[str], limit: int = 12) -> str:
    shown = "\n".join(f"  {line}" for line in lines[:limit])
    return shown + (f"\n  ... ({len(lines) - limit} more lines)" if len(lines) > limit else "")


def _no_check() -> None:
    return None


# -- the SDK's V4A ---------------------------------------------------------------------------


@dataclass
class _Change:
    at: int  # index into the input lines
    removed: list[str]
    added: list[str]


@dataclass
class _Section:
    context: list[str]  # the lines the hunk expects (kept and removed)
    changes: list[_Change]  # ``at`` relative to the context
    end: int  # index of the diff line after the section
    at_end: bool


def _diff_lines(diff: str) -> list[str]:
    lines = [line.rstrip("\r") for line in re.split(r"\r?\n", diff)]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _read_section(lines: list[str], start: int) -> _Section:
    context: list[str] = []
    changes: list[_Change] = []
    removed: list[str] = []
    added: list[str] = []
    mode = " "
    index = start
    while index < len(lines):
        raw = lines[index]
        if raw.startswith(("@@", *_SECTION_ENDS, _END_OF_FILE)) or raw == "***":
            break
        if raw.startswith("***"):
            raise PatchError(f"line {index + 1} of the diff is not a patch line: {raw[:80]!r}")
        line = raw or " "
        if line[0] not in " +-":
            raise PatchError(
                f"line {index + 1} of the diff starts with {line[0]!r}; every line of a hunk "
                "starts with ' ' (context), '-' (removed) or '+' (added)."
            )
        index += 1
        if line[0] == " " and mode != " " and (removed or added):
            changes.append(_Change(len(context) - len(removed), removed, added))
            removed, added = [], []
        mode = line[0]
        if mode == "-":
            removed.append(line[1:])
            context.append(line[1:])
        elif mode == "+":
            added.append(line[1:])
        else:
            context.append(line[1:])
    if removed or added:
        changes.append(_Change(len(context) - len(removed), removed, added))
    if index < len(lines) and lines[index] == _END_OF_FILE:
        return _Section(context, changes, index + 1, True)
    if index == start:
        shown = lines[index] if index < len(lines) else "the end of the diff"
        raise PatchError(f"line {index + 1} of the diff: a hunk with no lines before {shown!r}.")
    return _Section(context, changes, index, False)


def _read_anchors(lines: list[str], index: int) -> tuple[list[str], int, int]:
    """The ``@@`` headers starting at ``index``: the non-blank ones, how many there were, and
    the index after them."""
    anchors: list[str] = []
    count = 0
    while index < len(lines) and (lines[index] == "@@" or lines[index].startswith("@@ ")):
        anchor = lines[index][3:]
        if anchor.strip():
            anchors.append(anchor)
        count += 1
        index += 1
    return anchors, count, index


def _advance(index: LineIndex, anchor: str, cursor: int, forward: bool) -> int:
    """The cursor after ``anchor`` (-1: not found). An anchor found before the cursor keeps it
    there unless ``forward`` (a stacked header after the first)."""
    for level in (EXACT, STRIP):
        if not forward and 0 <= index.find([anchor], 0, level) < cursor:
            return cursor
        found = index.find([anchor], cursor, level)
        if found >= 0:
            return found + 1
    return -1


def _find_context(index: LineIndex, context: list[str], start: int, at_end: bool) -> int:
    if not at_end:
        return index.seek(context, start)
    # The empty string after a final newline ends the file; it is not a line to match or to
    # add after (an end-of-file hunk goes after the last real line).
    lines = index.lines
    end = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
    for first in (max(0, end - len(context)), min(start, end)):
        found = index.seek(context, first)
        if found >= 0 and found + len(context) <= end:
            return found
    return -1


def _v4a_changes(lines: list[str], diff: list[str], check: Check) -> list[_Change]:
    """Where each change of ``diff`` goes in ``lines``."""
    index = LineIndex(lines)
    changes: list[_Change] = []
    cursor = position = 0
    hunk = 0
    while position < len(diff) and not diff[position].startswith((*_SECTION_ENDS, _END_OF_FILE)):
        check()
        hunk += 1
        anchors, count, position = _read_anchors(diff, position)
        if count == 0 and cursor != 0:
            raise PatchError(
                f"line {position + 1} of the diff: hunk {hunk} does not start with '@@' "
                f"(got {diff[position][:80]!r})."
            )
        for number, anchor in enumerate(anchors):
            moved = _advance(index, anchor, cursor, forward=number > 0)
            if moved < 0 and count > 1:
                raise PatchError(
                    f"Invalid Anchor: hunk {hunk}: its header line '@@ {anchor.strip()}' was not "
                    f"found after "
                    f"line {cursor}; with stacked '@@' headers every one must be in the file."
                )
            cursor = max(moved, cursor) if moved >= 0 else cursor
        section = _read_section(diff, position)
        found = _find_context(index, section.context, cursor, section.at_end)
        if found < 0:
            where = "at the end of the file" if section.at_end else f"after line {cursor}"
            raise PatchError(
                f"hunk {hunk}: its context was not found {where}:\n{_shown(section.context)}"
            )
        changes.extend(_Change(found + c.at, c.removed, c.added) for c in section.changes)
        cursor = found + len(section.context)
        position = section.end
    return changes


def _splice(lines: list[str], changes: list[_Change]) -> list[str]:
    out: list[str] = []
    cursor = 0
    for change in changes:
        if change.at > len(lines) or change.at < cursor:
            raise PatchError(f"two hunks change overlapping lines (near line {change.at + 1}).")
        out.extend(lines[cursor : change.at])
        out.extend(change.added)
        cursor = change.at + len(change.removed)
    out.extend(lines[cursor:])
    return out


def apply_diff(
    input: str,
    diff: str,
    mode: Literal["default", "create"] = "default",
    *,
    check: Check | None = None,
) -> str:
    """``input`` with the V4A ``diff`` applied, as the SDK's ``apply_diff`` does
    (``mode="create"``: the new file's ``+`` lines, with no final newline added). CRLF text
    stays CRLF. ``check`` is called between hunks (it raises to stop).

    Raises:
        PatchError: A line is malformed, a stacked ``@@`` header or a hunk's context is not in
            the text (a ``ValueError``, as the SDK raises).
    """
    newline_source = input if mode != "create" and "\n" in input else diff
    newline = "\r\n" if "\r\n" in newline_source else "\n"
    lines = _diff_lines(diff)
    if mode == "create":
        out = []
        for number, line in enumerate(lines, 1):
            if line.startswith(_SECTION_ENDS):
                break
            if not line.startswith("+"):
                raise PatchError(
                    f"line {number} of a new file's diff does not start with '+': {line[:80]!r}"
                )
            out.append(line[1:])
        return newline.join(out)
    text_lines = input.replace("\r\n", "\n").split("\n")
    changes = _v4a_changes(text_lines, lines, check or _no_check)
    return newline.join(_splice(text_lines, changes))


# -- Codex ---------------------------------------------------------------------------------


def codex_new_file(diff: str) -> str:
    """The contents of a file Codex adds: each ``+`` line, each ending with a newline."""
    return "".join(line[1:] + "\n" for line in diff.split("\n") if line.startswith("+"))


def _codex_seek(index: LineIndex, block: list[str], start: int, at_end: bool) -> int:
    if len(block) > len(index.lines):
        return -1
    if not at_end:
        return index.seek(block, start)
    last = len(index.lines) - len(block)  # Codex tries the end of the file only
    return next((last for level in range(4) if index.at(block, last, level)), -1)


def apply_codex_update(text: str, diff: str, *, check: Check | None = None) -> str:
    """``text`` with a Codex update's hunks applied; the result ends with a newline.

    Raises:
        PatchError: A hunk is malformed, or its ``@@`` line or its lines are not in the text.
    """
    check = check or _no_check
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    chunks, _ = codex_chunks(diff.split("\n"))
    index = LineIndex(lines)
    changes: list[_Change] = []
    cursor = 0
    for number, chunk in enumerate(chunks, 1):
        check()
        for context in chunk.contexts:
            found = index.seek([context], cursor)
            if found < 0:
                raise PatchError(f"hunk {number}: its '@@ {context}' line was not found.")
            cursor = found + 1
        if not chunk.old:  # Codex adds these at the end (before a last blank line)
            end = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
            changes.append(_Change(end, [], chunk.new))
            continue
        old, new = chunk.old, chunk.new
        found = _codex_seek(index, old, cursor, chunk.at_end)
        if found < 0 and old[-1] == "":  # a last empty line stands for the final newline
            old, new = old[:-1], new[:-1] if new and new[-1] == "" else new
            found = _codex_seek(index, old, cursor, chunk.at_end)
        if found < 0:
            raise PatchError(f"hunk {number}: the lines to change were not found:\n{_shown(old)}")
        changes.append(_Change(found, old, new))
        cursor = found + len(old)
    changes.sort(key=lambda c: c.at)
    out = _splice(lines, changes)
    if not out or out[-1] != "":
        out.append("")
    return newline.join(out)
