"""What happens to a shell call: it runs without asking, asks a person first, or never runs,
and where it runs. One pure function of what the call asks for and the run's policy, as
Codex's ``assess_command_safety``; every decision about a shell call derives from it.

``CallSafety.read`` reads a call's arguments: whether it asks to leave the sandbox
(``sandbox_permissions: "require_escalated"``), whether every command only reads
(``is_known_safe``) and whether one might destroy data (``is_dangerous``). ``shell_verdict``
meets that with the approval policy and the sandbox mode; the first row that matches decides:

| The call                  | ``untrusted`` | ``on-request``, ``on-failure`` | ``never``     |
|---------------------------|---------------|--------------------------------|---------------|
| asks to leave the sandbox | ask, alone    | ask, alone                     | refuse        |
| might destroy data        | ask, alone    | ask, alone                     | refuse (1)    |
| only reads                | run           | run                            | run           |
| anything else             | ask           | run                            | run           |

(1) In ``danger-full-access`` it runs: nothing could be protected by refusing it (Codex).

A call decided alone is asked each time: no standing "always" covers it, and its decision
stands for no other call. A call that leaves the sandbox runs outside it only while a person's
approval of that very call is in force, even for a tool whose ``needs_approval`` is False
(``ShellVerdict.refusal_at_run``); under ``on-failure`` a command the sandbox stopped asks to
run again outside (``escalates_on_denial``).

Read by: ``ShellTool.verdict`` (its default ``needs_approval``), ``ShellKind.invoke`` (the
refusal the model reads, whether the commands run outside the sandbox), ``ShellTool.run``
(where they run, whether a denial asks to leave), ``ShellKind.decided_alone``, the card's
badge (``CallSafety.badge``), the function schema (``escalation_allowed``), the notebook's
question to leave the sandbox (``asks_to_leave``) and ``ExecPolicy.asks``, ``refuses`` and
``verdict``. ``tests/runtime/test_shell_verdict.py`` is the table, one line per case.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from .dangerous import is_dangerous
from .safety import is_known_safe

if TYPE_CHECKING:
    from .bwrap import SandboxMode
    from .policy import ApprovalPolicy

__all__ = [
    "DANGEROUS_REFUSED",
    "ESCALATED",
    "OUTSIDE_REFUSED",
    "OUTSIDE_UNAPPROVED",
    "CallSafety",
    "Decision",
    "Label",
    "ShellVerdict",
    "asks_to_leave",
    "escalation_allowed",
    "shell_verdict",
]

ESCALATED = "require_escalated"
"""The ``sandbox_permissions`` value of a call that asks to run outside the sandbox."""

Decision: TypeAlias = Literal["run", "ask", "refuse"]
Label: TypeAlias = Literal[
    "escalated", "refused", "dangerous", "asks", "safe", "sandboxed", "unsandboxed"
]

OUTSIDE_REFUSED = (
    "Not run: running outside the sandbox is not allowed here (approval policy 'never'). "
    "Run the commands in the sandbox, or do without them."
)
"""What the model reads when it asked to leave the sandbox under ``never``."""
DANGEROUS_REFUSED = (
    "Not run: a command that might destroy data (such as rm -f or rm -rf) needs the user's "
    "approval, and nobody is asked here (approval policy 'never'). Do without it."
)
"""What the model reads of a dangerous command under ``never`` in a sandbox."""
OUTSIDE_UNAPPROVED = (
    "Not run: running outside the sandbox needs the user's approval, and this tool does not "
    "ask. Run the commands in the sandbox."
)
"""What the model reads when a call would leave the sandbox with no approval in force (a
tool built with ``needs_approval=False``)."""


def asks_to_leave(arguments: Mapping[str, Any]) -> bool:
    """Whether a shell call's arguments ask to run outside the sandbox."""
    return arguments.get("sandbox_permissions") == ESCALATED


def escalation_allowed(approval: ApprovalPolicy | None) -> bool:
    """Whether a call may ask to leave the sandbox under ``approval`` (None: the run's policy,
    unknown yet): everywhere but ``never``, where nobody could approve it."""
    return approval != "never"


