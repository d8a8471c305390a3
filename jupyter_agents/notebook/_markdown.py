"""Safe markdown → HTML for static transcripts (the Python twin of the widget's renderer).

Model text is untrusted. Every character of it is escaped; only the tags built here reach the
output. Links keep ``http(s)`` / ``mailto`` targets only (``rel="noopener noreferrer nofollow"``),
images become links (never loaded), raw HTML shows as text. Supported: headings, paragraphs,
bold / italic / strikethrough, inline code, fenced code, lists (nested), block quotes, rules,
simple tables.
"""

from __future__ import annotations

import re
from html import escape

__all__ = ["render_markdown", "safe_url"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")
_QUOTE = re.compile(r"^ {0,3}> ?(.*)$")
_ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)])\s+(.*)$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_URL = r"(?:[^()\s<>]|\([^()\s<>]*\))*"
_TITLE = r"(?:\s+[\"'][^)]*[\"'])?\s*"
_INLINE = re.compile(
    r"(?P<esc>\\[\\`*_{}\[\]()#+\-.!|>~<])"
    r"|(?P<code>(?P<ticks>`+)(?P<code_text>.+?)(?P=ticks))"
    r"|(?P<img>!\[(?P<img_alt>[^\]]*)\]\(\s*<?(?P<img_url>" + _URL + r")>?" + _TITLE + r"\))"
    r"|(?P<link>\[(?P<link_text>[^\]]+)\]\(\s*<?(?P<link_url>" + _URL + r")>?" + _TITLE + r"\))"
    r"|(?P<auto><(?P<auto_url>(?:https?://|mailto:)[^>\s]+)>)"
    r"|(?P<url>https?://[^\s<>\"]*[^\s<>\".,;:!?)\]'*_])"
    r"|(?P<strong>\*\*(?P<strong_a>\S(?:.*?\S)?)\*\*|__(?P<strong_b>\S(?:.*?\S)?)__)"
    r"|(?P<del>~~(?P<del_text>\S(?:.*?\S)?)~~)"
    r"|(?P<em>\*(?P<em_a>[^*\s](?:[^*]*?[^*\s])?)\*"
    r"|(?<![\w])_(?P<em_b>[^_\s](?:[^_]*?[^_\s])?)_(?![\w]))",
    re.S,
)
_SAFE_SCHEME = re.compile(r"^(?:https?://|mailto:)[^\s\x00-\x1f\"'<>`]+$", re.I)
_LINK_ATTRS = ' target="_blank" rel="noopener noreferrer nofollow"'


def safe_url(url: str) -> str | None:
    """``url`` when it is an absolute http(s) or mailto URL, else None."""
    url = url.strip()
    return url if _SAFE_SCHEME.match(url) else None


def _link(url: str, inner: str) -> str:
    return f'<a href="{escape(url)}"{_LINK_ATTRS}>{inner}</a>'


def render_inline(text: str) -> str:
    """Inline markdown of ``text`` as escaped HTML."""
    out: list[str] = []
    pos = 0
    for m in _INLINE.finditer(text):
        out.append(escape(text[pos : m.start()]))
        pos = m.end()
        kind = _kind(m)
        if kind == "esc":
            out.append(escape(m.group()[1]))
        elif kind == "code":
            out.append(f"<code>{escape(m.group('code_text').strip())}</code>")
        elif kind == "img":
            alt = "🖼 " + (m.group("img_alt") or "image")
            url = safe_url(m.group("img_url"))
            out.append(_link(url, escape(alt)) if url else escape(alt))
        elif kind == "link":
            url = safe_url(m.group("link_url"))
            inner = render_inline(m.group("link_text"))
            out.append(_link(url, inner) if url else inner)
        elif kind in ("auto", "url"):
            url = m.group("auto_url") or m.group("url")
            safe = safe_url(url)
            out.append(_link(safe, escape(url)) if safe else escape(m.group()))
        elif kind == "strong":
            out.append(
                f"<strong>{render_inline(m.group('strong_a') or m.group('strong_b'))}</strong>"
            )
        elif kind == "del":
            out.append(f"<del>{render_inline(m.group('del_text'))}</del>")
        else:
            out.append(f"<em>{render_inline(m.group('em_a') or m.group('em_b'))}</em>")
    out.append(escape(text[pos:]))
    return "".join(out)


