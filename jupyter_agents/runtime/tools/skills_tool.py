"""``load_skill``: the model reads a skill when it decides to use it.

The tool's description lists each skill on one line (name and description): that is all the
model sees of skills up front, and it sees it exactly where it can act on it (a mode or filter
that drops the tool drops the listing too; the agent's own instructions stay as written). A call
with a ``name`` answers with the skill's ``SKILL.md`` body and the list of its other files; with
a ``path`` too, that file's text. Nothing outside the skill's folder is read
(``runtime/skills/skill_files.py``); every refusal is one line to the model.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterable
from typing import Any

from ..context import ToolContext
from ..errors import UserError
from ..skills import Skill, Skills
from ..skills.skill_files import MAX_FILE_BYTES, SkillFileRefused, skill_file_text, skill_text
from .function.function_tool import FunctionTool

__all__ = ["skills_tool"]

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "The skill's name, as listed."},
        "path": {
            "type": ["string", "null"],
            "description": (
                "null for the skill's instructions and its list of files; else one of those "
                "files, relative to the skill's folder (such as 'references/formats.md')."
            ),
        },
    },
    "required": ["name", "path"],
    "additionalProperties": False,
}


def _description(skills: Skills, name: str) -> str:
    intro = (
        "Load a skill: instructions for a kind of task, with the scripts and references that "
        "go with it, from the user's project or their own configuration. When a task fits a "
        "skill below, call this with its name before you start, and follow what it says; it "
        "lists the skill's files, which you read by calling again with a path."
    )
    if not len(skills):
        return f"{intro}\nNo skills are installed."
    return f"{intro}\nSkills:\n{skills.listing()}"


def _answer(skills: Skills, arguments: str, max_bytes: int, name: str) -> str:
    """What the model reads for a call with ``arguments`` (a refusal is one line)."""
    try:
        data = json.loads(arguments or "{}")
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return f"Call {name} with the name of a skill: one of {', '.join(skills.names) or 'none'}."
    skill = skills.get(data["name"])
    if skill is None:
        known = ", ".join(skills.names) or "none are installed"
        return f"There is no skill named {data['name']!r}; the skills are: {known}."
    path = data.get("path")
    try:
        if path is None or path == "":
            return skill_text(skill, name)
        return skill_file_text(skill, str(path), max_bytes)
    except SkillFileRefused as refused:
        return str(refused)
    except OSError as e:
        return f"{path or 'SKILL.md'!r} could not be read: {e.strerror or e}."


def skills_tool(
    skills: Skills | Iterable[Skill] | None = None,
    *,
    start: str | os.PathLike[str] | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    name: str = "load_skill",
    needs_approval: Any = False,
) -> FunctionTool:
    """A tool that lets the model read skills (``load_skill(name, path=None)``).

    Its description lists each skill's name and description; a call reads the skill's
    ``SKILL.md`` body and list of files, or one file. It only reads (``read_only``: offered in
    ``ask`` and ``plan`` modes too).

    Args:
        skills: The skills (default: ``Skills.discover(start)``, the project's and yours).
        start: Where discovery starts when ``skills`` is None (default: the current folder).
        max_bytes: The largest file read.
        name: The tool's name.
        needs_approval: As for any tool: a bool, or ``(run_context, arguments, call_id) -> bool``.

    Raises:
        UserError: ``max_bytes`` is not a positive int.
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise UserError(f"skills_tool: max_bytes must be a positive int, got {max_bytes!r}.")
    if skills is None:
        skills = Skills.discover(start)
    elif not isinstance(skills, Skills):
        skills = Skills(tuple(skills))
    found = skills

    async def invoke(_ctx: ToolContext[Any], arguments: str) -> str:
        return await asyncio.to_thread(_answer, found, arguments, max_bytes, name)

    return FunctionTool(
        name=name,
        description=_description(found, name),
        params_json_schema=_SCHEMA,
        on_invoke_tool=invoke,
        needs_approval=needs_approval,
        read_only=True,
    )
