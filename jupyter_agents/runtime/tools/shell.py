"""``ShellTool``: the model runs shell commands (the Responses ``shell`` tool), in the sandbox.

Each call carries one or more commands; with no executor they run one after the other in the
workspace under the tool's sandbox policy (:mod:`jupyter_agents.runtime.sandbox`), and the answer
holds each command's stdout, stderr and outcome. Chat Completions models get a function tool
``shell`` taking the same commands. Approval follows the tool's approval policy:

* ``untrusted``: every call with a command not known to only read waits for a person;
* ``on-request``: calls run in the sandbox without asking (the wire formats here carry no way
  for the model to ask for more);
* ``never``: nothing is asked.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, Union

from .._util import call_maybe_async
from ..errors import UserError
from ..sandbox import SandboxMode, SandboxPolicy, is_known_safe, run_sandboxed
from .kinds import DisplayPart, ParsedCall, ToolDisplay, ToolKind, register_tool_kind

if TYPE_CHECKING:
    from ..context import ToolContext

__all__ = [
    "LocalShellTool",
    "ShellCommandOutput",
    "ShellCommandRequest",
    "ShellResult",
    "ShellTool",
]

ApprovalPolicy: TypeAlias = Literal["untrusted", "on-request", "never"]
POLICIES = ("untrusted", "on-request", "never")


@dataclass
class ShellCommandRequest:
    """What an executor gets: the commands of one call."""

    commands: list[str]
    timeout_ms: int | None = None
    max_output_length: int | None = None
    ctx_wrapper: Any = None


@dataclass
class ShellCommandOutput:
    """One command's result."""

    stdout: str
    stderr: str
    exit_code: int | None
    """None when the command ran out of time."""
    command: str = ""


@dataclass
class ShellResult:
    """An executor's answer: one output per command, in order."""

    output: list[ShellCommandOutput]


ShellExecutor: TypeAlias = Callable[
    [ShellCommandRequest], Union[ShellResult, Awaitable[ShellResult]]
]


@dataclass(eq=False)
class ShellTool:
    """The shell tool; commands run in the sandbox unless you give your own ``executor``."""

    executor: ShellExecutor | None = None
    approval_policy: ApprovalPolicy = "untrusted"
    sandbox_mode: SandboxMode = "workspace-write"
    workspace: str | os.PathLike[str] | None = None
    """Where commands run (default: the current folder)."""
    network_access: bool = False
    allow_env: tuple[str, ...] = ()
    """Secret-looking environment variables commands may still see."""
    command_timeout: float = 60.0
    """Seconds one command may take (the model may ask for less)."""
    max_output: int = 20_000
    """Characters of stdout and of stderr kept per command (head and tail)."""
    needs_approval: Any = None
    """None: the approval policy decides; else as for any tool."""
    name: str = field(default="shell", init=False)

    def __post_init__(self) -> None:
        if self.approval_policy not in POLICIES:
            raise UserError(
                f"ShellTool: approval_policy must be one of {', '.join(POLICIES)}, got "
                f"{self.approval_policy!r} ('on-failure' is not available yet)."
            )
        self.policy = SandboxPolicy(
            self.sandbox_mode,
            Path(self.workspace) if self.workspace is not None else Path.cwd(),
            self.network_access,
            tuple(self.allow_env),
        )
        if self.needs_approval is None:
            self.needs_approval = self._policy_asks

    def _policy_asks(self, _ctx: Any, arguments: dict[str, Any], _call_id: str) -> bool:
        if self.approval_policy != "untrusted":
            return False
        commands = arguments.get("commands") or []
        return not commands or not all(isinstance(c, str) and is_known_safe(c) for c in commands)

    async def run(self, request: ShellCommandRequest) -> ShellResult:
        """Run ``request``'s commands, one after the other."""
        if self.executor is not None:
            result = await call_maybe_async(self.executor, request)
            if not isinstance(result, ShellResult):
                raise UserError("A ShellTool executor must return a ShellResult.")
            return result
        timeout = self.command_timeout
        if request.timeout_ms:
            timeout = min(timeout, request.timeout_ms / 1000)
        limit = min(self.max_output, request.max_output_length or self.max_output)
        outputs = []
        for command in request.commands:
            done = await run_sandboxed(command, self.policy, timeout=timeout, max_output=limit)
            code = None if done.timed_out else done.exit_code
            outputs.append(ShellCommandOutput(done.stdout, done.stderr, code, command))
        return ShellResult(outputs)


