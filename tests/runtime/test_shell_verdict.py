"""The shell's one verdict (``sandbox/verdict.py``), as a table: a call and a policy, then what
happens to it. Every line runs the real command rules on the command shown.

Columns: the command line, whether the call asks to leave the sandbox, the approval policy,
the sandbox mode; then the decision (``run`` without asking, ``ask`` a person, ``refuse``), the
verdict in a word, where the commands run, and whether a command the sandbox stopped asks to
run again outside. Add a line to add a case.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai.types.responses import ResponseFunctionToolCall

from jupyter_agents.runtime.sandbox import SandboxPolicy
from jupyter_agents.runtime.sandbox.policy import ExecPolicy
from jupyter_agents.runtime.sandbox.verdict import (
    DANGEROUS_REFUSED,
    OUTSIDE_REFUSED,
    OUTSIDE_UNAPPROVED,
    CallSafety,
    escalation_allowed,
    shell_verdict,
)
from jupyter_agents.runtime.tools.shell.shell_offer import function_schema
from jupyter_agents.runtime.tools.shell.shell_tool import SHELL, ShellTool

READS = "cat data.txt"
WRITES = "echo x > made.txt"
DESTROYS = "rm -rf build"
OUTSIDE = "echo x > ../report.txt"  # with sandbox_permissions: require_escalated
RO, WW, FULL = "read-only", "workspace-write", "danger-full-access"

VERDICTS = [
    # command   leave  approval      mode  -> decision  label          runs in  denial asks
    (READS,     False, "untrusted",  RO,      "run",    "safe",        RO,      False),
    (READS,     False, "untrusted",  WW,      "run",    "safe",        WW,      False),
    (READS,     False, "untrusted",  FULL,    "run",    "safe",        FULL,    False),
    (READS,     False, "on-request", WW,      "run",    "safe",        WW,      False),
    (READS,     False, "on-failure", RO,      "run",    "safe",        RO,      True),
    (READS,     False, "never",      WW,      "run",    "safe",        WW,      False),
    (WRITES,    False, "untrusted",  RO,      "ask",    "asks",        RO,      False),
    (WRITES,    False, "untrusted",  WW,      "ask",    "asks",        WW,      False),
    (WRITES,    False, "untrusted",  FULL,    "ask",    "asks",        FULL,    False),
    (WRITES,    False, "on-request", RO,      "run",    "sandboxed",   RO,      False),
    (WRITES,    False, "on-request", WW,      "run",    "sandboxed",   WW,      False),
    (WRITES,    False, "on-request", FULL,    "run",    "unsandboxed", FULL,    False),
    (WRITES,    False, "on-failure", RO,      "run",    "sandboxed",   RO,      True),
    (WRITES,    False, "on-failure", WW,      "run",    "sandboxed",   WW,      True),
    (WRITES,    False, "on-failure", FULL,    "run",    "unsandboxed", FULL,    True),
    (WRITES,    False, "never",      RO,      "run",    "sandboxed",   RO,      False),
    (WRITES,    False, "never",      WW,      "run",    "sandboxed",   WW,      False),
    (WRITES,    False, "never",      FULL,    "run",    "unsandboxed", FULL,    False),
    (DESTROYS,  False, "untrusted",  WW,      "ask",    "dangerous",   WW,      False),
    (DESTROYS,  False, "untrusted",  FULL,    "ask",    "dangerous",   FULL,    False),
    (DESTROYS,  False, "on-request", RO,      "ask",    "dangerous",   RO,      False),
    (DESTROYS,  False, "on-request", FULL,    "ask",    "dangerous",   FULL,    False),
    (DESTROYS,  False, "on-failure", WW,      "ask",    "dangerous",   WW,      True),
    (DESTROYS,  False, "never",      RO,      "refuse", "refused",     RO,      False),
    (DESTROYS,  False, "never",      WW,      "refuse", "refused",     WW,      False),
    (DESTROYS,  False, "never",      FULL,    "run",    "unsandboxed", FULL,    False),
    (OUTSIDE,   True,  "untrusted",  RO,      "ask",    "escalated",   FULL,    False),
    (OUTSIDE,   True,  "untrusted",  WW,      "ask",    "escalated",   FULL,    False),
    (OUTSIDE,   True,  "on-request", WW,      "ask",    "escalated",   FULL,    False),
    (OUTSIDE,   True,  "on-failure", RO,      "ask",    "escalated",   FULL,    False),
    (OUTSIDE,   True,  "never",      WW,      "refuse", "escalated",   FULL,    False),
    (OUTSIDE,   True,  "never",      FULL,    "refuse", "escalated",   FULL,    False),
    (READS,     True,  "on-request", WW,      "ask",    "escalated",   FULL,    False),
    (DESTROYS,  True,  "on-request", WW,      "ask",    "escalated",   FULL,    False),
    (DESTROYS,  True,  "never",      WW,      "refuse", "escalated",   FULL,    False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("command", "leave", "approval", "mode", "decision", "label", "where", "on_denial"), VERDICTS
)
def test_the_verdict_on_a_shell_call(
    command: str,
    leave: bool,
    approval: Any,
    mode: Any,
    decision: str,
    label: str,
    where: str,
    on_denial: bool,
) -> None:
    verdict = shell_verdict(CallSafety.of([command], leave), approval, mode)
    found = (verdict.decision, verdict.label, verdict.sandbox, verdict.escalates_on_denial)
    assert found == (decision, label, where, on_denial)
    assert (verdict.refusal is not None) is (decision == "refuse")


REFUSALS = [
    # command   leave  approval      mode  approved -> what the model reads (None: it runs)
    (OUTSIDE,   True,  "never",      WW,   True,       OUTSIDE_REFUSED),
    (DESTROYS,  True,  "never",      WW,   False,      OUTSIDE_REFUSED),
    (DESTROYS,  False, "never",      WW,   True,       DANGEROUS_REFUSED),
    (OUTSIDE,   True,  "on-request", WW,   False,      OUTSIDE_UNAPPROVED),
    (OUTSIDE,   True,  "untrusted",  FULL, False,      OUTSIDE_UNAPPROVED),
    (OUTSIDE,   True,  "on-request", WW,   True,       None),
    (WRITES,    False, "untrusted",  WW,   False,      None),
    (DESTROYS,  False, "on-request", WW,   False,      None),
    (DESTROYS,  False, "never",      FULL, False,      None),
]  # fmt: skip


@pytest.mark.parametrize(("command", "leave", "approval", "mode", "approved", "told"), REFUSALS)
def test_what_may_run_when_the_call_comes_to_run(
    command: str, leave: bool, approval: Any, mode: Any, approved: bool, told: str | None
) -> None:
    """A tool that never asks (``needs_approval=False``) still cannot leave the sandbox, and
    what ``never`` refuses stays refused even when someone approved it."""
    verdict = shell_verdict(CallSafety.of([command], leave), approval, mode)
    assert verdict.refusal_at_run(approved) == told


SAFETY = [
    # arguments                                                  -> alone  badge
    ({"commands": [READS]},                                          False, "safe"),
    ({"commands": [READS, READS]},                                   False, "safe"),
    ({"commands": [READS, WRITES]},                                  False, None),
    ({"commands": [WRITES, DESTROYS]},                               True,  "dangerous"),
    ({"commands": [READS], "sandbox_permissions": "require_escalated"}, True, "escalated"),
    ({"commands": [READS], "sandbox_permissions": "use_default"},    False, "safe"),
    ({"commands": []},                                               False, None),
    ({},                                                             False, None),
    ({"commands": [READS, 7]},                                       False, None),
    ({"commands": DESTROYS},                                         True,  "dangerous"),
    ({"commands": 5},                                                False, None),
]  # fmt: skip


@pytest.mark.parametrize(("arguments", "alone", "badge"), SAFETY)
def test_what_a_call_asks_for(arguments: dict[str, Any], alone: bool, badge: str | None) -> None:
    """Decided alone whatever the policy, and the card's badge before the call runs."""
    safety = CallSafety.read(arguments)
    assert (safety.alone, safety.badge) == (alone, badge)


