"""The finished run as data, for the lab extension's renderer of saved notebooks.

A finished ``%%agent`` cell's output holds, beside the HTML and Markdown transcripts that every
frontend can show, ``MIME_TYPE``: the widget's final header and blocks, so JupyterLab with
the extension draws the same cards as the live view even without a kernel. The blocks are
compressed (gzip, then base64): tool cards repeat a lot, and a saved notebook should not grow
much for a second copy of the run. Everything in it is as untrusted as the run's own text; the
renderer sanitises it exactly as the live widget does.

Shape (version 2)::

    {"version": 2, "encoding": "gzip+base64", "data": "<base64 of gzip of JSON>"}

where the JSON is ``{"header": {...}, "blocks": [...]}`` in the widget's state format (the types
in ``widget_state.py``), at most ``MAX_DECODED_BYTES`` long: a larger run is saved with its
HTML and Markdown transcripts only, and the renderer stops inflating a (crafted) larger one.

Version 1 (saved before tool cards had typed ``parts``) is the same envelope with version-1
cards (``output``, ``diff``, ``code``, ``image``, ``terminal``); the lab extension's reader
upgrades them to parts (``labextension/src/transcript/document.ts``), so old notebooks still
draw their cards.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Sequence
from typing import Any

from ...runtime.inflate import inflate_gzip
from ..view.widget_state import Block, Header
from . import transcript

__all__ = [
    "MAX_DECODED_BYTES",
    "MIME_TYPE",
    "READABLE",
    "VERSION",
    "decode",
    "encode",
    "final_output",
]

MIME_TYPE = "application/vnd.jupyter-agents.run+json"
VERSION = 2
"""The version ``encode`` writes."""

READABLE = (1, 2)
"""The versions ``decode`` (and the lab extension) read."""
MAX_DECODED_BYTES = 8 * 1024 * 1024
"""The most a run document inflates to (bytes of JSON); the lab extension has the same bound."""


def encode(header: dict[str, Any], blocks: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The MIME bundle value for a finished run (deterministic for the same run); None when
    the run is larger than ``MAX_DECODED_BYTES`` (its transcripts stand alone)."""
    raw = json.dumps({"header": header, "blocks": blocks}, separators=(",", ":")).encode("utf-8")
    if len(raw) > MAX_DECODED_BYTES:
        return None
    packed = gzip.compress(raw, compresslevel=9, mtime=0)
    return {
        "version": VERSION,
        "encoding": "gzip+base64",
        "data": base64.b64encode(packed).decode("ascii"),
    }


def final_output(
    header: Header,
    blocks: Sequence[Block],
    synced_header: dict[str, Any],
    synced_blocks: list[dict[str, Any]],
) -> dict[str, Any]:
    """The MIME bundle that replaces a finished run's widget: its transcripts (from the exact
    ``header`` and ``blocks``) and, for the lab extension, what the widget showed last.

    A widget view in a saved notebook renders as "model not found" once its kernel is gone
    (JupyterLab does not save widget state by default, and it does not fall back to the other
    formats), so the final output holds no widget.
    """
    data: dict[str, Any] = {
        "text/plain": transcript.summary_line(header, blocks),
        "text/html": transcript.to_html(header, blocks),
        "text/markdown": transcript.to_markdown(header, blocks),
    }
    document = encode(synced_header, synced_blocks)
    if document is not None:  # else too large to inflate safely: the transcripts stand alone
        data[MIME_TYPE] = document
    return data


def decode(value: dict[str, Any]) -> dict[str, Any]:
    """The ``{"header", "blocks"}`` of a value made by ``encode`` (or by a version that
    wrote version 1: its blocks are returned as they were saved).

    Raises:
        ValueError: The value is not a run document of a version in ``READABLE``.
    """
    if not isinstance(value, dict) or value.get("version") not in READABLE:
        raise ValueError("not a jupyter-agents run document of version 1 or 2")
    if value.get("encoding") != "gzip+base64" or not isinstance(value.get("data"), str):
        raise ValueError("unknown run document encoding")
    document = json.loads(
        inflate_gzip(base64.b64decode(value["data"]), MAX_DECODED_BYTES, "the run document")
    )
    if not isinstance(document, dict) or not isinstance(document.get("blocks"), list):
        raise ValueError("a run document needs header and blocks")
    return document
