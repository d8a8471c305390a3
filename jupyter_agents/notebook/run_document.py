"""The finished run as data, for the lab extension's renderer of saved notebooks.

A finished ``%%agent`` cell's output holds, beside the HTML and Markdown transcripts that every
frontend can show, :data:`MIME_TYPE`: the widget's final header and blocks, so JupyterLab with
the extension draws the same cards as the live view even without a kernel. The blocks are
compressed (gzip, then base64): tool cards repeat a lot, and a saved notebook should not grow
much for a second copy of the run. Everything in it is as untrusted as the run's own text; the
renderer sanitises it exactly as the live widget does.

Shape (version 1)::

    {"version": 1, "encoding": "gzip+base64", "data": "<base64 of gzip of JSON>"}

where the JSON is ``{"header": {...}, "blocks": [...]}`` in the widget's state format (see
``widget.py``).
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

__all__ = ["MIME_TYPE", "VERSION", "decode", "encode"]

MIME_TYPE = "application/vnd.jupyter-agents.run+json"
VERSION = 1


def encode(header: dict[str, Any], blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """The MIME bundle value for a finished run (deterministic for the same run)."""
    text = json.dumps({"header": header, "blocks": blocks}, separators=(",", ":"))
    packed = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
    return {
        "version": VERSION,
        "encoding": "gzip+base64",
        "data": base64.b64encode(packed).decode("ascii"),
    }


def decode(value: dict[str, Any]) -> dict[str, Any]:
    """The ``{"header", "blocks"}`` of a value made by :func:`encode`.

    Raises:
        ValueError: The value is not a version-1 run document.
    """
    if not isinstance(value, dict) or value.get("version") != VERSION:
        raise ValueError("not a version-1 jupyter-agents run document")
    if value.get("encoding") != "gzip+base64" or not isinstance(value.get("data"), str):
        raise ValueError("unknown run document encoding")
    document = json.loads(gzip.decompress(base64.b64decode(value["data"])))
    if not isinstance(document, dict) or not isinstance(document.get("blocks"), list):
        raise ValueError("a run document needs header and blocks")
    return document
