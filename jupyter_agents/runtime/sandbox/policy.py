"""The approval policy (when a person is asked) and how it meets the sandbox mode, as Codex has
them; resolved per run from the tool's own settings, then ``RunConfig``, then the defaults,
and never looser than the site's locks (``project/settings.py``).
What the policy says of one shell call is ``verdict.shell_verdict``'s; ``ExecPolicy`` hands it
the resolved policy."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypeAlias

from ..errors import UserError
from ..project.settings_keys import KEYS, stricter_of
from .bwrap import MODES, SandboxMode
from .run import CommandResult, SandboxPolicy
from .verdict import ESCALATED, CallSafety, ShellVerdict, shell_verdict

__all__ = [
    "APPROVAL_POLICIES",
    "ESCALATED",
    "ApprovalPolicy",
    "EscalationRequest",
    "ExecPolicy",
    "check_policy_names",
    "sandbox_denial",
]

ApprovalPolicy: TypeAlias = Literal["untrusted", "on-request", "on-failure", "never"]
APPROVAL_POLICIES = ("untrusted", "on-request", "on-failure", "never")

DEFAULT_APPROVAL: ApprovalPolicy = "untrusted"
DEFAULT_MODE: SandboxMode = "workspace-write"

_DENIALS = re.compile(
    r"Read-only file system|Permission denied|Operation not permitted|Network is unreachable|"
    r"Temporary failure in name resolution|Could not resolve host|Name or service not known",
    re.I,
)
"""What a command prints when the sandbox (not the command itself) stopped it."""


def check_policy_names(approval_policy: Any, sandbox_mode: Any, where: str) -> None:
    """A one-line ``UserError`` when a policy or mode name is not one we know."""
    if approval_policy is not None and approval_policy not in APPROVAL_POLICIES:
        raise UserError(
            f"{where}: approval_policy must be one of {', '.join(APPROVAL_POLICIES)}, got "
            f"{approval_policy!r}."
        )
    if sandbox_mode is not None and sandbox_mode not in MODES:
        raise UserError(
            f"{where}: sandbox_mode must be one of {', '.join(MODES)}, got {sandbox_mode!r}."
        )


class PolicySettings(Protocol):
    """A tool's own settings of its policy (a ``ShellTool``'s fields); each one None comes
    from the run config, else the default."""

    @property
    def approval_policy(self) -> ApprovalPolicy | None: ...

    @property
    def sandbox_mode(self) -> SandboxMode | None: ...

    @property
    def workspace(self) -> str | os.PathLike[str] | None: ...

    @property
    def network_access(self) -> bool | None: ...

    @property
    def allow_env(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class ExecPolicy:
    """One run's policy for a tool that executes commands."""

    approval: ApprovalPolicy
    sandbox: SandboxPolicy

    @classmethod
    def resolve(cls, tool: PolicySettings, run_config: Any) -> ExecPolicy:
        """The policy for ``tool`` in a run with ``run_config``: each setting the tool leaves
        None comes from the run config, else the default (``untrusted``, ``workspace-write``,
        the current folder, no network)."""

        def pick(own: Any, name: str, default: Any) -> Any:
            if own is not None:
                return own
            shared = getattr(run_config, name, None)  # a RunConfig, or None outside a run
            return default if shared is None else shared

        from ..project.settings import site_locks

        locks = site_locks()  # an administrator's floor: neither RunConfig nor a tool loosens it

        def clamp(name: str, value: Any) -> Any:
            lock = locks.get(name)
            return value if lock is None else stricter_of(KEYS[name], lock.value, value)

        workspace = pick(tool.workspace, "workspace", None)
        return cls(
            approval=clamp(
                "approval_policy", pick(tool.approval_policy, "approval_policy", DEFAULT_APPROVAL)
            ),
            sandbox=SandboxPolicy(
                clamp("sandbox_mode", pick(tool.sandbox_mode, "sandbox_mode", DEFAULT_MODE)),
                Path(os.fspath(workspace)) if workspace is not None else Path.cwd(),
                clamp("network_access", bool(pick(tool.network_access, "network_access", False))),
                tuple(tool.allow_env or ()),
            ),
        )

    def judge(self, safety: CallSafety) -> ShellVerdict:
        """What this policy says of a shell call with ``safety`` (``shell_verdict``)."""
        return shell_verdict(safety, self.approval, self.sandbox.mode)

    def asks(self, *, safe: bool, escalated: bool, dangerous: bool = False) -> bool:
        """Whether a call waits for a person before it runs (``safe``: every command only
        reads; ``escalated``: the call asks to run outside the sandbox; ``dangerous``: a
        command might destroy data, see ``is_dangerous``)."""
        return self.judge(CallSafety(escalated, safe, dangerous)).decision == "ask"

    def refuses(self, *, escalated: bool, dangerous: bool = False) -> bool:
        """Whether a call may not run at all: under ``never`` nobody can approve it, so a
        request to leave the sandbox is refused, and so is a dangerous command unless the
        sandbox is off (``danger-full-access``), as in Codex."""
        return self.judge(CallSafety(escalated, False, dangerous)).decision == "refuse"

    def verdict(self, *, safe: bool, escalated: bool, dangerous: bool = False) -> str:
        """The verdict in a word (``ShellVerdict.label``): ``escalated``, ``refused``,
        ``dangerous`` (asks because it might destroy data), ``asks``, ``safe`` or
        ``sandboxed`` (``unsandboxed`` in ``danger-full-access``)."""
        return self.judge(CallSafety(escalated, safe, dangerous)).label


def sandbox_denial(result: CommandResult, mode: SandboxMode) -> str | None:
    """Why ``result`` looks like the sandbox stopped the command (None: it did not, or the
    command failed on its own)."""
    if mode == "danger-full-access" or result.timed_out or result.exit_code in (0, None):
        return None
    found = _DENIALS.search(result.stderr) or _DENIALS.search(result.stdout)
    return found.group(0) if found else None


class EscalationRequest(Exception):
    """Raised by a tool whose command failed in the sandbox under ``on-failure``: the run asks
    whether to run it again outside. ``value`` answers the call if the person says no."""

    def __init__(self, reason: str, value: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.value = value
