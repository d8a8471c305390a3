"""Exporting traces to OpenAI's traces endpoint (the SDK's ``BackendSpanExporter``).

Nothing here runs unless you use it: no processor is registered by default, so nothing leaves
the process. To send traces to the OpenAI dashboard, as the SDK does by default::

    from jupyter_agents.tracing import add_trace_processor
    from jupyter_agents.tracing.processors import default_processor

    add_trace_processor(default_processor())  # BatchTraceProcessor(BackendSpanExporter())

The exporter posts ``{"data": [trace.export() or span.export(), ...]}`` with the key of each
item's trace (``trace(tracing={"api_key": ...})``), else its own (``api_key=``,
``set_api_key``, ``OPENAI_API_KEY``). For OpenAI's endpoint it leaves out what that endpoint
does not take: the reasoning of generation spans (assistant ``reasoning``/``thinking`` fields
and ``reasoning`` items), fields of more than 100 kB (cut, marked ``... [truncated]``), and usage
other than a generation's input and output tokens (the rest go under ``usage.details``). The
spans themselves are not changed. A failed post is retried with exponential backoff (server
errors, 408, 409, 429, network errors; ``Retry-After`` honoured; never when the server says
``x-should-retry: false``).
"""

from __future__ import annotations

import json
import math
import os
import random
import threading
import time
from collections.abc import Mapping, Sequence
from email.utils import parsedate_to_datetime
from typing import Any

import httpx2

from ..tracing_key import tracing_export_key
from .batch import BatchTraceProcessor, TracingExporter
from .logger import logger
from .spans import Span
from .traces import Trace

__all__ = [
    "BackendSpanExporter",
    "ConsoleSpanExporter",
    "default_exporter",
    "default_processor",
]

OPENAI_TRACES_ENDPOINT = "https://api.openai.com/v1/traces/ingest"
_MAX_FIELD_BYTES = 100_000
_CUT = "... [truncated]"
_RETRY_STATUSES = frozenset({408, 409, 429})
_REASONING_KEYS = ("reasoning", "reasoning_content", "thinking_blocks", "thinking")
_THINKING_PARTS = ("thinking", "redacted_thinking")


