"""The finished view of a run: static HTML and Markdown, for notebooks read without a kernel.

When a run ends, the live widget is replaced by these (see ``RunView.finish``), so the saved
notebook shows the run in JupyterLab, on GitHub and in nbviewer. Tool cards stay cards:
``<details>`` elements that open without JavaScript, with arguments, printed output, output,
errors (traceback folded) and the approval decision. Long texts keep their head and tail with a
note of what was cut, and the whole transcript stays within ``BUDGET`` characters; the full
run is in the ``RunResult``. Everything the model, a tool or a server wrote goes through the one
sanitiser (``jupyter_agents._render``): no scripts, event handlers, styles or remote
resources. Colours follow the JupyterLab theme through CSS variables, with fallbacks for other
frontends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..._render import escape_html, markdown_to_html
from ..view.display_text import IMAGE_URL, call_text, head_tail, plan_steps, strip_ansi
from ..view.widget_state import Block, Header, PartType

__all__ = [
    "BUDGET",
    "HEAD",
    "PART_HTML",
    "STATUS_MARKS",
    "TAIL",
    "summary_line",
    "to_html",
    "to_markdown",
]

HEAD = 1_500
"""Characters kept from the start of a long output (and ``TAIL`` from its end)."""

TAIL = 1_000

TEXT_CHARS = 20_000
"""Characters of one answer text kept in the transcript (with a note when cut)."""

BUDGET = 200_000
"""Upper bound (characters) of one transcript; later blocks are left out with a note."""

_Any = Mapping[str, Any]
"""A block, part or header as read here: any mapping (saved state is read defensively)."""

STATUS_MARKS: dict[str, tuple[str, str]] = {
    "done": ("✓", "done"),
    "error": ("✗", "failed"),
    "timeout": ("⏱", "timed out"),
    "rejected": ("⊘", "rejected"),
    "blocked": ("⛔", "blocked by a guardrail"),
    "cancelled": ("○", "cancelled"),
    "running": ("…", "running"),
    "waiting": ("…", "waiting for approval"),
    "background": ("⟳", "still running in the background"),
}
"""Status of a tool card -> (mark, words)."""

_STYLE = (
    "<style>.jupyter-agents-transcript{border:1px solid var(--jp-border-color2,#d0d7de);border-"
    "radius:6px;padding:4px 12px;color:var(--jp-content-font-color1,inherit);font-size:var(--jp"
    "-content-font-size1,14px)}.jupyter-agents-transcript .ja-head{color:var(--jp-content-font-"
    "color2,#6e7781);font-size:12px}.jupyter-agents-transcript details.ja-card{border:1px solid"
    " var(--jp-border-color2,#d0d7de);border-radius:4px;margin:4px 0;padding:2px 8px}.jupyter-a"
    "gents-transcript pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;padding:4px;b"
    "ackground:var(--jp-layout-color2,#f6f8fa);border-radius:3px}.jupyter-agents-transcript .ja"
    "-muted{color:var(--jp-content-font-color2,#6e7781)}.jupyter-agents-transcript .ja-bad{colo"
    "r:var(--jp-error-color1,#cf222e)}.jupyter-agents-transcript .ja-good{color:var(--jp-succes"
    "s-color1,#1a7f37)}.jupyter-agents-transcript .ja-label{font-size:11px;text-transform:upper"
    "case;color:var(--jp-content-font-color2,#6e7781)}.jupyter-agents-transcript .ja-thumb{max-"
    "width:240px;max-height:160px;border:1px solid var(--jp-border-color2,#d0d7de)}.jupyter-agen"
    "ts-transcript .ja-plan ul{list-style:none;margin:2px 0;padding-left:4px}</style>"
)
"""Theme-following styles, on one line (the Markdown form carries them in one HTML block)."""

_BAD = ("error", "timeout", "rejected", "blocked")

SAVED_IMAGE_CHARS = 60_000
"""Longest image (as a data URL) the static transcript keeps; larger ones are only named."""


def _facts(header: Header, blocks: Sequence[Block]) -> list[str]:
    facts = [str(header.get("status", ""))]
    if header.get("replayed"):
        facts.append("replayed")
    start, end = header.get("started_at"), header.get("ended_at")
    if start and end:
        seconds = (end - start) / 1000
        minutes = f"{int(seconds // 60)} min {seconds % 60:.0f} s"
        facts.append(f"{seconds:.1f} s" if seconds < 60 else minutes)
    calls = sum(1 for b in blocks if _is_tool(b))
    if calls:
        facts.append(f"{calls} tool call{'s' if calls != 1 else ''}")
    going_on = sum(1 for b in blocks if _is_tool(b) and b.get("status") == "background")
    if going_on:
        facts.append(f"{going_on} still running in the background")
    tokens = header.get("tokens")
    if tokens and tokens.get("total"):
        facts.append(f"{tokens['total']:,} tokens")
    if header.get("cost"):
        facts.append(str(header.get("cost")))
    return facts


def summary_line(header: Header, blocks: Sequence[Block]) -> str:
    """One plain-text line describing the run (the ``text/plain`` of the final output)."""
    who = f"{header.get('agent', '')} · {header.get('model', '')}"
    detail = f": {header['detail']}" if header.get("detail") else ""
    return f"Agent run {who} · {' · '.join(_facts(header, blocks))}{detail}"


def _is_tool(block: _Any) -> bool:
    return bool(block.get("kind", "tool") == "tool")  # "tool" is the default kind


def _pre(text: str, css: str = "") -> str:
    kept, _cut = head_tail(text, HEAD, TAIL)
    cls = f' class="{css}"' if css else ""
    return f"<pre{cls}>{escape_html(kept)}</pre>"


def _section(label: str, body: str) -> str:
    return f'<div class="ja-label">{escape_html(label)}</div>{body}'


def _decision(block: _Any) -> str:
    approval = block.get("approval") or {}
    state = approval.get("state")
    if state not in ("approved", "rejected", "expired"):
        return ""
    if isinstance(question := approval.get("question"), dict):
        asked = f"asked: {question.get('text', '')}"
        if state == "approved":
            return f"{asked} · answered: {approval.get('answer', '')}"
        skipped = "skipped" if state == "rejected" else "no answer"
        return f"{asked} · {skipped}" + (
            f": {approval['message']}" if approval.get("message") else ""
        )
    words = [state if state != "expired" else "no decision"]
    if approval.get("edited"):
        words.append("with edited arguments")
    if approval.get("scope") == "notebook":
        words.append("(always in this notebook)")
    elif approval.get("always"):
        words.append("(always)")
    if approval.get("recorded"):
        words.append("when it was recorded (not run now)")
    reason = f": {approval['message']}" if approval.get("message") else ""
    return f"{' '.join(words)}{reason}"


DIFF_HEADERS = tuple(
    f"{verb}_{what} "
    for verb in ("create", "update", "delete", "move")
    for what in ("file", "cell")
)
"""How a diff part names what it changes: a file (a patch) or a notebook cell."""


def _diff_line(line: str) -> str:
    """One line of a diff in a span classed by what it does (escaped)."""
    if line.startswith(DIFF_HEADERS):
        css = "ja-diff-file"
    elif line.startswith("+"):
        css = "ja-good"
    elif line.startswith("-"):
        css = "ja-bad"
    elif line.startswith("@@"):
        css = "ja-muted"
    else:
        css = ""
    span = f'<span class="{css}">' if css else "<span>"
    return f"{span}{escape_html(line)}</span>"


def _image(url: str) -> str:
    if len(url) <= SAVED_IMAGE_CHARS:
        src = escape_html(url, quote=True)
        return f'<img class="ja-thumb" alt="the tool output image" src="{src}">'
    kb = len(url) * 3 // 4 // 1024
    return f'<span class="ja-muted">an image of about {kb} KB (not kept here)</span>'


def _diff(text: str, tone: str) -> str:
    kept, _cut = head_tail(text, HEAD, TAIL)
    return f"<pre>{chr(10).join(map(_diff_line, kept.rstrip(chr(10)).split(chr(10))))}</pre>"


def _image_part(text: str, tone: str) -> str:
    # Only inline raster data is ever shown: an address is never fetched.
    return _image(text) if IMAGE_URL.fullmatch(text) else ""


PART_HTML: dict[PartType, tuple[str, Callable[[str, str], str]]] = {
    "text": ("output", lambda text, tone: _pre(text, tone)),
    "json": ("output", lambda text, tone: _pre(text)),
    "terminal": ("output", lambda text, tone: _pre(strip_ansi(text), tone)),
    "error": ("error", lambda text, tone: _pre(text, "ja-bad")),
    "code": ("code", lambda text, tone: _pre(text)),
    "diff": ("changes", _diff),
    "image": ("image", _image_part),
}
"""One renderer per part type, the only place the transcript draws each: its heading and a
function of the text and the tone (``ja-bad`` for the output of a failed call)."""


def _part(part: _Any, failed: bool) -> str:
    """One part of a card (a type this transcript does not know is drawn as text)."""
    kind: Any = part.get("type")  # untrusted: any value, looked up, never trusted
    heading, draw = PART_HTML.get(kind, PART_HTML["text"])
    call = part.get("role") == "call"
    if call and heading == "output":
        heading = "arguments"  # a part that shows the call stands for them
    if cut := part.get("cut"):
        heading += f" (first part of {cut:,} characters)"
    body = draw(str(part.get("text", "")), "ja-bad" if failed and not call else "")
    return _section(heading, body) if body else ""


def _card(block: _Any) -> str:
    status = block.get("status", "done")
    mark, words = STATUS_MARKS.get(status, ("", status))
    tone = "ja-bad" if status in _BAD else "ja-good" if status == "done" else "ja-muted"
    if status == "rejected" and isinstance((block.get("approval") or {}).get("question"), dict):
        words, tone = "skipped", "ja-muted"  # a question nobody answered: skipped, not refused
    title = "" if status == "done" else f' title="{escape_html(words, quote=True)}"'  # ✓ says it
    summary = f'<span class="{tone}"{title}>{mark}</span> '
    shown = call_text(block, 120)
    summary += f"<code>{escape_html(shown)}</code>"
    if origin := block.get("origin"):
        summary += f' <span class="ja-muted">from {escape_html(str(origin))}</span>'
    if badge := block.get("badge"):
        summary += f' <span class="ja-muted">[{escape_html(str(badge))}]</span>'
    if block.get("replayed"):
        summary += ' <span class="ja-muted">replayed</span>'
    elif block.get("ms") is not None:
        summary += f' <span class="ja-muted">{block["ms"] / 1000:.1f} s</span>'
    if note := _decision(block):
        summary += f' <span class="ja-muted"><i>{escape_html(note)}</i></span>'
    if late := block.get("note"):  # a call that went on in the background, say
        summary += f' <span class="ja-muted"><i>{escape_html(str(late))}</i></span>'
    parts = [p for p in block.get("parts", []) if isinstance(p, dict)]
    call = [p for p in parts if p.get("role") == "call"]
    body = [_part(p, False) for p in call]
    args = block.get("args")
    if not call and args and (block.get("args_cut") or shown.endswith(" …)") or "\n" in args):
        cut = block.get("args_cut")
        label = "arguments" + (f" (first part of {cut:,} characters)" if cut else "")
        body.append(_section(label, _pre(args)))
    if escalation := block.get("escalation"):
        body.append(_section("asked to run outside the sandbox", _pre(str(escalation))))
    if printed := block.get("printed"):
        dropped = block.get("printed_cut")
        label = "printed" + (f" (last part; {dropped:,} characters before it)" if dropped else "")
        terminal = block.get("live") == "terminal"
        body.append(_section(label, _pre(strip_ansi(printed) if terminal else printed, "ja-muted")))
    body += [_part(p, status in _BAD) for p in parts if p.get("role") != "call"]
    error = block.get("error")
    if isinstance(error, dict):
        line = f"{error.get('type', 'Error')}: {error.get('message', '')}"
        body.append(_section("error", _pre(line, "ja-bad")))
        if trace := error.get("traceback"):
            body.append(f"<details><summary>traceback</summary>{_pre(str(trace))}</details>")
    only = _section("output", "")
    if len(body) == 1 and body[0].startswith(only):  # the output alone: no heading needed
        body = [body[0][len(only) :]]
    return f'<details class="ja-card"><summary>{summary}</summary>{"".join(body)}</details>'


def _plan(header: Header) -> str:
    """The run's last plan as a checklist (completed steps struck, the current one bold)."""
    why, steps = plan_steps(header.get("plan"))
    if not steps:
        return ""
    done = sum(1 for _mark, status, _text in steps if status == "completed")
    items = []
    for mark, status, text in steps:
        shown = escape_html(text)
        if status == "completed":
            shown = f'<s class="ja-muted">{shown}</s>'
        elif status == "in_progress":
            shown = f"<b>{shown}</b>"
        items.append(f'<li><span class="ja-muted">{mark}</span> {shown}</li>')
    note = f'<div class="ja-muted">{escape_html(why)}</div>' if why else ""
    head = f'<div class="ja-label">plan · {done}/{len(steps)}</div>'
    return f'<div class="ja-plan">{head}{note}<ul>{"".join(items)}</ul></div>'


