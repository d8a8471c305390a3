"""Static transcripts of a run (HTML and markdown), for notebooks read without a kernel.

They are built from the widget state (see :mod:`jupyter_agents.notebook.widget`) and stored next to
the widget view when a run ends, so GitHub and nbviewer show the run. Everything the model wrote
is escaped; there are no scripts, no event handlers and no remote resources. Tool outputs are cut
to :data:`OUTPUT_CHARS`, and consecutive tool calls become one compact list, to keep saved
notebooks small. The helpers that turn runtime values into display text live here too; the live
view uses them.
"""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

from ._markdown import render_markdown, safe_url

__all__ = [
    "ARGS_CHARS",
    "ERROR_PREFIXES",
    "OUTPUT_CHARS",
    "call_text",
    "clip",
    "compact_json",
    "is_tool_error",
    "message_text",
    "output_text",
    "safe_markdown",
    "summary_line",
    "to_html",
    "to_markdown",
]

OUTPUT_CHARS = 500
"""Characters of a tool output (or printed text, or reasoning) kept in a transcript."""

ARGS_CHARS = 200
"""Characters of a tool call's arguments kept in a transcript."""

Block = dict[str, Any]

_INLINE_MAX = 120
_MUTED = "color:#6e7781"
_RED = "#cf222e"
_MARKS = {"error": "✗ ", "rejected": "⊘ ", "cancelled": "○ ", "running": "… ", "waiting": "… "}

# -- display text of runtime values (shared with the live view) ---------------------------

ERROR_PREFIXES = (
    "An error occurred while running the tool",
    "Invalid arguments for tool",
    "The arguments for tool",
)
"""How the runtime's tool error messages (sent to the model as the output) begin."""


def is_tool_error(text: str) -> bool:
    """Whether a tool output is one of the runtime's error messages."""
    if text.startswith(ERROR_PREFIXES):
        return True
    first = text.split("\n", 1)[0]
    return text.startswith("Tool ") and (
        "does not exist" in first or "is not available right now" in first
    )


def clip(text: str, limit: int) -> tuple[str, int | None]:
    """``text`` cut to ``limit`` chars, and its original length when it was cut."""
    return (text, None) if len(text) <= limit else (text[:limit] + "…", len(text))


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
    if isinstance(output, list):
        parts = []
        for part in output:
            kind = part.get("type", "") if isinstance(part, dict) else ""
            text = part.get("text") if isinstance(part, dict) else None
            parts.append(text if isinstance(text, str) else f"[{kind.removeprefix('input_')}]")
        return "\n".join(parts)
    return json.dumps(output, ensure_ascii=False, default=str)


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


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + " …"


def call_text(block: Block) -> str:
    """A tool call as ``name(key='value', ...)`` (cut to :data:`ARGS_CHARS`)."""
    args = block.get("args", "")
    try:
        value = json.loads(args) if args else {}
    except ValueError:
        value = None
    if isinstance(value, dict):
        inner = ", ".join(f"{k}={v!r}" for k, v in value.items())
    else:
        inner = re.sub(r"\s+", " ", args)
    return f"{block.get('name', 'tool')}({_cut(inner, ARGS_CHARS)})"


def _decision(block: Block) -> str:
    approval = block.get("approval") or {}
    state = approval.get("state")
    if state not in ("approved", "rejected", "expired"):
        return ""
    words = [state if state != "expired" else "no decision"]
    if approval.get("always"):
        words.append("always")
    reason = f": {approval['message']}" if approval.get("message") else ""
    return f"{' '.join(words)}{reason}"