def _kind(m: re.Match[str]) -> str:
    for name in ("esc", "code", "img", "link", "auto", "url", "strong", "del", "em"):
        if m.group(name) is not None:
            return name
    return "em"


def _table_row(line: str) -> list[str]:
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line)]


def _starts_block(line: str, next_line: str | None) -> bool:
    return bool(
        _FENCE.match(line)
        or _HEADING.match(line)
        or _RULE.match(line)
        or _QUOTE.match(line)
        or _ITEM.match(line)
        or ("|" in line and next_line is not None and _TABLE_RULE.match(next_line))
    )


def render_markdown(text: str) -> str:
    """Markdown ``text`` as safe HTML."""
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        if not line.strip():
            i += 1
        elif fence := _FENCE.match(line):
            mark, body = fence.group(1), []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(mark):
                body.append(lines[i])
                i += 1
            i += 1
            out.append(f"<pre><code>{escape(chr(10).join(body))}</code></pre>")
        elif heading := _HEADING.match(line):
            level = len(heading.group(1))
            out.append(f"<h{level}>{render_inline(heading.group(2))}</h{level}>")
            i += 1
        elif _RULE.match(line):
            out.append("<hr>")
            i += 1
        elif _QUOTE.match(line):
            body = []
            while i < len(lines) and (quoted := _QUOTE.match(lines[i])):
                body.append(quoted.group(1))
                i += 1
            out.append(f"<blockquote>{render_markdown(chr(10).join(body))}</blockquote>")
        elif item := _ITEM.match(line):
            i = _render_list(lines, i, len(item.group(1)), out)
        elif "|" in line and nxt is not None and _TABLE_RULE.match(nxt):
            head = "".join(f"<th>{render_inline(c)}</th>" for c in _table_row(line))
            rows = []
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                cells = "".join(f"<td>{render_inline(c)}</td>" for c in _table_row(lines[i]))
                rows.append(f"<tr>{cells}</tr>")
                i += 1
            out.append(
                f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            )
        else:
            para = [line.strip()]
            i += 1
            while i < len(lines) and lines[i].strip():
                following = lines[i + 1] if i + 1 < len(lines) else None
                if _starts_block(lines[i], following):
                    break
                para.append(lines[i].strip())
                i += 1
            out.append(f"<p>{render_inline(chr(10).join(para))}</p>")
    return "".join(out)


def _render_list(lines: list[str], i: int, indent: int, out: list[str]) -> int:
    first = _ITEM.match(lines[i])
    assert first is not None
    ordered = first.group(2)[0].isdigit()
    items: list[list[str]] = []
    while i < len(lines):
        line = lines[i]
        item = _ITEM.match(line)
        if item and len(item.group(1)) <= indent + 1:
            if item.group(2)[0].isdigit() != ordered:
                break
            items.append([item.group(3)])
        elif (
            line.strip()
            and items
            and (line.startswith(" " * (indent + 2)) or not _starts_block(line, None))
        ):
            items[-1].append(line[indent + 2 :] if line.startswith(" " * (indent + 2)) else line)
        elif (
            not line.strip() and i + 1 < len(lines) and lines[i + 1].startswith(" " * (indent + 2))
        ):
            items[-1].append("")
        else:
            break
        i += 1
    tag = "ol" if ordered else "ul"
    start = ""
    if ordered and (number := int(first.group(2)[:-1])) != 1:
        start = f' start="{number}"'
    rendered = []
    for body in items:
        html = render_markdown("\n".join(body))
        if html.startswith("<p>") and html.count("<p>") == 1:
            html = html[3:].replace("</p>", "", 1)
        rendered.append(f"<li>{html}</li>")
    out.append(f"<{tag}{start}>{''.join(rendered)}</{tag}>")
    return i
