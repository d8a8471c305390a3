"""``ShellTool``: the model runs shell commands (the Responses ``shell`` tool), in the sandbox.

Each call carries one or more commands; with no executor they run one after the other in the
workspace under the sandbox policy (``jupyter_agents.runtime.sandbox``), and the answer holds
each command's stdout, stderr and outcome. Chat Completions models get a function tool ``shell``
taking the same commands. The approval policy (the tool's own, else ``RunConfig``'s) decides,
through one verdict per call (``sandbox/verdict.py``'s ``shell_verdict``):

* ``untrusted``: a call with a command not known to only read waits for a person;
* ``on-request``: calls run in the sandbox without asking; the model may ask to run one outside
  (``sandbox_permissions: "require_escalated"`` with a ``justification``), which waits for a
  person. Only the function form carries those fields, so under ``on-request`` the shell is
  offered as a function tool on the Responses API too;
* ``on-failure``: calls run in the sandbox; one the sandbox stopped (a read-only file system,
  no network) waits for a person, who may let it run again outside;
* ``never``: nothing is asked, and a request to leave the sandbox is refused.

A command that might destroy data (``rm -rf``) asks under every policy but ``never``, where it
is refused unless the sandbox is off.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..._util import call_maybe_async
from ...approvals import approved_call
from ...sandbox import CommandResult, SandboxMode, run_sandboxed
from ...sandbox.policy import (
    ApprovalPolicy,
    EscalationRequest,
    ExecPolicy,
    check_policy_names,
    sandbox_denial,
)
from ...sandbox.verdict import ESCALATED, CallSafety, ShellVerdict
from ..capabilities import ToolCapabilities
from ..kinds import DisplayPart, ParsedCall, ToolDisplay, ToolKind, json_object, register_tool_kind
from ..live_output import streamer
from .shell_io import (
    ShellCommandOutput,
    ShellCommandRequest,
    ShellExecutor,
    ShellResult,
    capped_result,
    ending,
    fit_outputs,
    model_text,
    not_run_text,
    requested_limit,
    result_text,
    shell_error_text,
)
from .shell_offer import function_schema, shell_environment, skills_text

if TYPE_CHECKING:
    from ...context import ToolContext

__all__ = [
    "LocalShellTool",
    "ShellCommandOutput",
    "ShellCommandRequest",
    "ShellResult",
    "ShellTool",
    "shell_error_text",
]


@dataclass(eq=False)
class ShellTool(ToolCapabilities):
    """The shell tool; commands run in the sandbox unless you give your own ``executor``.

    ``approval_policy``, ``sandbox_mode``, ``workspace`` and ``network_access`` left None come
    from the run's ``RunConfig``, else the defaults: ``untrusted``, ``workspace-write``, the
    current folder, no network."""

    executor: ShellExecutor | None = None
    approval_policy: ApprovalPolicy | None = None
    sandbox_mode: SandboxMode | None = None
    workspace: str | os.PathLike[str] | None = None
    """Where commands run."""
    network_access: bool | None = None
    allow_env: tuple[str, ...] = ()
    """Environment variables commands get too, beyond the ordinary ones (an allowlist: API
    keys, passwords and database URLs are not passed unless named here)."""
    command_timeout: float = 60.0
    """Seconds one command may take (the model may ask for less)."""
    max_output: int = 20_000
    """Characters of output kept per call: every command's stdout and stderr together (head
    and tail of each stream that does not fit); the call's ``max_output_length`` may lower it."""
    needs_approval: Any = None
    """None: the approval policy decides; else as for any tool (escalations included)."""
    function_form: bool = False
    """Offer the shell as a function tool on the Responses API too (as on Chat Completions):
    only that form lets the model ask to leave the sandbox under ``on-request``."""
    on_approval: Any = None
    """Decides calls that need approval before a person is asked (the SDK's hook): a sync or
    async ``(run_context, approval_item) -> {"approve": bool, "reason": str}``; any other
    answer leaves the call to a person."""
    failure_error_function: Any = shell_error_text
    """Turns an exception from your ``executor`` into the failed output the model sees (cut to
    the call's ``max_output_length``); None ends the run instead."""
    environment: Any = None
    """Where commands run and the skills the model may use (``ShellToolLocalEnvironment``:
    ``{"type": "local", "skills": [ShellToolLocalSkill, ...]}``; only local shells here)."""
    name: str = field(default="shell", init=False)

    def __post_init__(self) -> None:
        check_policy_names(self.approval_policy, self.sandbox_mode, type(self).__name__)
        self.environment = shell_environment(self.environment, type(self).__name__)
        self.policy = self.policy_for(None).sandbox  # checks the workspace now
        if self.needs_approval is None:
            self.needs_approval = self._policy_asks

    def policy_for(self, run_config: Any) -> ExecPolicy:
        """The policy in a run with ``run_config`` (None: the tool's own and the defaults)."""
        return ExecPolicy.resolve(self, run_config)

    def verdict(self, arguments: Mapping[str, Any], run_config: Any) -> ShellVerdict:
        """What the policy says of a call with ``arguments`` (before anyone is asked)."""
        return self.policy_for(run_config).judge(CallSafety.read(arguments))

    def _policy_asks(self, ctx: Any, arguments: dict[str, Any], _call_id: str) -> bool:
        return self.verdict(arguments, getattr(ctx, "run_config", None)).decision == "ask"

    async def run(
        self,
        request: ShellCommandRequest,
        policy: ExecPolicy | None = None,
        verdict: ShellVerdict | None = None,
    ) -> ShellResult:
        """Run ``request``'s commands, one after the other, under ``policy`` (default: the
        tool's own), their output bounded as a whole (``fit_outputs``). Where they run, and
        whether a command the sandbox stopped raises ``EscalationRequest`` with what ran so
        far (``on-failure``), is the call's ``verdict`` (judged here when not given)."""
        requested = requested_limit(request.max_output_length)
        limit = self.max_output if requested is None else min(self.max_output, requested)
        if self.executor is not None:
            return capped_result(await call_maybe_async(self.executor, request), request, limit)
        policy = policy or self.policy_for(None)
        if verdict is None:
            verdict = policy.judge(CallSafety.of(request.commands, request.escalated))
        sandbox = policy.sandbox
        if verdict.sandbox != sandbox.mode:  # it leaves the sandbox: a person approved it
            sandbox = dataclasses.replace(sandbox, mode=verdict.sandbox)
        timeout = self.command_timeout
        if request.timeout_ms:
            timeout = min(timeout, request.timeout_ms / 1000)
        show = request.on_output
        ran = _Ran(limit, sandbox.mode, request.escalated)
        for command in request.commands:
            if show is not None:
                show(f"$ {command}\n")
            done = await run_sandboxed(
                command, sandbox, timeout=timeout, max_output=limit, on_output=show
            )
            code = ran.add(command, done)
            if show is not None:
                show(f"[{ending(code)}]\n")
            denial = sandbox_denial(done, sandbox.mode)
            if denial and verdict.escalates_on_denial:
                reason = f"{command!r} failed in the {sandbox.mode} sandbox ({denial})"
                raise EscalationRequest(reason, ran.result())
        return ran.result()


