"""Skills: folders of instructions, scripts and references for a kind of task, in the Agent
Skills format that Codex, Claude Code and the OpenAI Agents SDK read.

A skill is a folder holding a ``SKILL.md``: YAML front matter with ``name`` (lowercase letters,
digits and hyphens, at most 64 characters, the folder's name) and ``description`` (at most 1,024
characters: what it does and when to use it), optionally ``license``, ``compatibility``,
``metadata`` and ``allowed-tools``; then Markdown instructions. ``scripts/``, ``references/`` and
``assets/`` may sit beside it. A model sees only names and descriptions at first, and reads a
skill's body and files when it decides to use it (``tools/skills_tool.py``'s ``load_skill``).

* ``front_matter.py``: ``SKILL.md`` parsed and checked (pure functions);
* ``discovery.py``: ``Skills.discover``: the project's and the person's skills, and a cache;
* ``skill_files.py``: what ``load_skill`` reads of a skill, never outside its folder;
* ``listing.py``: a line per skill, as every listing shows them.
"""

from __future__ import annotations

from .discovery import (
    Skill,
    Skills,
    SkillSource,
    config_folder,
    discover_cached,
    project_root,
    user_skills_folder,
)
from .front_matter import InvalidSkill, parse_skill
from .listing import skills_listing

__all__ = [
    "InvalidSkill",
    "Skill",
    "SkillSource",
    "Skills",
    "config_folder",
    "discover_cached",
    "parse_skill",
    "project_root",
    "skills_listing",
    "user_skills_folder",
]
