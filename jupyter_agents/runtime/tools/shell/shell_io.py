"""What a shell call asks of an executor and what it answers, and how the answer reads: the
request, the per-command outputs, the capped result and its text (for the model and the card).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, Union

from ...errors import UserError
from ...sandbox.run import _cut_note
from ..kinds import ParsedCall

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
    "fit_outputs",
    "model_text",
    "not_run_text",
    "requested_limit",
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
    """Characters of output to keep at most, every command's stdout and stderr together (an
    executor's own cap; the call's and the tool's apply too). A result of the tool's own
    carries the cap its output was cut to."""
    provider_data: dict[str, Any] | None = None
    renamed: tuple[str, ...] = ()
    """Modules the commands left named like installed ones (paths relative to the workspace),
    renamed by the sandbox afterwards to ``NAME.blocked``; the card's badge says so."""


ShellExecutor: TypeAlias = Callable[
    [ShellCommandRequest], Union[ShellResult, str, Awaitable[Union[ShellResult, str]]]
]
"""Runs one call's commands: returns a ``ShellResult``, or plain text (the whole output)."""


def shell_error_text(_ctx: Any, error: Exception) -> str:
    """What the model sees when an executor raises (the default ``failure_error_function``):
    the error's message, or its class name when it has none."""
    return str(error) or type(error).__name__


def capped_result(result: Any, request: ShellCommandRequest, limit: int) -> ShellResult:
    """An executor's answer as a ``ShellResult`` keeping at most ``limit`` characters of
    output in all (or the executor's own ``max_output_length``, when lower): see
    ``fit_outputs``."""
    if isinstance(result, str):  # the whole output as text: one successful command
        result = ShellResult([ShellCommandOutput(result, "", 0, "\n".join(request.commands))])
    if not isinstance(result, ShellResult):
        raise UserError(
            f"A ShellTool executor must return a ShellResult or text, got {type(result).__name__}."
        )
    own = requested_limit(result.max_output_length)
    limit = limit if own is None else min(limit, own)
    return dataclasses.replace(
        result, output=fit_outputs(result.output, limit), max_output_length=limit
    )


def requested_limit(value: object) -> int | None:
    """A ``max_output_length`` as a number of characters (a negative one keeps nothing, as
    in the SDK); None when there is none (or it is not a number)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return max(0, value)
    return None


def fit_outputs(
    outputs: Sequence[ShellCommandOutput],
    limit: int,
    sizes: Sequence[tuple[int, int]] = (),
    notes: Sequence[str] = (),
) -> list[ShellCommandOutput]:
    """``outputs`` keeping at most ``limit`` characters of stdout and stderr in all, as the
    SDK and Codex bound a call's output (not each stream): a stream within its fair share of
    ``limit`` stays whole, the longer ones share what is left, each keeping its head and tail
    with a note of how much was cut.

    ``sizes``: each output's stdout and stderr lengths before an earlier cut (the note counts
    from them). ``notes``: the sandbox's own lines to end each stderr with (modules renamed,
    ...); they get room first, so that the model always reads them.
    """
    said = _fit([(note, len(note)) for note in notes], limit)
    room = limit - sum(map(len, said))
    streams = []
    for index, out in enumerate(outputs):
        stdout, stderr = str(out.stdout), str(out.stderr)
        size = sizes[index] if index < len(sizes) else (len(stdout), len(stderr))
        streams += [(stdout, size[0]), (stderr, size[1])]
    kept = _fit(streams, room)
    return [
        dataclasses.replace(
            out,
            stdout=kept[2 * index],
            stderr=kept[2 * index + 1] + (said[index] if index < len(said) else ""),
        )
        for index, out in enumerate(outputs)
    ]


def _fit(texts: list[tuple[str, int]], limit: int) -> list[str]:
    """Each ``(text, size before an earlier cut)`` cut so that all keep at most ``limit``
    characters: the shortest first take what they need of an equal share, the rest is shared
    again among the others."""
    needs = [max(len(text), size) for text, size in texts]
    shares = [0] * len(texts)
    left = max(0, limit)
    for rank, index in enumerate(sorted(range(len(texts)), key=needs.__getitem__)):
        shares[index] = min(needs[index], left // (len(texts) - rank))
        left -= shares[index]
    return [
        _middle_cut(text, size, share) for (text, size), share in zip(texts, shares, strict=True)
    ]


def _middle_cut(text: str, size: int, room: int) -> str:
    """``text`` (``size`` characters before an earlier cut) in at most ``room`` characters:
    its head and tail around a note of what was cut, or only its head where no note fits."""
    size = max(size, len(text))
    if size <= room:
        return text
    kept = room - len(_cut_note(size))  # the longest note this cut can need
    if kept < 2:
        return text[:room]
    head, tail = text[: kept - kept // 2], text[len(text) - kept // 2 :]
    return head + _cut_note(size - len(head) - len(tail)) + tail


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


def model_text(result: ShellResult) -> str:
    """The result as one text for the model (the function form, ``local_shell``): within the
    result's ``max_output_length``, its command lines and endings included."""
    text = result_text(result)
    limit = requested_limit(result.max_output_length)
    return text if limit is None else _fit([(text, len(text))], limit)[0]