class BackendSpanExporter(TracingExporter):
    """Posts traces and spans to OpenAI's traces endpoint (or ``endpoint``), over HTTP.

    Args:
        api_key: The key for the ``Authorization`` header (default: ``OPENAI_API_KEY``).
        organization: Sent as ``OpenAI-Organization`` (default: ``OPENAI_ORG_ID``).
        project: Sent as ``OpenAI-Project`` (default: ``OPENAI_PROJECT_ID``).
        endpoint: Where to post.
        max_retries: Attempts per batch at most.
        base_delay: Seconds before the first retry (doubled each time, with 10% jitter).
        max_delay: The longest wait between attempts.
    """

    def __init__(
        self,
        api_key: str | None = None,
        organization: str | None = None,
        project: str | None = None,
        endpoint: str = OPENAI_TRACES_ENDPOINT,
        max_retries: int = 3,
        base_delay: float = 1.0,
        max_delay: float = 30.0,
    ) -> None:
        self._api_key = api_key
        self._organization = organization
        self._project = project
        self.endpoint = endpoint
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._closing = threading.Event()
        self._client = httpx2.Client(timeout=httpx2.Timeout(timeout=60, connect=5.0))

    def set_api_key(self, api_key: str) -> None:
        """Use ``api_key`` (an empty one falls back to ``OPENAI_API_KEY`` again)."""
        self._api_key = api_key

    @property
    def api_key(self) -> str | None:
        """The key used for items whose trace has none: the one set, else the default OpenAI
        client's (``set_default_openai_client(client, use_for_tracing=True)``), else
        ``OPENAI_API_KEY``."""
        key = self._api_key or tracing_export_key()
        if not key:
            key = os.environ.get("OPENAI_API_KEY")
            if key:
                self._api_key = key
        return key

    @api_key.setter
    def api_key(self, api_key: str | None) -> None:
        self._api_key = api_key

    @property
    def organization(self) -> str | None:
        """The ``OpenAI-Organization`` header, if any."""
        return self._organization or os.environ.get("OPENAI_ORG_ID")

    @property
    def project(self) -> str | None:
        """The ``OpenAI-Project`` header, if any."""
        return self._project or os.environ.get("OPENAI_PROJECT_ID")

    def export(self, items: list[Trace | Span[Any]]) -> None:
        """Post ``items``, one request per tracing key; items with no key at all are skipped
        (with a warning)."""
        groups: dict[str | None, list[Trace | Span[Any]]] = {}
        for item in items:
            groups.setdefault(item.tracing_api_key, []).append(item)
        for key, group in groups.items():
            api_key = key or self.api_key
            if not api_key:
                logger.warning("OPENAI_API_KEY is not set, skipping trace export")
                continue
            data = [self._payload(r) for r in (item.export() for item in group) if r]
            self._post({"data": data}, self._headers(api_key), len(group))

    def close(self) -> None:
        """Stop retrying and close the HTTP client."""
        self._closing.set()
        self._client.close()

    def shutdown(self) -> None:
        """The same as ``close``."""
        self.close()

    # -- the request ---------------------------------------------------------------------

    def _headers(self, api_key: str) -> dict[str, str]:
        headers = {
            "Authorization": f"Bearer {api_key}",
            "Content-Type": "application/json",
            "OpenAI-Beta": "traces=v1",
        }
        if self.organization:
            headers["OpenAI-Organization"] = self.organization
        if self.project:
            headers["OpenAI-Project"] = self.project
        return headers

    def _post(self, payload: dict[str, Any], headers: dict[str, str], count: int) -> None:
        delay = self.base_delay
        for attempt in range(1, max(1, self.max_retries) + 1):
            wait: float | None = None
            try:
                response = self._client.post(url=self.endpoint, headers=headers, json=payload)
            except httpx2.RequestError as error:
                logger.warning("[non-fatal] Tracing request failed: %s", type(error).__name__)
            else:
                status = response.status_code
                if status < 300:
                    logger.debug("Exported %s items", count)
                    return
                if not _may_retry(response):
                    logger.error("[non-fatal] Tracing: server forbade retry for %s.", status)
                    return
                if 400 <= status < 500 and status not in _RETRY_STATUSES:
                    logger.error("[non-fatal] Tracing client error %s", status)
                    return
                logger.warning("[non-fatal] Tracing: error %s, retrying.", status)
                wait = _server_wait(response)
            if attempt >= self.max_retries:
                logger.error("[non-fatal] Tracing: max retries reached, giving up on this batch.")
                return
            pause = delay + random.uniform(0, 0.1 * delay)
            if wait is not None:
                pause = min(max(pause, wait), self.max_delay)
            if self._closing.wait(pause):
                return
            delay = min(delay * 2, self.max_delay)

    # -- what OpenAI's endpoint takes ----------------------------------------------------

    def _payload(self, record: dict[str, Any]) -> dict[str, Any]:
        if self.endpoint.rstrip("/") == OPENAI_TRACES_ENDPOINT:
            record = _for_openai(record)
        try:
            json.dumps(record, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError):
            logger.warning("[non-fatal] Tracing: sanitizing values that can't be sent as JSON.")
            record = _json_safe(record)
        return record


def _json_safe(value: Any) -> Any:
    """``value`` as JSON can carry it: non-finite numbers as ``None``, unknown objects as
    ``str()``, strings that UTF-8 cannot encode with ``?``."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, Mapping):
        return {str(_json_safe(k)): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return _json_safe(str(value))


class ConsoleSpanExporter(TracingExporter):
    """Prints each trace (its id and name) and each span (its export) to standard output."""

    def export(self, items: list[Trace | Span[Any]]) -> None:
        for item in items:
            if isinstance(item, Trace):
                print(f"[Exporter] Export trace_id={item.trace_id}, name={item.name}")
            else:
                print(f"[Exporter] Export span: {item.export()}")


def _may_retry(response: httpx2.Response) -> bool:
    flag = response.headers.get("x-should-retry")
    return not (isinstance(flag, str) and flag.strip().lower() == "false")


def _server_wait(response: httpx2.Response) -> float | None:
    """Seconds the server asked to wait: ``retry-after-ms``, else ``Retry-After`` (seconds or
    an HTTP date)."""
    millis = _number(response.headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = response.headers.get("retry-after")
    seconds = _number(value)
    if seconds is not None or value is None:
        return seconds
    try:
        return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError, IndexError):
        return None


def _number(value: str | None) -> float | None:
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    return number if number is not None and math.isfinite(number) and number >= 0 else None


def _for_openai(record: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``record`` (only where it changes) fit for OpenAI's traces endpoint."""
    data = record.get("span_data")
    if not isinstance(data, dict):
        return record
    new = dict(data)
    for name in ("input", "output"):
        if name in new:
            value = new[name]
            if new.get("type") == "generation":
                value = _without_reasoning(value)
            new[name] = _cut(value)
    if new.get("type") == "generation" and isinstance(new.get("usage"), dict):
        usage = _usage(new["usage"])
        if usage is None:
            new.pop("usage")
        else:
            new["usage"] = usage
    else:
        new.pop("usage", None)
    return {**record, "span_data": new}


