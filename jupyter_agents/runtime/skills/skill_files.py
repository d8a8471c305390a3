"""What ``load_skill`` reads of a skill: its ``SKILL.md``'s body and the list of its other files,
or one of those files' text. Nothing outside the skill's folder.

A requested path is judged as words first (not absolute, no ``..``, no NUL), then the file is
reached one folder at a time from the skill's base without following a link
(``runtime/nofollow.py``), must be a regular file within a size, and UTF-8 text. Each refusal is
a ``SkillFileRefused`` whose message is the one line the model reads.
"""

from __future__ import annotations

import os
import posixpath
import stat
from pathlib import Path

from ..nofollow import NotRead, TooLarge, open_folder, read_regular
from .discovery import MAX_SKILL_BYTES, Skill
from .front_matter import InvalidSkill, parse_skill

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_LISTED",
    "SkillFileRefused",
    "relative_path",
    "skill_file_list",
    "skill_file_text",
    "skill_text",
]

MAX_FILE_BYTES = 200_000
"""The largest file of a skill ``load_skill`` reads."""

MAX_LISTED = 200
"""Files of a skill listed with its body; the rest are counted."""

_MAX_DEPTH = 6
_SKIPPED = frozenset({"__pycache__", "node_modules"})


class SkillFileRefused(Exception):
    """A file of a skill that is not read; the message is the line the model reads."""


def relative_path(requested: str) -> str:
    """``requested`` as a ``/``-separated path inside a skill's folder, judged as words only.

    Raises:
        SkillFileRefused: It is empty, absolute, or leaves the folder (``..``).
    """
    if not requested.strip() or "\x00" in requested:
        raise SkillFileRefused(
            "Give the path of one of the skill's files, such as 'references/x.md'."
        )
    if requested.startswith(("/", "\\", "~")) or posixpath.isabs(requested):
        raise SkillFileRefused(
            f"{requested!r} is absolute; give a path relative to the skill's folder."
        )
    relative = posixpath.normpath(requested.replace("\\", "/"))
    if relative == "." or relative == ".." or relative.startswith("../"):
        raise SkillFileRefused(f"{requested!r} is outside the skill's folder; it was not read.")
    return relative


def _text(data: bytes, shown: str) -> str:
    if b"\x00" in data:
        raise SkillFileRefused(f"{shown!r} is a binary file; it was not read.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillFileRefused(f"{shown!r} is not UTF-8 text; it was not read.") from None


def skill_file_text(skill: Skill, requested: str, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The text of the file ``requested`` (relative to ``skill``'s folder).

    Raises:
        SkillFileRefused: Outside the folder, a link on the way, not a regular file, larger than
            ``max_bytes``, binary or not UTF-8.
    """
    relative = relative_path(requested)
    base, inside = skill.reached_from
    try:
        data = read_regular(base, "/".join((*inside, relative)), max_bytes)
    except TooLarge:
        raise SkillFileRefused(
            f"{requested!r} is larger than {max_bytes:,} bytes; it was not read."
        ) from None
    except NotRead as e:
        why = str(e)
        if why.startswith("it is gone"):
            why = "there is no such file in the skill"
        raise SkillFileRefused(f"{requested!r} was not read: {why}.") from None
    return _text(data, requested)


def skill_file_list(skill: Skill) -> tuple[list[tuple[str, int | None]], int]:
    """The skill's files but its ``SKILL.md``, each with its size (None: a link, not
    followed), in name order, at most ``MAX_LISTED``; and how many more there are. Dot-files,
    caches and folders deeper than a few levels are left out."""
    base, inside = skill.reached_from
    found: list[tuple[str, int | None]] = []
    more = 0
    folders: list[tuple[str, ...]] = [()]
    while folders:
        parts = folders.pop(0)
        for name, size, is_folder in _entries(base, (*inside, *parts)):
            path = "/".join((*parts, name))
            if is_folder:
                if len(parts) < _MAX_DEPTH:
                    folders.append((*parts, name))
            elif path != "SKILL.md" and len(found) < MAX_LISTED:
                found.append((path, size))
            elif path != "SKILL.md":
                more += 1
    return sorted(found), more


def _entries(base: Path, parts: tuple[str, ...]) -> list[tuple[str, int | None, bool]]:
    """The entries of one folder: name, size (None for a link) and whether it is a folder."""
    try:
        fd = open_folder(base, parts)
    except OSError:
        return []
    entries: list[tuple[str, int | None, bool]] = []
    try:
        with os.scandir(fd) as found:
            for entry in found:
                if entry.name.startswith(".") or entry.name in _SKIPPED:
                    continue
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode):
                    entries.append((entry.name, None, False))
                elif stat.S_ISDIR(info.st_mode):
                    entries.append((entry.name, 0, True))
                elif stat.S_ISREG(info.st_mode):
                    entries.append((entry.name, info.st_size, False))
    except OSError:
        pass
    finally:
        os.close(fd)
    return sorted(entries)


def skill_text(skill: Skill, tool: str = "load_skill") -> str:
    """What the model reads when it loads ``skill``: where it is, its ``SKILL.md``'s body
    (read again now, front matter left out) and its other files.

    Raises:
        SkillFileRefused: Its ``SKILL.md`` can no longer be read, or no longer makes a skill.
    """
    base, inside = skill.reached_from
    try:
        data = read_regular(base, "/".join((*inside, "SKILL.md")), MAX_SKILL_BYTES)
        body = parse_skill(_text(data, "SKILL.md"), skill.name).body
    except (NotRead, InvalidSkill) as e:
        raise SkillFileRefused(f"The skill {skill.name!r} can no longer be read: {e}.") from None
    files, more = skill_file_list(skill)
    lines = [
        f"Skill {skill.name} ({skill.source} skill; its folder is {skill.folder}, and the paths "
        "it names are relative to that folder)",
        "",
        body.strip(),
    ]
    if files:
        lines += ["", f"Its files (read one with {tool}(name={skill.name!r}, path=...)):"]
        lines += [f"- {path}" + (" (a link: not read)" if size is None else f" ({size:,} bytes)")
                  for path, size in files]  # fmt: skip
        if more:
            lines.append(f"- and {more} more")
    return "\n".join(lines)