def _block(block: _Any) -> str:
    kind = block.get("kind", "tool")
    if kind == "tool":
        return _card(block)
    if kind == "text":
        return markdown_to_html(block.get("text", ""), limit=TEXT_CHARS)
    if kind == "reasoning":
        text, _ = head_tail(str(block.get("text", "")), HEAD, TAIL)
        return f'<details class="ja-muted"><summary>Reasoning</summary>{_pre(text)}</details>'
    tone = "ja-bad" if block.get("level") == "error" else "ja-muted"
    label = escape_html(block.get("label") or block.get("level") or "")
    return f'<p class="{tone}"><i>{label}</i> {escape_html(block.get("text", ""))}</p>'


def to_html(header: Header, blocks: Sequence[Block]) -> str:
    """The run as one self-contained HTML fragment (at most about ``BUDGET`` chars)."""
    status = str(header.get("status", ""))
    tone = "ja-bad" if status == "failed" else "ja-muted"
    facts = _facts(header, blocks)
    parts = [
        f'<div class="ja-head"><b>{escape_html(header.get("agent", ""))}</b> · '
        f'{escape_html(header.get("model", ""))} · <b class="{tone}">{escape_html(facts[0])}</b>'
        f"{escape_html(''.join(' · ' + f for f in facts[1:]))}</div>"
    ]
    if detail := header.get("detail"):
        parts.append(f'<p class="{tone}">{escape_html(head_tail(str(detail), HEAD, TAIL)[0])}</p>')
    parts.append(_plan(header))
    size = sum(map(len, parts))
    for index, block in enumerate(blocks):
        piece = _block(block)
        if size + len(piece) > BUDGET:
            left = len(blocks) - index
            parts.append(
                f'<p class="ja-muted"><i>{left:,} more block{"s" if left != 1 else ""} not '
                "saved here, to keep the notebook small; the full run is in the result.</i></p>"
            )
            break
        parts.append(piece)
        size += len(piece)
    return f'{_STYLE}<div class="jupyter-agents-transcript">{"".join(parts)}</div>'


