"""A scripted stand-in for a real model in the copilot notebook: it answers the chat, the Fix
of the notebook's failing cell and a Ctrl+I in its empty cell, so all three can be tried with
no key.

It reads the prompts the chat and the assists build (``notebook/chat/turn.py``,
``notebook/assists/prompt.py``) and answers by rules, the way a capable model would for that
notebook: it explains the active cell from its code, fixes a division by a count that can be
zero by skipping the zero counts, and writes a ranking or a total when asked. Anything else
gets a short note that it is a demo.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from .demo import since_last_prompt, tool_outputs
from .scripted import ReceivedRequest, ScriptedModel, text, tool_call

__all__ = ["copilot_model"]

_FIX = re.compile(r"^Fix cell \d+ of the notebook \(id (?P<id>[^,]+), version (?P<version>\w+)\)")
_WRITE = re.compile(
    r"^(?:Write|Rewrite) the code of cell \d+ of the notebook "
    r"\(id (?P<id>[^,]+), version (?P<version>\w+)\)"
)
_FENCED = r"\n(?P<marks>`{3,})\n(?P<body>.*?)\n(?P=marks)"
_SOURCE = re.compile(r"The cell's source:" + _FENCED, re.S)
_ASKS = re.compile(r"The person asks:" + _FENCED, re.S)
_ACTIVE = re.compile(r"The active cell \(cell (?P<n>\d+), id [^)]*\):" + _FENCED, re.S)
_VERSION = re.compile(r"\(version now (\w+)\)")
_DIVIDE_BY_COUNT = re.compile(r"(\w+)\[(\w+)\] for \2 in (\w+)\}")
"""``... / orders[city] for city in orders}``: a dict comprehension dividing by a count."""

DEMO_NOTE = (
    "I am the copilot notebook's scripted demo model, so I only know that notebook: select a "
    "cell and ask what it does, press Fix on its failing cell, or Ctrl+I in its empty cell and "
    "ask for a ranking or a total. Set OPENAI_API_KEY (or OPENAI_BASE_URL) to talk to a real "
    "model."
)


def _respond(request: ReceivedRequest) -> list[Any]:
    prompt, turn = since_last_prompt(request.input)
    outputs = tool_outputs(turn)
    fix = _FIX.match(prompt)
    if fix:
        return _fix(fix, prompt, outputs)
    write = _WRITE.match(prompt)
    if write:
        return _write(write, prompt, outputs)
    active = _ACTIVE.search(prompt)
    if active:
        source = active.group("body").removeprefix("source:\n").rsplit("\noutputs:\n", 1)[0]
        return [text(explain(source, int(active.group("n"))))]
    return [text(DEMO_NOTE)]


def _fix(found: re.Match[str], prompt: str, outputs: list[str]) -> list[Any]:
    cell = found.group("id")
    if not outputs:
        source = _SOURCE.search(prompt)
        fixed = _skip_zero_counts(source.group("body")) if source else None
        if fixed is None:
            return [text(DEMO_NOTE)]
        return [
            tool_call("edit_cell", {"id": cell, "version": found["version"], "new_source": fixed})
        ]
    if len(outputs) == 1:
        version = _VERSION.search(outputs[0])
        if version is None:
            return [text(f"The fix was not applied: {outputs[0]}")]
        return [tool_call("run_cells", {"cells": [{"id": cell, "version": version.group(1)}]})]
    if "error" in outputs[-1].lower():
        return [text(f"The cell still fails after the fix: {outputs[-1]}")]
    return [
        text(
            "Fixed: a city with no orders has no revenue per order, so the cell now skips "
            "those cities instead of dividing by zero. It ran again without error."
        )
    ]


def _skip_zero_counts(source: str) -> str | None:
    """``source`` with ``{... / n[k] for k in n}`` made to skip the keys whose count is 0."""
    found = _DIVIDE_BY_COUNT.search(source)
    if found is None or found.group(1) != found.group(3):
        return None
    counts, key = found.group(1), found.group(2)
    fixed = f"{counts}[{key}] for {key} in {counts} if {counts}[{key}]}}"
    return source[: found.start()] + fixed + source[found.end() :]


def _write(found: re.Match[str], prompt: str, outputs: list[str]) -> list[Any]:
    asked = _ASKS.search(prompt)
    wish = asked.group("body").lower() if asked else ""
    if not outputs:
        code = _code_for(wish)
        if code is None:
            return [text(DEMO_NOTE)]
        return [
            tool_call(
                "edit_cell", {"id": found["id"], "version": found["version"], "new_source": code}
            )
        ]
    if _VERSION.search(outputs[-1]) is None:
        return [text(f"The cell was not written: {outputs[-1]}")]
    return [text("Written: run the cell to see the result.")]


def _code_for(wish: str) -> str | None:
    if any(word in wish for word in ("rank", "sort", "order", "best", "top")):
        return "ranked = sorted(revenue.items(), key=lambda pair: pair[1], reverse=True)\nranked"
    if any(word in wish for word in ("total", "sum", "add")):
        return "total = sum(revenue.values())\ntotal"
    return None


def explain(source: str, number: int) -> str:
    """What cell ``number`` does, from its top-level assignments."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return f"Cell {number} is not valid Python yet, so I cannot say what it does."
    said = [
        _assignment(node.targets[0].id, node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    ]
    if not said:
        return f"Cell {number} assigns no variable at its top level. {DEMO_NOTE}"
    return f"Cell {number} " + "; ".join(said) + "."


def _assignment(name: str, value: ast.expr) -> str:
    if isinstance(value, ast.Dict):
        keys = [k.value for k in value.keys if isinstance(k, ast.Constant)]
        listed = ", ".join(str(k) for k in keys)
        return f"sets `{name}` to a dict of {len(value.keys)} entries ({listed})"
    if isinstance(value, ast.DictComp):
        return f"builds `{name}`, a dict computed for each key of another"
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div):
        return f"sets `{name}` to a division (it fails if the divisor is zero)"
    return f"sets `{name}`"


def copilot_model(delay: float = 0.02) -> ScriptedModel:
    """A ScriptedModel that plays a capable model for the copilot notebook's chat and assists."""
    return ScriptedModel(respond=_respond, delay=delay, chunk_size=3, name="demo-model")