@dataclass
class _Ran:
    """The commands of one call that have run so far, and their result."""

    limit: int
    mode: str
    escalated: bool
    outputs: list[ShellCommandOutput] = field(default_factory=list)
    sizes: list[tuple[int, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    confined: list[str] = field(default_factory=list)
    renamed: list[str] = field(default_factory=list)

    def add(self, command: str, done: CommandResult) -> int | None:
        """Add ``done``, the result of ``command``; its exit code (None: timed out)."""
        code = None if done.timed_out else done.exit_code
        own = done.stderr[: len(done.stderr) - len(done.notes)]  # the notes end it
        self.outputs.append(ShellCommandOutput(done.stdout, own, code, command))
        self.sizes.append(done.sizes)
        self.notes.append(done.notes)
        if done.confinement not in self.confined:
            self.confined.append(done.confinement)
        self.renamed += done.renamed
        return code

    def result(self) -> ShellResult:
        """What ran so far, its output bounded as a whole."""
        return ShellResult(
            fit_outputs(self.outputs, self.limit, self.sizes, self.notes),
            self.mode,
            self.escalated,
            "; ".join(self.confined),
            max_output_length=self.limit,
            renamed=tuple(self.renamed),
        )


class ShellKind(ToolKind[ShellTool, ShellResult | str]):
    """``shell_call`` items (Responses) or ``shell`` function calls (Chat Completions)."""

    def __init__(self) -> None:
        super().__init__(
            name="shell", tool_classes=(ShellTool,), call_types=("shell_call",), executable=True
        )

    def responses_param(self, tool: ShellTool) -> dict[str, Any]:
        if tool.function_form:
            function = self.chat_param(tool)["function"]
            return {"type": "function", **function}
        return {"type": "shell", "environment": dict(tool.environment)}

    def chat_param(self, tool: ShellTool) -> dict[str, Any]:
        mode = tool.sandbox_mode or "the run's"
        description = f"Run shell commands in the workspace ({mode} sandbox)."
        description += skills_text(tool.environment)
        return {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": description,
                "parameters": function_schema(tool.approval_policy),
            },
        }

    def parse_call(self, raw: Any) -> ParsedCall:
        action = raw.action
        data = {
            "commands": list(action.commands),
            "timeout_ms": action.timeout_ms,
            "max_output_length": action.max_output_length,
        }
        return ParsedCall(name="shell", call_id=str(raw.call_id), arguments=json.dumps(data))

    def parsed_arguments(self, arguments: str) -> dict[str, Any]:
        return json_object(arguments)

    def argument_problem(self, tool: ShellTool, arguments: str) -> str | None:
        commands = self.parsed_arguments(arguments).get("commands")
        if not isinstance(commands, list) or not commands:
            return "Send 'commands': a list of shell command lines."
        if not all(isinstance(c, str) and c.strip() for c in commands):
            return "Every command must be a non-empty string."
        return None

    async def invoke(
        self, tool: ShellTool, ctx: ToolContext[Any], arguments: str
    ) -> ShellResult | str:
        data = self.parsed_arguments(arguments)
        policy = tool.policy_for(ctx.run_config)
        verdict = policy.judge(CallSafety.read(data))
        refusal = verdict.refusal_at_run(approved=approved_call.get() == ctx.tool_call_id)
        if refusal is not None:
            return refusal
        request = ShellCommandRequest(
            list(data["commands"]),
            data.get("timeout_ms"),
            data.get("max_output_length"),
            ctx,
            escalated=verdict.leaves_sandbox,
            justification=data.get("justification"),
            on_output=streamer(ctx.tool_call_id),
            call_id=ctx.tool_call_id,
        )
        return await tool.run(request, policy, verdict)

    def escalated_arguments(self, arguments: str, reason: str) -> str:
        data = self.parsed_arguments(arguments)
        return json.dumps({**data, "sandbox_permissions": ESCALATED, "justification": reason})

    def decided_alone(self, arguments: str, tool: Any = None, run_config: Any = None) -> bool:
        return CallSafety.read(self.parsed_arguments(arguments)).alone

    def output_item(self, call: ParsedCall, value: ShellResult | str) -> dict[str, Any]:
        output: list[dict[str, Any]]
        if isinstance(value, ShellResult):
            output = [
                {
                    "stdout": out.stdout,
                    "stderr": out.stderr,
                    "outcome": {"type": "timeout"}
                    if out.status == "timeout"
                    else {"type": "exit", "exit_code": out.exit_code},
                }
                for out in value.output
            ]
        else:  # not run (rejected, refused, failed): said on stderr
            output = [
                {
                    "stdout": "",
                    "stderr": not_run_text(call, value),
                    "outcome": {"type": "exit", "exit_code": 1},
                }
            ]
        return {"type": "shell_call_output", "call_id": call.call_id, "output": output}

    def chat_output_item(self, call: ParsedCall, value: ShellResult | str) -> dict[str, Any]:
        text = model_text(value) if isinstance(value, ShellResult) else not_run_text(call, value)
        return {"type": "function_call_output", "call_id": call.call_id, "output": text}

    def describe(self, raw: Any, output: object = None) -> ToolDisplay:
        call = self.parse_chat_call(raw) if raw.type == "function_call" else self.parse_call(raw)
        data = self.parsed_arguments(call.arguments)
        parts: tuple[DisplayPart, ...] = ()
        if isinstance(output, ShellResult):
            shown = result_text(output)  # for people only: the model's text has no confinement line
            if output.confinement:
                shown += f"\n[confined by: {output.confinement}]"
            parts = (DisplayPart("terminal", shown),)
        elif output is not None:
            parts = (DisplayPart("text", str(output)),)
        return ToolDisplay(
            kind=self.name,
            title=call.name,
            arguments=data,
            parts=parts,
            badge=_badge(data, output),
            live="terminal",  # what a command prints, as it comes; the result repeats it
        )


def _badge(arguments: dict[str, Any], output: Any) -> str | None:
    """The policy verdict a card shows: before the call runs, whether it asks to leave the
    sandbox, might destroy data or only reads; after, where it ran."""
    if isinstance(output, ShellResult) and output.sandbox:
        if output.sandbox == "danger-full-access":
            return "escalated" if output.escalated else "unsandboxed"
        return f"sandboxed: {output.sandbox}{_renamed(output.renamed)}"
    return CallSafety.read(arguments).badge


def _renamed(renamed: tuple[str, ...]) -> str:
    """What a badge adds when the sandbox renamed modules a command left: the file's name
    (an identifier and a module suffix, nothing else), or a count past one."""
    if not renamed:
        return ""
    if len(renamed) > 1:
        return f" · renamed {len(renamed)} modules"
    return f" · renamed {os.path.basename(renamed[0])}"


SHELL = ShellKind()
"""The kind of shell tools."""

register_tool_kind(SHELL)


@dataclass(eq=False)
class LocalShellTool(ShellTool):
    """The older ``local_shell`` tool: one command (an argv) per call, answered with its
    output as text. Runs, sandboxes and asks exactly like ``ShellTool``."""

    name: str = field(default="local_shell", init=False)


class LocalShellKind(ShellKind):
    """``local_shell_call`` items (Responses) or ``local_shell`` function calls (Chat)."""

    def __init__(self) -> None:
        ToolKind.__init__(
            self,
            name="local_shell",
            tool_classes=(LocalShellTool,),
            call_types=("local_shell_call",),
            executable=True,
        )

    def responses_param(self, tool: ShellTool) -> dict[str, Any]:
        return super().responses_param(tool) if tool.function_form else {"type": "local_shell"}

    def parse_call(self, raw: Any) -> ParsedCall:
        action = raw.action
        data = {"commands": [shlex.join(action.command)], "timeout_ms": action.timeout_ms}
        return ParsedCall(name="local_shell", call_id=str(raw.call_id), arguments=json.dumps(data))

    def output_item(self, call: ParsedCall, value: ShellResult | str) -> dict[str, Any]:
        text = model_text(value) if isinstance(value, ShellResult) else not_run_text(call, value)
        return {"type": "local_shell_call_output", "call_id": call.call_id, "output": text}


LOCAL_SHELL = LocalShellKind()
"""The kind of local shell tools."""

register_tool_kind(LOCAL_SHELL)