def _facts(header: dict[str, Any], blocks: list[Block]) -> list[str]:
    facts = [str(header.get("status", ""))]
    start, end = header.get("started_at"), header.get("ended_at")
    if start and end:
        seconds = (end - start) / 1000
        minutes = f"{int(seconds // 60)} min {seconds % 60:.0f} s"
        facts.append(f"{seconds:.1f} s" if seconds < 60 else minutes)
    calls = sum(1 for b in blocks if _is_tool(b))
    if calls:
        facts.append(f"{calls} tool call{'s' if calls != 1 else ''}")
    if tokens := header.get("tokens"):
        facts.append(f"{tokens.get('total', 0):,} tokens")
    return facts


def summary_line(header: dict[str, Any], blocks: list[Block]) -> str:
    """One plain-text line describing the run (the ``text/plain`` of the final output)."""
    who = f"{header.get('agent', '')} · {header.get('model', '')}"
    detail = f": {header['detail']}" if header.get("detail") else ""
    return f"Agent run {who} · {' · '.join(_facts(header, blocks))}{detail}"


def _is_tool(block: Block) -> bool:
    return bool(block.get("kind", "tool") == "tool")  # "tool" is the default kind


def _groups(blocks: list[Block]) -> list[list[Block]]:
    """Blocks with each run of consecutive tool calls gathered in one list."""
    groups: list[list[Block]] = []
    for block in blocks:
        if _is_tool(block) and groups and _is_tool(groups[-1][0]):
            groups[-1].append(block)
        else:
            groups.append([block])
    return groups


# -- HTML ------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    return escape(str(value), quote=False)


def _html_tool(block: Block) -> str:
    status = block.get("status", "done")
    output = _cut(block.get("output", ""), OUTPUT_CHARS)
    printed = _cut(block.get("printed", ""), OUTPUT_CHARS)
    call = f"{_MARKS.get(status, '')}<code>{_text(call_text(block))}</code>"
    if note := _decision(block):
        call += f' <i style="{_MUTED}">{_text(note)}</i>'
    red = status in ("error", "rejected")
    if not printed and len(output) <= _INLINE_MAX and "\n" not in output:
        result = _text(output)
        if red:
            result = f'<span style="color:{_RED}">{result}</span>'
        return f"<li>{call}{' → ' + result if output else ''}</li>"
    pre = '<pre style="white-space:pre-wrap;margin:2px 0">'
    body = f"{pre.replace('>', f';{_MUTED}>')}{_text(printed)}</pre>" if printed else ""
    if output:
        body += pre.replace(">", f";color:{_RED}>") if red else pre
        body += f"{_text(output)}</pre>"
    return f"<li><details><summary>{call}</summary>{body}</details></li>"


def _html_block(block: Block) -> str:
    kind = block.get("kind")
    if kind == "text":
        return render_markdown(block.get("text", ""))
    if kind == "reasoning":
        text = _text(_cut(block.get("text", ""), OUTPUT_CHARS))
        return f'<details style="{_MUTED}"><summary>Reasoning</summary>{text}</details>'
    color = _RED if block.get("level") == "error" else "#6e7781"
    label = _text(block.get("label") or block.get("level") or "")
    return f'<p style="color:{color}"><i>{label}</i> {_text(block.get("text", ""))}</p>'


def to_html(header: dict[str, Any], blocks: list[Block]) -> str:
    """The run as one self-contained HTML fragment."""
    status = header.get("status", "")
    color = _RED if status == "failed" else "#6e7781"
    facts = _facts(header, blocks)
    parts = [
        f'<div style="{_MUTED};font-size:12px"><b>{_text(header.get("agent", ""))}</b> · '
        f'{_text(header.get("model", ""))} · <b style="color:{color}">{_text(facts[0])}</b>'
        f"{_text(''.join(' · ' + f for f in facts[1:]))}</div>"
    ]
    if detail := header.get("detail"):
        parts.append(f'<p style="color:{color}">{_text(_cut(detail, OUTPUT_CHARS))}</p>')
    for group in _groups(blocks):
        if _is_tool(group[0]):
            parts.append(f'<ul style="padding-left:20px">{"".join(map(_html_tool, group))}</ul>')
        else:
            parts.append(_html_block(group[0]))
    return (
        '<div class="jupyter-agents-transcript" style="border:1px solid #d0d7de;'
        f'border-radius:6px;padding:4px 12px">{"".join(parts)}</div>'
    )


