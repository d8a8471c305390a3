"""Display text of runtime values, shared by the live view and the static transcripts."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..._render.terminal import strip_ansi, terminal_safe
from ...runtime.tools.display import STEP_MARKS, PartType, StepStatus

__all__ = [
    "PART_TEXT",
    "call_text",
    "clip",
    "compact_json",
    "head_tail",
    "message_text",
    "output_text",
    "part_text",
    "plan_steps",
    "strip_ansi",
    "terminal_safe",
]


def clip(text: str, limit: int) -> tuple[str, int | None]:
    """``text`` cut to ``limit`` chars, and its original length when it was cut."""
    return (text, None) if len(text) <= limit else (text[:limit] + "…", len(text))


def head_tail(text: str, head: int, tail: int) -> tuple[str, int]:
    """The first ``head`` and last ``tail`` characters of ``text`` with a note between, and
    how many characters were cut (0 when nothing was)."""
    cut = len(text) - head - tail
    if cut <= 0:
        return text, 0
    return f"{text[:head]}\n… {cut:,} characters cut …\n{text[-tail:]}", cut


def compact_json(arguments: Any) -> str:
    """Tool arguments as compact JSON (raw text when they are not JSON)."""
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return arguments
    else:
        value = arguments
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def output_text(output: Any) -> str:
    """A tool output as text: structured outputs keep their text, other parts are named."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict) and output.get("type") == "computer_screenshot":
        return "[screenshot]"
    if isinstance(output, list) and output and all(_is_shell_output(p) for p in output):
        return "\n".join(_shell_text(p) for p in output)
    if isinstance(output, list):
        parts = []
        for part in output:
            kind = part.get("type", "") if isinstance(part, dict) else ""
            text = part.get("text") if isinstance(part, dict) else None
            if isinstance(text, str):
                parts.append(text)
            elif kind == "input_file" and isinstance(part.get("filename"), str):
                parts.append(f"[file: {part['filename']}]")  # named, never a live link
            else:
                parts.append(f"[{kind.removeprefix('input_')}]")
        return "\n".join(parts)
    return json.dumps(output, ensure_ascii=False, default=str)


IMAGE_URL = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*")
"""The only image addresses shown in cards and transcripts: inline data, never a download."""

MAX_IMAGE_CHARS = 200_000
"""Longest image data URL kept in a card (about 150 KB of image); larger ones are named."""


def _is_shell_output(part: Any) -> bool:
    return isinstance(part, dict) and "outcome" in part and ("stdout" in part or "stderr" in part)


def _shell_text(part: dict[str, Any]) -> str:
    """One shell command's output as a terminal shows it, with how it ended."""
    outcome = part.get("outcome") or {}
    if outcome.get("type") == "timeout":
        end = "[timed out]"
    else:
        end = f"[exit code {outcome.get('exit_code')}]"
    return f"{part.get('stdout') or ''}{part.get('stderr') or ''}{end}"


def output_image(output: Any) -> str | None:
    """The first image of a tool output, as a ``data:`` URL a card may show; None when there
    is none, it is not inline PNG/JPEG/GIF/WebP data, or it is too large."""
    if isinstance(output, dict) and output.get("type") == "computer_screenshot":
        output = [{"type": "input_image", "image_url": output.get("image_url")}]
    if not isinstance(output, list):
        return None
    for part in output:
        if isinstance(part, dict) and part.get("type") == "input_image":
            url = part.get("image_url")
            if isinstance(url, str) and len(url) <= MAX_IMAGE_CHARS and IMAGE_URL.fullmatch(url):
                return url
            return None
    return None


def message_text(raw: Any) -> str:
    """The text (and refusals) of an output message."""
    parts = []
    for part in getattr(raw, "content", None) or []:
        kind = getattr(part, "type", "")
        if kind == "output_text":
            parts.append(part.text)
        elif kind == "refusal":
            parts.append(part.refusal)
    return "".join(parts)


def call_text(block: Mapping[str, Any], limit: int = 200) -> str:
    """A tool call as ``name(key='value', ...)`` (arguments cut to ``limit``)."""
    args = block.get("args", "")
    try:
        value = json.loads(args) if args else {}
    except ValueError:
        value = None
    if isinstance(value, dict):
        inner = ", ".join(f"{k}={v!r}" for k, v in value.items())
    else:
        inner = re.sub(r"\s+", " ", args)
    if len(inner) > limit:
        inner = inner[:limit].rstrip() + " …"
    return f"{block.get('name', 'tool')}({inner})"


PART_TEXT: dict[PartType, Callable[[str], str]] = {
    "text": terminal_safe,
    "json": terminal_safe,
    "code": terminal_safe,
    "diff": terminal_safe,
    "terminal": lambda text: terminal_safe(text, colours=True),
    "error": lambda text: "error: " + terminal_safe(text),
    "image": lambda _text: "[image]",  # a terminal shows no picture, and never fetches one
}
"""One renderer per part type, the only place the terminal view draws each (a type it does not
know is drawn as text); everything is made safe for a real terminal."""


def plan_steps(plan: Any) -> tuple[str | None, list[tuple[str, str, str]]]:
    """A header's plan (saved state: read defensively) as its explanation and, per step, its
    mark (``✓`` completed, ``◐`` in progress, ``○`` pending), status and text; no steps when
    there is no plan."""
    if not isinstance(plan, Mapping) or not isinstance(plan.get("steps"), list):
        return None, []
    steps: list[tuple[str, str, str]] = []
    for step in plan["steps"]:
        if isinstance(step, Mapping) and isinstance(step.get("step"), str):
            said = step.get("status")
            status: StepStatus = said if said in STEP_MARKS else "pending"
            steps.append((STEP_MARKS[status], status, step["step"]))
    why = plan.get("explanation")
    return (why if isinstance(why, str) and why else None), steps


def part_text(part: Mapping[str, Any]) -> str:
    """A card part as terminal text, with how long it was when its text was cut."""
    kind: Any = part.get("type")  # untrusted: any value, looked up, never trusted
    shown = PART_TEXT.get(kind, PART_TEXT["text"])(str(part.get("text", "")))
    if (cut := part.get("cut")) and kind != "image":
        shown += f"\n… ({cut:,} characters in all)"
    return shown
