"""What a model sees of skills before it loads one: a line each, ``- name: description``.

One formatting for every place that lists skills (the ``load_skill`` tool's description, the
shell tool's function form). Each line is flattened: line breaks, control characters and bidi
marks never reach the listing, so a description cannot add a line, forge another skill or a
heading, or hide words. Past a budget of characters, the rest are named without descriptions.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..mcp.untrusted import printable

__all__ = ["DEFAULT_BUDGET", "one_line", "skill_line", "skills_listing"]

DEFAULT_BUDGET = 8_000
"""Characters of a listing's lines with descriptions; further skills are listed by name."""


def one_line(text: str) -> str:
    """``text`` on one line: every run of whitespace (line breaks too) one space, control
    characters and bidi marks replaced."""
    return printable(" ".join(text.split()), keep_newlines=False)


def skill_line(name: str, description: str, where: str | None = None) -> str:
    """``- name (where): description``, flattened (``where`` left out when None)."""
    place = f" ({one_line(where)})" if where else ""
    return f"- {one_line(name)}{place}: {one_line(description)}"


def skills_listing(
    skills: Iterable[tuple[str, str, str | None]], budget: int = DEFAULT_BUDGET
) -> str:
    """A line per ``(name, description, where)`` (``skill_line``), until the lines reach
    ``budget`` characters; then one line naming the rest. Empty without skills."""
    lines: list[str] = []
    rest: list[str] = []
    used = 0
    for name, description, where in skills:
        line = skill_line(name, description, where)
        if rest or used + len(line) > budget:
            rest.append(one_line(name))
            continue
        lines.append(line)
        used += len(line) + 1
    if rest:
        lines.append(
            f"- and {len(rest)} more (load one to read its description): {', '.join(rest)}"
        )
    return "\n".join(lines)