@dataclass(frozen=True)
class CallSafety:
    """What a shell call asks for, as the command rules read it (no policy yet)."""

    escalated: bool
    """It asks to run outside the sandbox."""
    safe: bool
    """It has commands, and each is known to only read (``is_known_safe``)."""
    dangerous: bool
    """One of its commands might destroy data (``is_dangerous``)."""

    @classmethod
    def of(cls, commands: object, escalated: bool) -> CallSafety:
        """The safety of ``commands`` (a list of command lines; anything else counts as one
        line), asking to leave the sandbox or not."""
        lines = commands if isinstance(commands, (list, tuple)) else [commands] if commands else []
        return cls(
            escalated=escalated,
            safe=bool(lines) and all(isinstance(c, str) and is_known_safe(c) for c in lines),
            dangerous=any(isinstance(c, str) and is_dangerous(c) for c in lines),
        )

    @classmethod
    def read(cls, arguments: Mapping[str, Any]) -> CallSafety:
        """The safety of a call with ``arguments`` (``commands``, ``sandbox_permissions``)."""
        return cls.of(arguments.get("commands"), asks_to_leave(arguments))

    @property
    def alone(self) -> bool:
        """Decided alone, whatever the policy: leaving the sandbox, or a dangerous command."""
        return self.escalated or self.dangerous

    @property
    def badge(self) -> Literal["escalated", "dangerous", "safe"] | None:
        """What the call's card says before it runs (the card knows no policy)."""
        if self.escalated:
            return "escalated"
        if self.dangerous:
            return "dangerous"
        return "safe" if self.safe else None


@dataclass(frozen=True)
class ShellVerdict:
    """What happens to a shell call under one run's policy."""

    safety: CallSafety
    """What the call asks for."""
    decision: Decision
    """``run`` without asking, ``ask`` a person first, or ``refuse`` (``refusal`` says why)."""
    label: Label
    """The verdict in a word: ``escalated``, ``refused``, ``dangerous`` (asks because it
    might destroy data), ``asks``, ``safe``, ``sandboxed`` or ``unsandboxed``."""
    sandbox: SandboxMode
    """Where its commands run (once allowed): the policy's mode, or ``danger-full-access`` for
    a call that leaves the sandbox."""
    refusal: str | None = None
    """What the model reads of a refused call."""
    escalates_on_denial: bool = False
    """A command the sandbox stopped asks to run again outside it (``on-failure``)."""

    @property
    def leaves_sandbox(self) -> bool:
        """It runs outside the sandbox, and only with a person's approval of this call."""
        return self.safety.escalated

    def refusal_at_run(self, approved: bool) -> str | None:
        """Why the call may not run now (None: it may). ``approved``: a person's approval of
        this very call is in force; leaving the sandbox needs one, whatever the tool's
        ``needs_approval`` says."""
        if self.refusal is not None:
            return self.refusal
        return OUTSIDE_UNAPPROVED if self.leaves_sandbox and not approved else None


def shell_verdict(safety: CallSafety, approval: ApprovalPolicy, mode: SandboxMode) -> ShellVerdict:
    """The verdict on a call with ``safety`` under the approval policy and sandbox mode (the
    table in this module's docstring)."""
    if safety.escalated:
        outside: SandboxMode = "danger-full-access"
        if not escalation_allowed(approval):
            return ShellVerdict(safety, "refuse", "escalated", outside, OUTSIDE_REFUSED)
        return ShellVerdict(safety, "ask", "escalated", outside)
    denial = approval == "on-failure"
    if safety.dangerous:
        if approval != "never":
            return ShellVerdict(safety, "ask", "dangerous", mode, escalates_on_denial=denial)
        if mode != "danger-full-access":
            return ShellVerdict(safety, "refuse", "refused", mode, DANGEROUS_REFUSED)
    if approval == "untrusted" and not safety.safe:
        return ShellVerdict(safety, "ask", "asks", mode, escalates_on_denial=denial)
    label: Label = "safe" if safety.safe else "sandboxed"
    if label == "sandboxed" and mode == "danger-full-access":
        label = "unsandboxed"
    return ShellVerdict(safety, "run", label, mode, escalates_on_denial=denial)
