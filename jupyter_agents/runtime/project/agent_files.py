"""Agents defined in files: Markdown with YAML front matter (``agents/analyst.md``), or YAML
(``agents/analyst.yaml``), validated by ``AgentFile`` (its JSON schema is published in the docs).

A file says who the agent is (``name``, ``description``, ``instructions``: the Markdown body, or
the YAML field), which ``model`` it uses, and which ``tools``, ``mcp_servers`` and ``handoffs``
it has, by name, with the ``mode`` and ``budget`` its runs keep to. It names; it never brings:
a tool is one the caller already has (the notebook's tools, or those passed to
``Agent.from_file``) or one of the two built in to every notebook agent (``update_plan``,
``ask_user``); an MCP server is one the caller added; a handoff is another agent file of the
same folder; a mode or budget only makes a run stricter (the caller applies it). So a folder
someone sent gains no tool, server or permission by holding an ``agents/`` folder.

A bad file is a one-line ``AgentFileError`` naming the file, the field and what to do.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import UserError
from ..nofollow import NotRead, TooLarge, read_regular
from .places import project_root, user_config_dir

if TYPE_CHECKING:
    from ..agent import Agent
    from ..models.interface import Model
    from ..tools import Tool

__all__ = [
    "MAX_BYTES",
    "SUFFIXES",
    "AgentFile",
    "AgentFileError",
    "build_agent",
    "find_agent_file",
    "load_agent_file",
]

MAX_BYTES = 64 * 1024
"""The largest agent file read."""

SUFFIXES = (".md", ".yaml", ".yml")
"""What an agent file's name ends with, in the order ``find_agent_file`` tries them."""

NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""An agent file's stem (``%%agent NAME``), and a handoff's."""

BUILT_IN = ("update_plan", "ask_user")
"""Tools an agent file may name without the caller having them: every notebook agent has
them, and they only talk to the person."""


class AgentFileError(UserError):
    """An agent file that cannot be used: one line naming the file, the field and the fix."""


class AgentFile(BaseModel):
    """What an agent file holds (front matter of a Markdown file, or a YAML document)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="The agent's name (default: the file's).",
    )
    description: str | None = Field(
        default=None,
        max_length=1024,
        description="What the agent does: shown to an agent that may hand off to it.",
    )
    instructions: str | None = Field(
        default=None,
        description="The agent's instructions (in a Markdown file: its body instead).",
    )
    model: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="A model name (default: the notebook's model, or the provider's default).",
    )
    tools: list[str] = Field(
        default_factory=list,
        description="Names of tools the notebook already has (or update_plan, ask_user).",
    )
    mcp_servers: list[str] = Field(
        default_factory=list, description="Names of MCP servers added with %agent mcp add."
    )
    handoffs: list[str] = Field(
        default_factory=list, description="Other agent files of the same folder, by name."
    )
    mode: Literal["ask", "plan", "agent"] | None = Field(
        default=None, description="The strictest mode its runs may have (never a looser one)."
    )
    budget: Decimal | None = Field(
        default=None, gt=0, description="At most this many US dollars per run."
    )

    @field_validator("name", "description", "model")
    @classmethod
    def _printable(cls, value: str | None) -> str | None:
        if value is not None and any(ord(c) < 32 and c not in "\n\t" for c in value):
            raise ValueError("holds control characters")
        return value

    @field_validator("tools", "mcp_servers")
    @classmethod
    def _names(cls, values: list[str]) -> list[str]:
        for value in values:
            if not re.fullmatch(r"[A-Za-z0-9_.:-]{1,128}", value):
                raise ValueError(f"{value[:80]!r} is not a name (letters, digits, _ . : -)")
        if len(set(values)) != len(values):
            raise ValueError("names a tool or server twice")
        return values

    @field_validator("handoffs")
    @classmethod
    def _handoffs(cls, values: list[str]) -> list[str]:
        for value in values:
            if not NAME.fullmatch(value):
                raise ValueError(
                    f"{value[:80]!r} is not an agent file's name (letters, digits, _ -)"
                )
        return values


FIELDS = tuple(AgentFile.model_fields)


def find_agent_file(name: str, start: Path | str | None = None) -> Path | None:
    """The file ``agents/NAME.md`` (or ``.yaml``, ``.yml``) in ``start`` (default: the working
    folder), else in the project's root, else in the person's configuration folder; None when
    there is none (or ``name`` is not a file's name)."""
    if not NAME.fullmatch(name):
        return None
    here = (Path(start) if start is not None else Path.cwd()).resolve()
    for folder in dict.fromkeys([here, project_root(here), user_config_dir()]):
        for suffix in SUFFIXES:
            path = folder / "agents" / f"{name}{suffix}"
            if path.is_file() or path.is_symlink():
                return path
    return None


def load_agent_file(path: Path | str) -> AgentFile:
    """The agent file at ``path``, read (never through a link) and validated.

    Raises:
        AgentFileError: It cannot be read, parsed or validated (one line).
    """
    path = Path(path)
    shown = _shown(path)
    if path.suffix not in SUFFIXES:
        raise AgentFileError(f"{shown}: an agent file ends with .md, .yaml or .yml.")
    try:
        data = read_regular(path.parent, path.name, MAX_BYTES)
    except TooLarge:
        raise AgentFileError(f"{shown}: larger than {MAX_BYTES:,} bytes; shorten it.") from None
    except NotRead as e:
        raise AgentFileError(f"{shown}: not read: {e}.") from None
    text = data.decode("utf-8", errors="replace")
    fields, body = _split(text, shown) if path.suffix == ".md" else (_yaml(text, shown), None)
    if body is not None and body.strip():
        if "instructions" in fields:
            raise AgentFileError(
                f"{shown}: instructions are given twice (the 'instructions' field and the "
                "Markdown body); keep one."
            )
        fields = {**fields, "instructions": body.strip()}
    try:
        return AgentFile.model_validate(fields)
    except ValidationError as e:
        raise AgentFileError(f"{shown}: {_first_error(e)}") from None


