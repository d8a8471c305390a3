"""What a model request is, for a recording: its identity (a hash of everything sent that could
change the answer) and the fields it was made of, to say what changed when a request no longer
matches its recording.

The fields: the model's name, the instructions, the input (the conversation so far, the
prompt after ``{expr}`` interpolation), the tools (name, description, schema), the output
schema, the handoffs, the settings, a stored prompt and the provider-side conversation. Input
items are compared as JSON, so a replayed reply (the same items) keeps later requests the same.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from typing import Any

from ..handoffs import Handoff
from ..models.interface import ModelRequest
from ..tools.capabilities import ToolCapabilities
from ..tracing.redact import redact_secrets

__all__ = ["changes", "plain", "request_identity", "value_identity"]

SHOWN_CHARS = 300
"""The longest text one change shows."""


def request_identity(request: ModelRequest, model: str) -> tuple[str, dict[str, Any]]:
    """The request's identity (hex digest) and the fields it hashes (secrets redacted, as in
    traces: a key in the prompt is not part of the identity, nor kept)."""
    fields: dict[str, Any] = {
        "model": model,
        "instructions": request.system_instructions,
        "input": plain(request.input),
        "tools": [_tool(tool) for tool in request.tools],
        "output_schema": _schema(request.output_schema),
        "handoffs": sorted(_handoff(h) for h in request.handoffs or []),
        "settings": _settings(request.model_settings),
        "prompt": plain(request.prompt),
        "previous_response_id": request.previous_response_id,
        "conversation_id": request.conversation_id,
    }
    fields = redact_secrets(fields)  # as recorded: a replayed, redacted output keeps its hash
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), fields


def value_identity(*parts: Any) -> str:
    """The identity (hex digest) of plain values, secrets redacted (a guardrail's input)."""
    text = json.dumps(redact_secrets(plain(list(parts))), sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def changes(recorded: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """One line per field that differs, with a short diff of text (what the header shows)."""
    lines = []
    for name in sorted(set(recorded) | set(now)):
        before, after = recorded.get(name), now.get(name)
        if before == after:
            continue
        if name == "input":
            lines.append(f"input: {_text_change(_texts(before), _texts(after))}")
        elif name == "tools":
            lines.append(f"tools: {_tools_change(before or [], after or [])}")
        elif isinstance(before, str) and isinstance(after, str):
            lines.append(f"{name}: {_text_change(before, after)}")
        else:
            lines.append(f"{name}: {_short(before)} → {_short(after)}")
    return lines


def plain(value: Any) -> Any:
    """JSON-able, for hashing (pydantic models dumped, tuples as lists)."""
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(mode="json", exclude_none=True))
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _tool(tool: ToolCapabilities) -> dict[str, Any]:
    schema = tool.params_json_schema
    return {
        "name": str(tool.name),
        "type": type(tool).__name__,
        "description": tool.description,
        "schema": plain(schema) if isinstance(schema, dict) else None,
        "strict": tool.strict_json_schema,
    }


def _handoff(handoff: Any) -> str:
    """A handoff by its tool name (a model given something else: as text)."""
    return handoff.tool_name if isinstance(handoff, Handoff) else str(handoff)


def _schema(output_schema: Any) -> Any:
    if output_schema is None:
        return None
    describe = getattr(output_schema, "json_schema", None)
    try:
        return plain(describe()) if callable(describe) else repr(output_schema)
    except Exception:
        return repr(output_schema)


UNHASHED_SETTINGS = frozenset({"extra_headers", "extra_query", "timeout", "retry"})
"""Settings that do not change the answer (and may hold keys): not part of the identity."""


def _settings(settings: Any) -> dict[str, Any]:
    to_dict = getattr(settings, "to_json_dict", None)
    raw = to_dict() if callable(to_dict) else {}
    return {k: plain(v) for k, v in raw.items() if v is not None and k not in UNHASHED_SETTINGS}


def _texts(items: Any) -> str:
    """The text of input items, one line each, for a readable diff."""
    if isinstance(items, str):
        return items
    lines = []
    for item in items if isinstance(items, list) else []:
        content = item.get("content") if isinstance(item, dict) else None
        if isinstance(content, str):
            lines.append(f"{item.get('role', item.get('type', '?'))}: {content}")
        elif isinstance(content, list):
            text = " ".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
            lines.append(f"{item.get('role', '?')}: {text}")
        elif isinstance(item, dict):
            lines.append(json.dumps(item, sort_keys=True, default=str))
    return "\n".join(lines)


def _text_change(before: str, after: str) -> str:
    diff = [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), n=0, lineterm="")
        if line[:1] in "+-" and not line.startswith(("---", "+++"))
    ]
    shown = " | ".join(diff) or "(whitespace)"
    return shown if len(shown) <= SHOWN_CHARS else shown[: SHOWN_CHARS - 1] + "…"


def _tools_change(before: list[Any], after: list[Any]) -> str:
    old = {t.get("name"): t for t in before if isinstance(t, dict)}
    new = {t.get("name"): t for t in after if isinstance(t, dict)}
    parts = [f"+{n}" for n in sorted(set(new) - set(old), key=str)]
    parts += [f"-{n}" for n in sorted(set(old) - set(new), key=str)]
    parts += [f"~{n}" for n in sorted(set(old) & set(new), key=str) if old[n] != new[n]]
    return " ".join(parts) or "(order)"


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:79] + "…"
