"""Prompt interpolation: ``{expression}`` in a ``%%agent`` cell becomes a readable summary.

``{{`` and ``}}`` stand for literal braces. Large values are summarised to a size limit:
DataFrames by shape, columns and head; long strings and sequences truncated with a note.
"""

from __future__ import annotations

import reprlib
from typing import Any

__all__ = ["PromptError", "interpolate", "summarize"]

MAX_CHARS = 2_000
"""Upper bound for one interpolated value."""
MAX_ITEMS = 20
"""Items shown from a long sequence or mapping."""


class PromptError(Exception):
    """An ``{expression}`` in the prompt could not be evaluated or is malformed."""


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (truncated: {len(text) - limit:,} more characters)"


def _frame_summary(value: Any, limit: int) -> str:
    rows, cols = value.shape[0], value.shape[1] if len(value.shape) > 1 else 1
    columns = ", ".join(str(c) for c in list(value.columns)[:MAX_ITEMS])
    if len(value.columns) > MAX_ITEMS:
        columns += f", … ({len(value.columns) - MAX_ITEMS} more)"
    head = value.head(5)
    try:
        table = head.to_markdown()
    except Exception:  # tabulate is optional for pandas
        table = head.to_string()
    text = f"{type(value).__name__} with {rows:,} rows × {cols} columns\ncolumns: {columns}\n"
    return _truncate(text + f"first rows:\n{table}", limit)


def summarize(value: Any, limit: int = MAX_CHARS) -> str:
    """A readable, size-limited text for ``value``."""
    if isinstance(value, str):
        return _truncate(value, limit)
    if hasattr(value, "shape") and hasattr(value, "columns") and hasattr(value, "head"):
        return _frame_summary(value, limit)
    shape = getattr(value, "shape", None)
    if shape is not None and hasattr(value, "dtype"):  # numpy-like arrays
        preview = _truncate(repr(value), limit // 2)
        return f"array of shape {tuple(shape)}, dtype {value.dtype}\n{preview}"
    if isinstance(value, (list, tuple, set, frozenset, dict)) and len(value) > MAX_ITEMS:
        short = reprlib.Repr()
        short.maxlist = short.maxtuple = short.maxset = short.maxdict = MAX_ITEMS
        short.maxstring = 80
        short.maxother = 80
        text = short.repr(value)
        return _truncate(f"{text} ({len(value):,} items; showing {MAX_ITEMS})", limit)
    return _truncate(repr(value) if not isinstance(value, (int, float)) else str(value), limit)


def interpolate(template: str, namespace: dict[str, Any]) -> str:
    """Replace every ``{expression}`` in ``template`` with its summarised value.

    Raises:
        PromptError: An expression fails or a brace is unbalanced; the message names it.
    """
    out: list[str] = []
    i, n = 0, len(template)
    while i < n:
        ch = template[i]
        if ch == "{" and template.startswith("{{", i):
            out.append("{")
            i += 2
        elif ch == "}" and template.startswith("}}", i):
            out.append("}")
            i += 2
        elif ch == "{":
            end = _closing(template, i)
            expression = template[i + 1 : end].strip()
            if not expression:
                raise PromptError("empty {} in the prompt; write {{ }} for literal braces")
            out.append(_evaluate(expression, namespace))
            i = end + 1
        elif ch == "}":
            raise PromptError("unmatched '}' in the prompt; write }} for a literal brace")
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _closing(template: str, start: int) -> int:
    depth = 0
    for j in range(start, len(template)):
        if template[j] == "{":
            depth += 1
        elif template[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    snippet = template[start : start + 30]
    raise PromptError(f"unclosed '{{' at {snippet!r}; write {{{{ for a literal brace")


def _evaluate(expression: str, namespace: dict[str, Any]) -> str:
    try:
        value = eval(expression, namespace)  # the user's own notebook namespace
    except SyntaxError as e:
        raise PromptError(f"in {{{expression}}}: invalid syntax ({e.msg})") from None
    except Exception as e:
        raise PromptError(f"in {{{expression}}}: {type(e).__name__}: {e}") from None
    return summarize(value)