def _shown(path: Path) -> str:
    return f"{path.parent.name}/{path.name}" if path.parent.name else path.name


def _split(text: str, shown: str) -> tuple[dict[str, Any], str]:
    """A Markdown file's front matter (a mapping) and body."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise AgentFileError(
            f"{shown}: start the file with front matter: a '---' line, YAML such as "
            "'name: analyst', and another '---' line."
        )
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return _yaml("".join(lines[1:index]), shown, 1), "".join(lines[index + 1 :])
    raise AgentFileError(f"{shown}: the front matter has no closing '---' line; add one.")


def _yaml(text: str, shown: str, offset: int = 0) -> dict[str, Any]:
    """The YAML ``text`` as a mapping; ``offset``: lines of the file before it (for errors)."""
    import yaml

    try:
        value = yaml.safe_load(text)  # safe: plain data, never a Python object
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1 + offset})" if mark is not None else ""
        raise AgentFileError(f"{shown}: not valid YAML{where}; check the quoting.") from None
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise AgentFileError(
            f"{shown}: the YAML must be a mapping of fields (name: ..., tools: [...])."
        )
    return value


def _first_error(error: ValidationError) -> str:
    """The first problem, as one line naming the field."""
    first = error.errors()[0]
    loc = ".".join(str(part) for part in first["loc"])
    field = str(first["loc"][0]) if first["loc"] else ""
    if first["type"] == "extra_forbidden":
        near = difflib.get_close_matches(field, FIELDS, n=1)
        hint = f"did you mean {near[0]!r}?" if near else "the fields are " + ", ".join(FIELDS)
        return f"{field!r} is not a field of an agent file; {hint}"
    got = first.get("input")
    shown = f" (got {got!r:.80})" if not isinstance(got, (dict, list)) else ""
    return f"field {loc!r}: {first['msg']}{shown}."


def build_agent(
    path: Path | str,
    *,
    tools: Sequence[Tool] = (),
    mcp_servers: Mapping[str, Any] | None = None,
    model: str | Model | None = None,
    extra_instructions: str = "",
    _made: dict[Path, Agent[Any]] | None = None,
) -> Agent[Any]:
    """The agent the file at ``path`` defines: its tools looked up by name in ``tools`` (or
    ``BUILT_IN``), its servers in ``mcp_servers``, its handoffs among the agent files of its
    folder (built the same way; a cycle is fine), ``model`` when it names none, and
    ``extra_instructions`` (the project's AGENTS.md) after its own.

    Raises:
        AgentFileError: The file is bad, or names a tool, server or handoff that is not there.
    """
    from ..agent import Agent

    path = Path(path).resolve()
    made = {} if _made is None else _made
    if path in made:
        return made[path]
    spec = load_agent_file(path)
    shown = _shown(path)
    instructions = spec.instructions or ""
    if extra_instructions:
        instructions = (
            f"{instructions}\n\n{extra_instructions}" if instructions else extra_instructions
        )
    agent: Agent[Any] = Agent(
        name=spec.name or path.stem,
        instructions=instructions or None,
        handoff_description=spec.description,
        model=spec.model if spec.model is not None else model,
        tools=_tools(spec, tools, shown),
        mcp_servers=_servers(spec, mcp_servers or {}, shown),
    )
    made[path] = agent
    for name in spec.handoffs:
        other = next(
            (path.parent / f"{name}{s}" for s in SUFFIXES if (path.parent / f"{name}{s}").exists()),
            None,
        )
        if other is None:
            raise AgentFileError(
                f"{shown}: handoff {name!r}: no {name}.md or {name}.yaml beside it; write that "
                "agent file or remove the name."
            )
        agent.handoffs.append(
            build_agent(
                other,
                tools=tools,
                mcp_servers=mcp_servers,
                model=model,
                extra_instructions=extra_instructions,
                _made=made,
            )
        )
    return agent


def _tools(spec: AgentFile, available: Sequence[Tool], shown: str) -> list[Tool]:
    by_name = {t.name: t for t in available}
    chosen: list[Tool] = []
    for name in spec.tools:
        tool = by_name.get(name)
        if tool is None and name in BUILT_IN:
            tool = _built_in(name)
        if tool is None:
            known = ", ".join(sorted(by_name)) or "none yet"
            raise AgentFileError(
                f"{shown}: tool {name!r} is not one this notebook or program has (it has: "
                f"{known}); define it with @tool, or add it with %agent tools add, first."
            )
        chosen.append(tool)
    return chosen


def _built_in(name: str) -> Tool:
    if name == "update_plan":
        from ..tools.plan import PlanTool

        return PlanTool()
    from ..tools.ask_user import AskUserTool

    return AskUserTool()


def _servers(spec: AgentFile, available: Mapping[str, Any], shown: str) -> list[Any]:
    missing = [n for n in spec.mcp_servers if n not in available]
    if missing:
        known = ", ".join(sorted(available)) or "none yet"
        raise AgentFileError(
            f"{shown}: MCP server {missing[0]!r} is not one this notebook or program has "
            f"(it has: {known}); add it with %agent mcp add first."
        )
    return [available[n] for n in spec.mcp_servers]