APPROVALS = ("untrusted", "on-request", "on-failure", "never")
MODES = (RO, WW, FULL)


@pytest.mark.parametrize("approval", APPROVALS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", [READS, WRITES, DESTROYS])
@pytest.mark.parametrize("leave", [False, True])
def test_the_shell_tool_and_the_policy_say_what_the_verdict_says(
    tmp_path: Path, approval: Any, mode: Any, command: str, leave: bool
) -> None:
    """Whether the tool asks, whether it is decided alone, the card's badge and the policy's
    own answers all come from the one verdict."""
    arguments: dict[str, Any] = {"commands": [command]}
    if leave:
        arguments.update(sandbox_permissions="require_escalated", justification="why")
    verdict = shell_verdict(CallSafety.read(arguments), approval, mode)
    tool = ShellTool(approval_policy=approval, sandbox_mode=mode, workspace=tmp_path)
    assert tool.verdict(arguments, None) == verdict
    asks = tool.needs_approval(None, arguments, "c1")
    assert asks is (verdict.decision == "ask")
    text = json.dumps(arguments)
    raw = ResponseFunctionToolCall(type="function_call", name="shell", call_id="c1", arguments=text)
    assert SHELL.decided_alone(text, tool, None) is verdict.safety.alone
    assert SHELL.describe(raw).badge == verdict.safety.badge
    policy = ExecPolicy(approval, SandboxPolicy(mode, tmp_path))
    safety = verdict.safety
    flags = {"escalated": safety.escalated, "dangerous": safety.dangerous}
    assert policy.asks(safe=safety.safe, **flags) is (verdict.decision == "ask")
    assert policy.refuses(**flags) is (verdict.decision == "refuse")
    assert policy.verdict(safe=safety.safe, **flags) == verdict.label
    offered = "sandbox_permissions" in function_schema(approval)["properties"]
    assert offered is escalation_allowed(approval) is (approval != "never")
