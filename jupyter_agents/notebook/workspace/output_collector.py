"""A cell's outputs built from the kernel's output messages, as a notebook frontend builds them:
``stream`` text joins the previous output of the same stream, ``clear_output`` empties the
list (with ``wait``, at the next output), ``update_display_data`` replaces every output shown
with its display id. The kernel keeps one for what a cell the agent runs showed (the model's
answer), the headless runner one for the cell it writes them into.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["OUTPUT_MESSAGES", "OutputCollector"]

OUTPUT_MESSAGES = frozenset(
    {"stream", "display_data", "execute_result", "error", "clear_output", "update_display_data"}
)
"""The message types that change a cell's outputs."""


class OutputCollector:
    """nbformat output dicts from output messages (thread-safe: the kernel flushes printed
    text on its own thread)."""

    def __init__(self) -> None:
        self._outputs: list[dict[str, Any]] = []
        self._displays: dict[str, list[int]] = {}
        self._clear_next = False
        self._lock = threading.Lock()

    @property
    def outputs(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(o) for o in self._outputs]

    def add(self, msg_type: str, content: Any) -> None:
        """Apply one message; anything malformed is skipped."""
        if not isinstance(content, dict):
            return
        with self._lock:
            if msg_type == "clear_output":
                if content.get("wait"):
                    self._clear_next = True
                else:
                    self._clear()
            elif msg_type == "update_display_data":
                self._update(content)
            elif msg_type in OUTPUT_MESSAGES:
                output = _output(msg_type, content)
                if output is not None:
                    if self._clear_next:
                        self._clear()
                    self._append(output, content)

    def _clear(self) -> None:
        self._outputs.clear()
        self._displays.clear()
        self._clear_next = False

    def _append(self, output: dict[str, Any], content: dict[str, Any]) -> None:
        last = self._outputs[-1] if self._outputs else None
        if (
            output["output_type"] == "stream"
            and last is not None
            and last["output_type"] == "stream"
            and last["name"] == output["name"]
        ):
            last["text"] += output["text"]
            return
        display = _display_id(content)
        if display is not None:
            self._displays.setdefault(display, []).append(len(self._outputs))
        self._outputs.append(output)

    def _update(self, content: dict[str, Any]) -> None:
        display = _display_id(content)
        data = content.get("data")
        if display is None or not isinstance(data, dict):
            return
        for index in self._displays.get(display, []):
            self._outputs[index]["data"] = data
            self._outputs[index]["metadata"] = _metadata(content)


def _display_id(content: dict[str, Any]) -> str | None:
    transient = content.get("transient")
    found = transient.get("display_id") if isinstance(transient, dict) else None
    return found if isinstance(found, str) else None


def _metadata(content: dict[str, Any]) -> dict[str, Any]:
    metadata = content.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _output(msg_type: str, content: dict[str, Any]) -> dict[str, Any] | None:
    if msg_type == "stream":
        name, text = content.get("name"), content.get("text")
        if name not in ("stdout", "stderr") or not isinstance(text, str):
            return None
        return {"output_type": "stream", "name": name, "text": text}
    if msg_type == "error":
        traceback = content.get("traceback")
        return {
            "output_type": "error",
            "ename": str(content.get("ename", "")),
            "evalue": str(content.get("evalue", "")),
            "traceback": [str(t) for t in traceback] if isinstance(traceback, list) else [],
        }
    data = content.get("data")
    if not isinstance(data, dict):
        return None
    output: dict[str, Any] = {"output_type": msg_type, "data": data, "metadata": _metadata(content)}
    if msg_type == "execute_result":
        count = content.get("execution_count")
        output["execution_count"] = count if isinstance(count, int) else None
    return output