# -- markdown --------------------------------------------------------------------------------

_MD_CODE = re.compile(r"(`+).+?\1")
_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?[^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]+)\]\(\s*<?([^)\s>]*)>?[^)]*\)")


def _md_code(text: str) -> str:
    """``text`` as an inline code span, whatever backticks it holds."""
    text = text.replace("\n", " ")
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _md_fence(text: str) -> str:
    fence = "`" * max(3, max((len(r) for r in re.findall(r"`{3,}", text)), default=0) + 1)
    return f"{fence}text\n{text}\n{fence}"


def _md_prose(segment: str) -> str:
    segment = segment.replace("&", "&amp;").replace("<", "&lt;")

    def image(m: re.Match[str]) -> str:
        url = safe_url(m.group(2))
        alt = m.group(1) or "image"
        return f"[🖼 {alt}]({url})" if url else f"🖼 {alt}"

    def link(m: re.Match[str]) -> str:
        url = safe_url(m.group(2))
        return m.group() if url else m.group(1)

    return _MD_LINK.sub(link, _MD_IMAGE.sub(image, segment))


def safe_markdown(text: str) -> str:
    """Model markdown that renders without raw HTML, loaded images or unsafe links."""
    out, fence = [], ""
    for line in text.replace("\r\n", "\n").split("\n"):
        stripped = line.lstrip()
        if fence:
            out.append(line)
            if stripped.startswith(fence):
                fence = ""
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            out.append(line)
        else:
            pieces, pos = [], 0
            for m in _MD_CODE.finditer(line):
                pieces += [_md_prose(line[pos : m.start()]), m.group()]
                pos = m.end()
            out.append("".join([*pieces, _md_prose(line[pos:])]))
    if fence:
        out.append(fence)
    return "\n".join(out)


def _md_tool(block: Block) -> str:
    status = block.get("status", "done")
    output = _cut(block.get("output", ""), OUTPUT_CHARS)
    printed = _cut(block.get("printed", ""), OUTPUT_CHARS)
    line = f"- {_MARKS.get(status, '')}{_md_code(call_text(block))}"
    if note := _decision(block):
        line += f" *{_md_prose(note)}*"
    if not printed and len(output) <= _INLINE_MAX and "\n" not in output:
        return line + (f" → {_md_code(output)}" if output else "")
    for extra in (printed, output):
        if extra:
            line += "\n\n" + "\n".join("  " + row for row in _md_fence(extra).split("\n"))
    return line


def _md_block(block: Block) -> str:
    kind = block.get("kind")
    if kind == "text":
        return safe_markdown(block.get("text", ""))
    if kind == "reasoning":
        text = _md_prose(_cut(block.get("text", ""), OUTPUT_CHARS)).replace("\n", " ")
        return f"> *Reasoning:* {text}"
    label = block.get("label") or block.get("level", "")
    return f"*{_md_prose(str(label))}:* {_md_prose(str(block.get('text', '')))}"


def to_markdown(header: dict[str, Any], blocks: list[Block]) -> str:
    """The run as markdown."""
    facts = " · ".join(_facts(header, blocks))
    agent = _md_prose(str(header.get("agent", "")))
    parts = [f"**{agent}** · {_md_code(str(header.get('model', '')))} · {facts}"]
    if detail := header.get("detail"):
        parts.append("> " + _md_prose(_cut(str(detail), OUTPUT_CHARS)).replace("\n", " "))
    for group in _groups(blocks):
        if _is_tool(group[0]):
            parts.append("\n".join(map(_md_tool, group)))
        else:
            parts.append(_md_block(group[0]))
    return "\n\n".join(parts) + "\n"
