"""A skill's ``SKILL.md`` read as data: its YAML front matter, its body, and the checks a skill
must pass, each failure a sentence that says what to change.

Pure functions over text, no I/O, so each rule is a line of a table in the tests. The front
matter is parsed with ``yaml.safe_load`` (a tag such as ``!!python/object`` is an error, never an
object) and capped before it is parsed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import yaml

__all__ = [
    "MAX_DESCRIPTION",
    "MAX_FRONT_MATTER",
    "MAX_NAME",
    "InvalidSkill",
    "SkillHead",
    "parse_skill",
    "split_front_matter",
    "suggested_name",
]

MAX_NAME = 64
"""The longest skill name (the Agent Skills format's limit)."""

MAX_DESCRIPTION = 1024
"""The longest description, in characters (the format's limit)."""

MAX_COMPATIBILITY = 500
"""The longest ``compatibility`` note, in characters (the format's limit)."""

MAX_FRONT_MATTER = 16_000
"""Characters of ``SKILL.md`` within which the front matter must end."""

_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_FENCE = re.compile(r"^---[ \t]*\r?$", re.M)


class InvalidSkill(Exception):
    """A ``SKILL.md`` that does not make a skill: the message says why and what to change (it
    becomes a one-line warning, never an error of the run)."""


@dataclass(frozen=True)
class SkillHead:
    """What a valid ``SKILL.md`` holds."""

    name: str
    """The skill's name: lowercase letters, digits and hyphens, its folder's name."""
    description: str
    """What it does and when to use it, as written (at most ``MAX_DESCRIPTION`` characters)."""
    body: str
    """The Markdown after the front matter."""


def suggested_name(text: str) -> str:
    """``text`` made a valid skill name (for a fix to suggest): lowercase, every other run of
    characters a hyphen, cut to ``MAX_NAME``."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:MAX_NAME].rstrip("-") or "my-skill"


def split_front_matter(text: str) -> tuple[str, str]:
    """``SKILL.md``'s text as its front matter (the YAML between the ``---`` lines) and its body.

    Raises:
        InvalidSkill: It does not open with a ``---`` line, or none closes the front matter
            within ``MAX_FRONT_MATTER`` characters.
    """
    text = text.removeprefix("\ufeff")
    first, _, rest = text.partition("\n")
    if first.rstrip() != "---":
        raise InvalidSkill(
            "it does not begin with YAML front matter: make its first line '---', then "
            "'name: ...' and 'description: ...' lines, then a closing '---' line"
        )
    closing = _FENCE.search(rest, 0, MAX_FRONT_MATTER)
    if closing is None:
        raise InvalidSkill(
            f"its front matter has no closing '---' line within {MAX_FRONT_MATTER:,} "
            "characters: close it after the description (the instructions go below it)"
        )
    body = rest[closing.end() :].removeprefix("\n").lstrip("\r\n")
    return rest[: closing.start()], body


def _fields(front: str) -> dict[str, object]:
    """The front matter's fields: a mapping, read with ``yaml.safe_load``."""
    try:
        fields = yaml.safe_load(front)
    except yaml.MarkedYAMLError as e:
        where = f" (line {e.problem_mark.line + 2})" if e.problem_mark is not None else ""
        raise InvalidSkill(
            f"its front matter is not plain YAML: {e.problem or e.context}{where}; write plain "
            "'key: value' lines (tags such as !!python/object are refused)"
        ) from None
    except (yaml.YAMLError, RecursionError) as e:
        raise InvalidSkill(f"its front matter is not plain YAML ({type(e).__name__})") from None
    if not isinstance(fields, Mapping):
        kind = "empty" if fields is None else f"a {type(fields).__name__}"
        raise InvalidSkill(
            f"its front matter is {kind}, not a mapping of fields: write 'name: ...' and "
            "'description: ...' lines between the '---' lines"
        )
    return {str(key): value for key, value in fields.items()}


def _name(fields: Mapping[str, object], folder: str) -> str:
    name = fields.get("name")
    if name is None:
        raise InvalidSkill(f"it has no 'name': add 'name: {suggested_name(folder)}'")
    if not isinstance(name, str):
        raise InvalidSkill(
            f"its name is not text (YAML read a {type(name).__name__}): write "
            f"'name: {suggested_name(folder)}'"
        )
    if len(name) > MAX_NAME or not _NAME.match(name):
        raise InvalidSkill(
            f"its name {name!r} must be lowercase letters, digits and single hyphens (none at "
            f"either end), at most {MAX_NAME} characters: rename it, and its folder, to "
            f"{suggested_name(name)!r}"
        )
    if name != folder:
        raise InvalidSkill(
            f"its name {name!r} is not its folder's name {folder!r}: rename the folder to "
            f"{name!r} (or the name to the folder's, if that is a valid name)"
        )
    return name


def _description(fields: Mapping[str, object]) -> str:
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        raise InvalidSkill(
            "it has no 'description' text: add one saying what the skill does and when to use it"
        )
    description = description.strip()
    if len(description) > MAX_DESCRIPTION:
        raise InvalidSkill(
            f"its description has {len(description):,} characters, more than "
            f"{MAX_DESCRIPTION:,}: shorten it (the details belong in the body)"
        )
    return description


def _optional_fields(fields: Mapping[str, object]) -> None:
    """The format's optional fields, when given, have its types (other fields are ignored)."""
    for key in ("license", "compatibility"):
        if key in fields and not isinstance(fields[key], str):
            raise InvalidSkill(f"its {key!r} must be text: quote it")
    compatibility = fields.get("compatibility")
    if isinstance(compatibility, str) and len(compatibility) > MAX_COMPATIBILITY:
        raise InvalidSkill(
            f"its 'compatibility' has more than {MAX_COMPATIBILITY} characters: shorten it"
        )
    if "metadata" in fields and not isinstance(fields["metadata"], Mapping):
        raise InvalidSkill("its 'metadata' must be a mapping of names to values")
    tools = fields.get("allowed-tools")
    if tools is not None and not (
        isinstance(tools, str)
        or (isinstance(tools, list) and all(isinstance(t, str) for t in tools))
    ):
        raise InvalidSkill("its 'allowed-tools' must be text or a list of texts")


def parse_skill(text: str, folder: str) -> SkillHead:
    """The skill ``SKILL.md``'s ``text`` describes, in a folder named ``folder``.

    Raises:
        InvalidSkill: A rule of the format is broken; the message says which, and the fix.
    """
    front, body = split_front_matter(text)
    fields = _fields(front)
    name = _name(fields, folder)
    description = _description(fields)
    _optional_fields(fields)
    return SkillHead(name, description, body)
