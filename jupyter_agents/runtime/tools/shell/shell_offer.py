"""How the shell is offered to a model: its function schema (Chat Completions, and the
Responses API under ``on-request``) and its environment (the SDK's ``ShellToolEnvironment``: a
local shell, with the skills the model may use).

A local skill (``ShellToolLocalSkill``: ``name``, ``description``, ``path``) is a folder of
instructions and scripts on this machine; ``local_shell_skills`` makes them from the skills
``Skills.discover`` finds. The Responses ``shell`` tool carries the skills in its
``environment``; the function form lists them in its description, a line each as every listing
of skills shows them (``runtime/skills/listing.py``), so a model on either wire format knows
them. Hosted container environments run the shell at the provider; this tool runs
commands here, so it refuses them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from typing_extensions import NotRequired, TypedDict

from ...errors import UserError
from ...sandbox.verdict import ESCALATED, escalation_allowed
from ...skills.listing import skills_listing

if TYPE_CHECKING:
    from ...sandbox.policy import ApprovalPolicy
    from ...skills import Skill

__all__ = [
    "ShellOnApprovalFunctionResult",
    "ShellToolEnvironment",
    "ShellToolLocalEnvironment",
    "ShellToolLocalSkill",
    "function_schema",
    "local_shell_skills",
    "shell_environment",
    "skills_text",
]


class ShellToolLocalSkill(TypedDict):
    """A skill the model may use through a local shell: a folder on this machine."""

    description: str
    name: str
    path: str


class ShellOnApprovalFunctionResult(TypedDict):
    """What a shell tool's ``on_approval`` returns: approve or not, and why."""

    approve: bool
    reason: NotRequired[str]


class ShellToolLocalEnvironment(TypedDict):
    """A local shell (commands run here), with the skills the model may use."""

    type: Literal["local"]
    skills: NotRequired[list[ShellToolLocalSkill]]


ShellToolEnvironment = ShellToolLocalEnvironment
"""The environments this shell tool runs in (the SDK's hosted containers are not among them)."""

_SKILL_KEYS = ("name", "description", "path")


def shell_environment(environment: Any, tool: str = "ShellTool") -> ShellToolLocalEnvironment:
    """``environment`` checked and completed (``type`` defaults to ``"local"``)."""
    if environment is None:
        return {"type": "local"}
    if not isinstance(environment, Mapping):
        raise UserError(f"{tool}: environment must be a dict such as {{'type': 'local'}}.")
    kind = environment.get("type", "local")
    if kind != "local":
        raise UserError(
            f"{tool}: environment type {kind!r} runs the shell at the provider; this tool runs "
            "commands here: use {'type': 'local'}."
        )
    unknown = set(environment) - {"type", "skills"}
    if unknown:
        raise UserError(f"{tool}: environment has no field {sorted(unknown)[0]!r}.")
    skills = environment.get("skills")
    if skills is None:
        return {"type": "local"}
    if not isinstance(skills, list) or not all(_is_skill(s) for s in skills):
        raise UserError(
            f"{tool}: each skill must be a dict with text fields name, description and path."
        )
    return {"type": "local", "skills": [{k: s[k] for k in _SKILL_KEYS} for s in skills]}  # type: ignore[misc]


def _is_skill(skill: Any) -> bool:
    return isinstance(skill, Mapping) and all(
        isinstance(skill.get(k), str) and skill.get(k) for k in _SKILL_KEYS
    )


def skills_text(environment: ShellToolLocalEnvironment) -> str:
    """The skills, for a function description: one line each (empty without skills)."""
    skills = environment.get("skills") or []
    if not skills:
        return ""
    listing = skills_listing((s["name"], s["description"], s["path"]) for s in skills)
    return "\nSkills you may use (read a skill's folder before using it):\n" + listing


def local_shell_skills(skills: Iterable[Skill]) -> list[ShellToolLocalSkill]:
    """``skills`` (from ``Skills.discover``) as a local shell's skills, for
    ``ShellTool(environment={"type": "local", "skills": local_shell_skills(skills)})``."""
    return [{"name": s.name, "description": s.description, "path": str(s.folder)} for s in skills]


_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "commands": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Shell command lines, run one after the other in the workspace.",
        },
        "timeout_ms": {"type": "integer", "description": "Milliseconds each command may take."},
    },
    "required": ["commands"],
}
_ESCALATION = {
    "sandbox_permissions": {
        "type": "string",
        "enum": ["use_default", ESCALATED],
        "description": (
            f"'{ESCALATED}' asks to run outside the sandbox (for example to use the network "
            "or write outside the workspace); the user must approve it."
        ),
    },
    "justification": {
        "type": "string",
        "description": "With require_escalated: one sentence telling the user why.",
    },
}


def function_schema(approval_policy: ApprovalPolicy | None) -> dict[str, Any]:
    """The function form's parameters (no escalation fields where leaving the sandbox is
    refused)."""
    if not escalation_allowed(approval_policy):
        return _SCHEMA
    return {**_SCHEMA, "properties": {**_SCHEMA["properties"], **_ESCALATION}}