def _without_reasoning(value: Any) -> Any:
    """Generation messages without the assistant's reasoning (only the message shapes the
    models write are looked at, never the content of tool calls or user data)."""
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes, bytearray)):
        return value

    def message(item: Any) -> Any:
        if not isinstance(item, Mapping):
            return item
        item = dict(item)
        if item.get("role") == "assistant":
            for key in _REASONING_KEYS:
                item.pop(key, None)
            content = item.get("content")
            if isinstance(content, list):
                item["content"] = [
                    p
                    for p in content
                    if not (isinstance(p, dict) and p.get("type") in _THINKING_PARTS)
                ]
        return item

    def items(values: Sequence[Any]) -> list[Any]:
        kept = (v for v in values if not (isinstance(v, Mapping) and v.get("type") == "reasoning"))
        return [message(v) for v in kept]

    return [
        {**v, "output": items(v["output"])}
        if isinstance(v, Mapping)
        and v.get("object") == "response"
        and isinstance(v.get("output"), list)
        else v
        for v in items(value)
    ]


def _size(value: Any) -> int:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return _MAX_FIELD_BYTES + 1
    return len(text.encode("utf-8", "replace"))


def _cut(value: Any, budget: int = _MAX_FIELD_BYTES) -> Any:
    """``value`` within ``budget`` bytes of JSON: long strings cut (with a marker), the
    largest members of lists and dicts cut first, dropped when they cannot fit."""
    if _size(value) <= budget:
        return value
    if isinstance(value, str):
        room = max(0, budget - _size(_CUT))
        keep = len(value) * room // max(_size(value), 1)
        while keep > 0 and _size(value[:keep] + _CUT) > budget:
            keep = keep * 9 // 10
        return value[:keep] + _CUT if keep > 0 else ""
    if isinstance(value, (list, tuple, dict)):
        pairs = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        order = sorted(range(len(pairs)), key=lambda i: -_size(pairs[i][1]))
        kept: dict[int, Any] = dict(enumerate(v for _, v in pairs))
        for index in order:
            shape = (
                {pairs[i][0]: kept[i] for i in kept}
                if isinstance(value, dict)
                else [kept[i] for i in sorted(kept)]
            )
            total = _size(shape)
            if total <= budget:
                break
            child = kept[index]
            smaller = _cut(child, max(0, budget - (total - _size(child))))
            if smaller == child or _size(smaller) >= _size(child):
                del kept[index]
            else:
                kept[index] = smaller
        if isinstance(value, dict):
            return {pairs[i][0]: kept[i] for i in sorted(kept)}
        return [kept[i] for i in sorted(kept)]
    return {"truncated": True, "original_type": type(value).__name__, "preview": str(value)[:200]}


def _usage(usage: dict[str, Any]) -> dict[str, Any] | None:
    """A generation's usage as OpenAI's endpoint takes it: input and output tokens, the rest
    under ``details``; ``None`` without both token counts."""

    def number(value: Any) -> bool:
        return (
            isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        )

    if not (number(usage.get("input_tokens")) and number(usage.get("output_tokens"))):
        return None
    details = dict(usage["details"]) if isinstance(usage.get("details"), dict) else {}
    for key, value in usage.items():
        if key not in ("input_tokens", "output_tokens", "details") and value is not None:
            details[str(key)] = value
    result: dict[str, Any] = {
        "input_tokens": usage["input_tokens"],
        "output_tokens": usage["output_tokens"],
    }
    if details:
        result["details"] = details
    return result


_default_exporter: BackendSpanExporter | None = None
_default_processor: BatchTraceProcessor | None = None
_defaults_lock = threading.Lock()


def default_exporter() -> BackendSpanExporter:
    """The shared ``BackendSpanExporter`` (made on first use; ``set_tracing_export_api_key``
    sets its key). Not in use unless you register ``default_processor()``."""
    global _default_exporter
    with _defaults_lock:
        if _default_exporter is None:
            _default_exporter = BackendSpanExporter()
        return _default_exporter


def default_processor() -> BatchTraceProcessor:
    """A shared ``BatchTraceProcessor`` over ``default_exporter()``: register it
    (``add_trace_processor``) to send traces to OpenAI."""
    global _default_processor
    exporter = default_exporter()
    with _defaults_lock:
        if _default_processor is None:
            _default_processor = BatchTraceProcessor(exporter)
        return _default_processor