_SCHEMA = {
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


def _text(result: ShellResult) -> str:
    parts = []
    for out in result.output:
        end = "timed out" if out.exit_code is None else f"exit code {out.exit_code}"
        parts.append(f"$ {out.command}\n{out.stdout}{out.stderr}[{end}]")
    return "\n".join(parts)


class ShellKind(ToolKind):
    """``shell_call`` items (Responses) or ``shell`` function calls (Chat Completions)."""

    def __init__(self) -> None:
        super().__init__(
            name="shell", tool_classes=(ShellTool,), call_types=("shell_call",), executable=True
        )

    def responses_param(self, tool: ShellTool) -> dict[str, Any]:
        return {"type": "shell"}

    def chat_param(self, tool: ShellTool) -> dict[str, Any] | None:
        description = f"Run shell commands in the workspace ({tool.sandbox_mode} sandbox)."
        return {
            "type": "function",
            "function": {"name": tool.name, "description": description, "parameters": _SCHEMA},
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
        try:
            value = json.loads(arguments or "{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def argument_problem(self, tool: Any, arguments: str) -> str | None:
        commands = self.parsed_arguments(arguments).get("commands")
        if not isinstance(commands, list) or not commands:
            return "Send 'commands': a list of shell command lines."
        if not all(isinstance(c, str) and c.strip() for c in commands):
            return "Every command must be a non-empty string."
        return None

    async def invoke(self, tool: ShellTool, ctx: ToolContext[Any], arguments: str) -> Any:
        data = self.parsed_arguments(arguments)
        request = ShellCommandRequest(
            list(data["commands"]), data.get("timeout_ms"), data.get("max_output_length"), ctx
        )
        return await tool.run(request)

    def output_item(self, call: ParsedCall, value: Any) -> dict[str, Any]:
        if isinstance(value, ShellResult):
            output = [
                {
                    "stdout": out.stdout,
                    "stderr": out.stderr,
                    "outcome": {"type": "timeout"}
                    if out.exit_code is None
                    else {"type": "exit", "exit_code": out.exit_code},
                }
                for out in value.output
            ]
        else:  # not run (rejected, refused, failed): said on stderr
            output = [
                {"stdout": "", "stderr": str(value), "outcome": {"type": "exit", "exit_code": 1}}
            ]
        return {"type": "shell_call_output", "call_id": call.call_id, "output": output}

    def chat_output_item(self, call: ParsedCall, value: Any) -> dict[str, Any]:
        text = _text(value) if isinstance(value, ShellResult) else str(value)
        return {"type": "function_call_output", "call_id": call.call_id, "output": text}

    def describe(self, raw: Any, output: Any = None) -> ToolDisplay:
        data = self.parsed_arguments(self.parse_call(raw).arguments)
        parts: tuple[DisplayPart, ...] = ()
        if isinstance(output, ShellResult):
            parts = (DisplayPart("terminal", _text(output)),)
        elif output is not None:
            parts = (DisplayPart("text", str(output)),)
        return ToolDisplay(kind=self.name, title=self.name, arguments=data, parts=parts)


SHELL = ShellKind()
"""The kind of shell tools."""

register_tool_kind(SHELL)


@dataclass(eq=False)
class LocalShellTool(ShellTool):
    """The older ``local_shell`` tool: one command (an argv) per call, answered with its
    output as text. Runs, sandboxes and asks exactly like :class:`ShellTool`."""

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
        return {"type": "local_shell"}

    def parse_call(self, raw: Any) -> ParsedCall:
        action = raw.action
        data = {"commands": [shlex.join(action.command)], "timeout_ms": action.timeout_ms}
        return ParsedCall(name="local_shell", call_id=str(raw.call_id), arguments=json.dumps(data))

    def output_item(self, call: ParsedCall, value: Any) -> dict[str, Any]:
        text = _text(value) if isinstance(value, ShellResult) else str(value)
        return {"type": "local_shell_call_output", "call_id": call.call_id, "output": text}


LOCAL_SHELL = LocalShellKind()
"""The kind of local shell tools."""

register_tool_kind(LOCAL_SHELL)
