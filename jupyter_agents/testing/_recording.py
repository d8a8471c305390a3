"""The recorded-traffic format the replaying server serves, and the checks it makes.

A recording is one conversation with a provider: a JSON file holding where it comes from
(``origin``) and its exchanges, in order. Each exchange names the request expected (method,
path, and ``checks`` on its JSON body) and the response to serve, whose body is a file beside
the recording, served byte for byte: ``.json`` files as one body, ``.sse`` files as
server-sent events (one HTTP chunk per event, split at the blank lines)::

    {
      "origin": "https://api-docs.deepseek.com/guides/thinking_mode (the documented shape)",
      "exchanges": [
        {
          "request": {
            "method": "POST",
            "path": "/v1/chat/completions",
            "checks": [
              {"at": "messages.[role=assistant].reasoning_content", "present": true,
               "why": "DeepSeek wants the reasoning of a tool-call turn sent back"}
            ]
          },
          "response": {"status": 200, "body_file": "plain.1.json"},
          "on_mismatch": {"status": 400, "body_file": "error.json"}
        }
      ]
    }

A check's ``at`` is a dotted path into the request body: keys, list indices, ``*`` (every
element) and ``[key=value]`` (the elements whose ``key`` is ``value``). What it asks of the
values found there: ``equals`` (each equals the given JSON value), ``present`` / ``absent``,
``distinct`` (no two alike, none empty) or ``same_as`` (the same values as another path).
A request that fails a check is answered with ``on_mismatch`` (what the provider answers such
a request), and the failure is reported when the server stops.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Exchange", "Recording", "ServedResponse", "check_failures", "values_at"]

_MISSING: Any = object()


@dataclass(frozen=True)
class ServedResponse:
    """One HTTP response exactly as recorded."""

    status: int
    """The HTTP status."""

    headers: dict[str, str]
    """The response headers (``Content-Type`` included)."""

    body: bytes
    """The body, byte for byte."""

    events: bool
    """Whether the body is server-sent events (sent chunked, one chunk per event)."""


@dataclass(frozen=True)
class Exchange:
    """One request expected and the response recorded for it."""

    method: str
    """The request's HTTP method."""

    path: str
    """The request's path (no query)."""

    checks: list[dict[str, Any]]
    """What the request body must hold (see the module docstring)."""

    response: ServedResponse
    """What the provider answered."""

    on_mismatch: ServedResponse | None
    """What the provider answers a request that fails a check (None: a generic 400)."""


@dataclass(frozen=True)
class Recording:
    """One recorded conversation with a provider."""

    name: str
    """The recording's folder and file name (``deepseek/tools.json``)."""

    origin: str
    """Where its content comes from (a documentation page, or the documented shape)."""

    exchanges: list[Exchange] = field(default_factory=list)
    """The exchanges, in the order the client makes them."""

    @classmethod
    def load(cls, path: str | Path) -> Recording:
        """Read a recording and the body files it names (beside it)."""
        path = Path(path)
        data = json.loads(path.read_text(encoding="utf-8"))
        if not data.get("origin"):
            raise ValueError(f"{path}: a recording must say where it comes from ('origin').")
        exchanges = [_exchange(raw, path.parent) for raw in data["exchanges"]]
        return cls(f"{path.parent.name}/{path.name}", data["origin"], exchanges)


def _exchange(raw: dict[str, Any], folder: Path) -> Exchange:
    request = raw["request"]
    mismatch = raw.get("on_mismatch")
    return Exchange(
        method=request.get("method", "POST"),
        path=request["path"],
        checks=list(request.get("checks", [])),
        response=_served(raw["response"], folder),
        on_mismatch=_served(mismatch, folder) if mismatch is not None else None,
    )


def _served(raw: dict[str, Any], folder: Path) -> ServedResponse:
    name = raw["body_file"]
    events = name.endswith(".sse")
    content_type = "text/event-stream; charset=utf-8" if events else "application/json"
    headers = {"Content-Type": content_type, **raw.get("headers", {})}
    body = (folder / name).read_bytes()
    return ServedResponse(int(raw.get("status", 200)), headers, body, events)


def values_at(value: Any, path: str) -> list[Any]:
    """The values found at ``path`` in ``value`` (several through ``*`` or a filter; none when
    the path leads nowhere)."""
    found = [value]
    for step in path.split(".") if path else []:
        found = [inner for outer in found for inner in _step(outer, step)]
    return found


def _step(value: Any, step: str) -> list[Any]:
    if step == "*":
        return list(value) if isinstance(value, list) else []
    if step.startswith("[") and step.endswith("]"):
        key, _, wanted = step[1:-1].partition("=")
        items = value if isinstance(value, list) else []
        return [i for i in items if isinstance(i, dict) and str(i.get(key)) == wanted]
    if isinstance(value, list):
        index = int(step) if step.lstrip("-").isdigit() else None
        return [value[index]] if index is not None and -len(value) <= index < len(value) else []
    if isinstance(value, dict) and step in value:
        return [value[step]]
    return []


def check_failures(body: Any, checks: list[dict[str, Any]]) -> list[str]:
    """What ``body`` fails of ``checks``, one line each (empty: all hold)."""
    failures = []
    for check in checks:
        problem = _problem(body, check)
        if problem is not None:
            why = f" ({check['why']})" if check.get("why") else ""
            failures.append(f"{check['at']}: {problem}{why}")
    return failures


def _problem(body: Any, check: dict[str, Any]) -> str | None:
    found = values_at(body, check["at"])
    if check.get("absent"):
        return f"expected nothing, found {_short(found)}" if found else None
    if not found:
        return "missing"
    expected = check.get("equals", _MISSING)
    if expected is not _MISSING and any(value != expected for value in found):
        return f"expected {_short(expected)}, found {_short(found)}"
    if check.get("distinct"):
        plain = [json.dumps(value, sort_keys=True) for value in found]
        if len(set(plain)) != len(plain) or any(value in ("", None) for value in found):
            return f"expected distinct, non-empty values, found {_short(found)}"
    other = check.get("same_as")
    if other is not None and found != values_at(body, other):
        wanted = _short(values_at(body, other))
        return f"expected the values at {other} ({wanted}), found {_short(found)}"
    return None


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 300 else text[:300] + "..."