def to_markdown(header: Header, blocks: Sequence[Block]) -> str:
    """The run as compact Markdown: the header, the answer texts and one line per tool call,
    all in one inert HTML block (one line, so no Markdown renderer parses anything inside it
    again). The cards with their details are in the HTML form."""
    parts = [f"<p><b>{escape_html(summary_line(header, blocks))}</b></p>", _plan(header)]
    calls: list[str] = []
    for typed in blocks:
        block: _Any = typed
        if _is_tool(block):
            mark, _ = STATUS_MARKS.get(block.get("status", "done"), ("", ""))
            note = _decision(block) or str(block.get("note") or "")
            note = f" <i>{escape_html(note[:80])}</i>" if note else ""
            calls.append(f"<li>{mark} <code>{escape_html(call_text(block, 80))}</code>{note}</li>")
            continue
        if calls:
            parts.append(f"<ul>{''.join(calls)}</ul>")
            calls = []
        if block.get("kind") == "text":
            parts.append(markdown_to_html(block.get("text", ""), limit=TEXT_CHARS))
    if calls:
        parts.append(f"<ul>{''.join(calls)}</ul>")
    html = f'<div class="jupyter-agents-transcript">{"".join(parts)}</div>'
    text = html.replace("\n", "&#10;")
    if len(text) > BUDGET:
        text = text[:BUDGET] + "…</div>"
    return text + "\n"
