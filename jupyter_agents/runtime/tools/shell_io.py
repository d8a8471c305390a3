"""What a shell call asks of an executor and what it answers, and how the answer reads: the
request, the per-command outputs, the capped result and its text (for the model and the card).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, Union

from ..errors import UserError
from ..sandbox.run import _Capped
from .kinds import ParsedCall

__all__ = [
    "ShellActionRequest",
    "ShellCallData",
    "ShellCallOutcome",
    "ShellCommandOutput",
    "ShellCommandRequest",
    "ShellExecutor",
    "ShellResult",
    "capped_result",
    "ending",
    "not_run_text",
    "result_text",
    "shell_error_text",
]


@dataclass
class ShellActionRequest:
    """The commands of one call as the model sent them (the SDK's ``ShellActionRequest``)."""

    commands: list[str]
    timeout_ms: int | None = None
    max_output_length: int | None = None


@dataclass
class ShellCallData:
    """One call as the SDK's executors read it: ``request.data.action.commands``."""

    call_id: str
    action: ShellActionRequest
    status: Literal["in_progress", "completed"] | None = None
    raw: Any | None = None


@dataclass
class ShellCommandRequest:
    """What an executor gets: the commands of one call."""

    commands: list[str]
    timeout_ms: int | None = None
    max_output_length: int | None = None
    ctx_wrapper: Any = None
    escalated: bool = False
    """The call runs outside the sandbox: a person approved it."""
    justification: str | None = None
    """Why the model or the failed sandboxed run asked to leave the sandbox."""
    on_output: Callable[[str], None] | None = None
    """Gets the commands' output as it comes, when someone shows the run live."""
    call_id: str = ""
    """The id of the call."""

    @property
    def data(self) -> ShellCallData:
        """The call in the SDK's shape (``request.data.action.commands``)."""
        action = ShellActionRequest(list(self.commands), self.timeout_ms, self.max_output_length)
        return ShellCallData(self.call_id, action, "completed")


@dataclass
class ShellCallOutcome:
    """How a command ended: it exited (with ``exit_code``, when known), or ran out of time."""

    type: Literal["exit", "timeout"]
    exit_code: int | None = None


@dataclass
class ShellCommandOutput:
    """One command's result. Give ``exit_code`` (None: it ran out of time) or, as the SDK's
    executors do, ``outcome``; each is set from the other."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = 0
    """None when the command ran out of time."""
    command: str = ""
    outcome: ShellCallOutcome | None = None
    """How it ended (the SDK's field)."""
    provider_data: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.outcome is None:
            timed_out = self.exit_code is None
            self.outcome = (
                ShellCallOutcome("timeout")
                if timed_out
                else ShellCallOutcome("exit", self.exit_code)
            )
        elif self.outcome.type == "timeout":
            self.exit_code = None
        else:  # an exit with no code known reads as a success, as the SDK shows it
            self.exit_code = 0 if self.outcome.exit_code is None else self.outcome.exit_code

    @property
    def status(self) -> Literal["completed", "timeout"]:
        """``"timeout"`` when the command ran out of time, else ``"completed"``."""
        return "timeout" if self.exit_code is None else "completed"


@dataclass
class ShellResult:
    """An executor's answer: one output per command, in order."""

    output: list[ShellCommandOutput]
    sandbox: str = ""
    """The sandbox mode the commands ran in (``danger-full-access``: none); empty when your
    executor ran them."""
    escalated: bool = False
    """They ran outside the sandbox because a person let them."""
    confinement: str = ""
    """What actually confined them, as the sandbox reported it (``"bubblewrap /usr/bin/bwrap,
    workspace-write, no network"``, ``"none (danger-full-access)"``); empty for your executor."""
    max_output_length: int | None = None
    """Characters of each stream to keep at most (an executor's own cap; the call's applies
    too)."""
    provider_data: dict[str, Any] | None = None
    renamed: tuple[str, ...] = ()
    """Modules the commands left named like installed ones (paths relative to the workspace),
    renamed by the sandbox afterwards to ``NAME.blocked``; the card's badge says so."""


ShellExecutor: TypeAlias = Callable[
    [ShellCommandRequest], Union[ShellResult, str, Awaitable[Union[ShellResult, str]]]
]
"""Runs one call's commands: returns a :class:`ShellResult`, or plain text (the whole output)."""


def shell_error_text(_ctx: Any, error: Exception) -> str:
    """What the model sees when an executor raises (the default ``failure_error_function``):
    the error's message, or its class name when it has none."""
    return str(error) or type(error).__name__


def capped_result(result: Any, request: ShellCommandRequest, limit: int) -> ShellResult:
    """An executor's answer as a :class:`ShellResult` whose every stream keeps at most
    ``limit`` characters (head and tail), as the sandboxed runs do."""
    if isinstance(result, str):  # the whole output as text: one successful command
        result = ShellResult([ShellCommandOutput(result, "", 0, "\n".join(request.commands))])
    if not isinstance(result, ShellResult):
        raise UserError(
            f"A ShellTool executor must return a ShellResult or text, got {type(result).__name__}."
        )
    if result.max_output_length is not None and result.max_output_length >= 0:
        limit = min(limit, result.max_output_length)
    outputs = [
        dataclasses.replace(out, stdout=_cut(out.stdout, limit), stderr=_cut(out.stderr, limit))
        for out in result.output
    ]
    return dataclasses.replace(result, output=outputs)


def _cut(text: Any, limit: int) -> str:
    capped = _Capped(limit)
    capped.add(str(text))
    return capped.text()[0]


def not_run_text(call: ParsedCall, value: Any) -> str:
    """Why a call did not run (or its executor failed), cut to the call's
    ``max_output_length`` as the SDK does."""
    text = str(value)
    try:
        limit = json.loads(call.arguments or "{}").get("max_output_length")
    except (ValueError, AttributeError):
        limit = None
    if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0:
        return text[:limit]
    return text


def ending(code: int | None) -> str:
    return "timed out" if code is None else f"exit code {code}"


def result_text(result: ShellResult) -> str:
    parts = []
    for out in result.output:
        parts.append(f"$ {out.command}\n{out.stdout}{out.stderr}[{ending(out.exit_code)}]")
    return "\n".join(parts)
