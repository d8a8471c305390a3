"""What an evaluation report, a comparison and a batch's progress leave in a saved notebook.

Each shows as a widget while its kernel runs, and a widget's view is all JupyterLab would
save: reopened without the kernel that holds its model, it reads "Error displaying widget: model
not found". So each of their outputs holds, beside the widget's view, a static form of what
the widget shows:

- a document for the lab extension (``EVAL_MIME_TYPE``, ``BATCH_MIME_TYPE``), which
  draws it with the widget's own code whenever the widget's model is not there (the kernel is
  gone or new, or the notebook came from someone else), and hands the output to the widget's
  view when it is (``labextension/src/savedforms/``);
- HTML, Markdown and plain text for every other frontend: nbconvert and nbviewer skip a widget
  view whose state was not saved and show the HTML.

A document is versioned and bounded like a saved run (``run_document.py``)::

    {"version": 1, "encoding": "gzip+base64", "data": "<base64 of gzip of JSON>"}

where the JSON is the widget's state: a report's or comparison's is ``ReportState``
(``labextension/src/evalreport/state.d.ts``, made by ``eval_view.py``), a batch's is
``BatchState`` (``labextension/src/savedforms/state.d.ts``). It inflates to at most
``MAX_DECODED_BYTES``: a report that would be larger is saved with shorter texts, then with
fewer cases (its ``total`` still counts them all), and the lab extension stops inflating a
(crafted) larger one. Everything in a document is as untrusted as the notebook that holds it:
the extension puts its text in text nodes and maps the values that pick CSS classes to known
ones, and the HTML and Markdown here escape every text.
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any, TypedDict

from ..._render import escape_html
from ...runtime.inflate import inflate_gzip

__all__ = [
    "BATCH_MIME_TYPE",
    "EVAL_MIME_TYPE",
    "MAX_DECODED_BYTES",
    "READABLE",
    "VERSION",
    "WIDGET_VIEW_MIME_TYPE",
    "BatchError",
    "BatchRow",
    "BatchState",
    "batch_bundle",
    "batch_html",
    "batch_markdown",
    "decode",
    "encode",
    "eval_bundle",
    "fit_report",
    "report_html",
    "report_markdown",
]

EVAL_MIME_TYPE = "application/vnd.jupyter-agents.eval+json"
"""An evaluation report's or a comparison's saved state (``ReportState``)."""
BATCH_MIME_TYPE = "application/vnd.jupyter-agents.batch+json"
"""A batch's progress, as last shown (``BatchState``)."""
WIDGET_VIEW_MIME_TYPE = "application/vnd.jupyter.widget-view+json"

VERSION = 1
"""The version ``encode`` writes."""
READABLE = (1,)
"""The versions ``decode`` (and the lab extension) read."""
MAX_DECODED_BYTES = 8 * 1024 * 1024
"""The most a document inflates to (bytes of JSON); the lab extension has the same bound."""

SHORT_TEXT = 500
"""Characters of each text of a report too large to save whole."""
HTML_CASES = 50
"""Cases in the HTML and Markdown forms of a report (the document has the rest)."""
HTML_TEXT = 160
"""Characters of one text in a table cell of the HTML and Markdown forms."""


class BatchRow(TypedDict):
    """One of the latest rows of a batch."""

    label: str
    """The row's label (its index label)."""
    status: str
    """``ok``, ``failed``, ``rejected``, ``waiting`` or ``pending``."""
    text: str
    """Its output, or its error (short, on one line)."""


class BatchError(TypedDict):
    """One of the latest errors of a batch."""

    label: str
    """The row's label."""
    text: str
    """The error (short, on one line)."""


class BatchState(TypedDict):
    """A batch's progress as its widget showed it last."""

    line: str
    """The progress line (``120/300 rows · 2 failed · ...``)."""
    finished: int
    """Rows finished (the bar's value)."""
    total: int
    """Rows in the batch."""
    outcome: str
    """``running``, ``done``, ``failed`` (done with failed rows) or ``stopped``."""
    latest: list[BatchRow]
    """The latest rows, newest first."""
    errors: list[BatchError]
    """The latest errors, newest first."""


# -- the document --------------------------------------------------------------------------


def encode(state: Any) -> dict[str, Any] | None:
    """The document holding ``state`` (deterministic for the same state); None when it would
    inflate to more than ``MAX_DECODED_BYTES``."""
    raw = json.dumps(state, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if len(raw) > MAX_DECODED_BYTES:
        return None
    packed = gzip.compress(raw, compresslevel=9, mtime=0)
    return {
        "version": VERSION,
        "encoding": "gzip+base64",
        "data": base64.b64encode(packed).decode("ascii"),
    }


def decode(value: Any) -> dict[str, Any]:
    """The state a document made by ``encode`` holds.

    Raises:
        ValueError: ``value`` is not a document of a version in ``READABLE``, or it
            inflates to more than ``MAX_DECODED_BYTES``.
    """
    if not isinstance(value, dict) or value.get("version") not in READABLE:
        raise ValueError("not a jupyter-agents saved form of version 1")
    if value.get("encoding") != "gzip+base64" or not isinstance(value.get("data"), str):
        raise ValueError("unknown saved form encoding")
    try:
        packed = base64.b64decode(value["data"], validate=True)
    except ValueError:
        raise ValueError("a saved form's data is not base64") from None
    state = json.loads(inflate_gzip(packed, MAX_DECODED_BYTES, "the saved form"))
    if not isinstance(state, dict):
        raise ValueError("a saved form holds a JSON object")
    return state


def fit_report(state: dict[str, Any]) -> dict[str, Any] | None:
    """The document of a report's (or comparison's) state, made to fit the bound: whole if it
    fits, else with every text cut to ``SHORT_TEXT`` characters, else with the first half
    of those cases, and so on (``total`` still counts every case, so the view says how many it
    shows). None only for a state whose other fields alone are too large."""
    document = encode(state)
    if document is not None:
        return document
    cases = [_short_case(case) for case in state.get("cases", [])]
    while True:
        document = encode({**state, "cases": cases})
        if document is not None or not cases:
            return document
        cases = cases[: len(cases) // 2]


def _short(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 1] + "…"
    return value


def _short_case(case: dict[str, Any]) -> dict[str, Any]:
    short = {key: _short(value, SHORT_TEXT) for key, value in case.items()}
    for key in ("scores", "scores_b"):
        cells = case.get(key) or {}
        short[key] = {
            name: {**cell, "reason": _short(cell.get("reason", ""), SHORT_TEXT)}
            for name, cell in cells.items()
        }
    short["tools"] = [
        {key: _short(value, SHORT_TEXT) for key, value in tool.items()}
        for tool in case.get("tools") or ()
    ]
    return short


# -- the bundles ---------------------------------------------------------------------------


def _view(model_id: str) -> dict[str, Any]:
    return {"version_major": 2, "version_minor": 0, "model_id": model_id}


def eval_bundle(state: dict[str, Any], text: str, model_id: str) -> dict[str, Any]:
    """The output of a report's (or comparison's) widget: its view, its saved form, and HTML,
    Markdown and ``text`` for other frontends."""
    data: dict[str, Any] = {
        "text/plain": text,
        "text/html": report_html(state),
        "text/markdown": report_markdown(state),
        WIDGET_VIEW_MIME_TYPE: _view(model_id),
    }
    document = fit_report(state)
    if document is not None:
        data[EVAL_MIME_TYPE] = document
    return data


def batch_bundle(state: BatchState, text: str, model_id: str) -> dict[str, Any]:
    """The output of a batch's progress widget: its view, its saved form, and HTML, Markdown
    and ``text`` for other frontends."""
    data: dict[str, Any] = {
        "text/plain": text,
        "text/html": batch_html(state),
        "text/markdown": batch_markdown(state),
        WIDGET_VIEW_MIME_TYPE: _view(model_id),
    }
    document = encode(state)  # a few short rows: always within the bound
    if document is not None:
        data[BATCH_MIME_TYPE] = document
    return data


# -- HTML and Markdown ---------------------------------------------------------------------

_STYLE = (
    "<style>.jupyter-agents-saved{border:1px solid var(--jp-border-color2,#d0d7de);border-radius"
    ":6px;padding:4px 12px;color:var(--jp-content-font-color1,inherit);font-size:var(--jp-conte"
    "nt-font-size1,14px)}.jupyter-agents-saved table{border-collapse:collapse;margin:4px 0}.jupy"
    "ter-agents-saved th,.jupyter-agents-saved td{padding:2px 8px;text-align:left;vertical-align"
    ":top;border-bottom:1px solid var(--jp-border-color2,#d0d7de)}.jupyter-agents-saved .ja-mute"
    "d{color:var(--jp-content-font-color2,#6e7781)}</style>"
)
"""Theme-following styles for the HTML forms (the Markdown forms go without)."""


def _cell(text: Any, limit: int = HTML_TEXT) -> str:
    flat = " ".join(str(text if text is not None else "").split())
    return escape_html(_short(flat, limit))


def _row(cells: list[str], tag: str = "td") -> str:
    return "<tr>" + "".join(f"<{tag}>{cell}</{tag}>" for cell in cells) + "</tr>"


def _average(value: Any, kind: str) -> str:
    if not isinstance(value, (int, float)):
        return "–"
    return f"{value * 100:.1f} %" if kind == "assertion" else f"{value:.3f}"


def _change(value: Any, kind: str) -> str:
    if not isinstance(value, (int, float)):
        return ""
    text = f"{value * 100:.1f} pt" if kind == "assertion" else f"{value:.3f}"
    return f"+{text}" if value > 0 else text


def _scorers_table(scorers: list[dict[str, Any]], compare: bool) -> str:
    head = ["Scorer", "A", "B", "Change"] if compare else ["Scorer", "Average"]
    rows = [_row(head, "th")]
    for s in scorers:
        kind = str(s.get("kind", ""))
        values = [_average(s.get("a"), kind)]
        if compare:
            values += [_average(s.get("b"), kind), _change(s.get("delta"), kind) or "±0"]
        rows.append(_row([_cell(s.get("name")), *(escape_html(v) for v in values)]))
    return f"<table>{''.join(rows)}</table>"


def _score(cells: Any, name: str) -> str:
    cell = cells.get(name) if isinstance(cells, dict) else None
    return str(cell.get("shown", "–")) if isinstance(cell, dict) else "–"


def _cases_table(state: dict[str, Any], compare: bool) -> str:
    scorers = [str(s.get("name", "")) for s in state.get("scorers", [])]
    head = ["Case", "Change" if compare else "Status", "Input", "Expected", "Output", *scorers]
    rows = [_row([_cell(h) for h in head], "th")]
    for case in state.get("cases", [])[:HTML_CASES]:
        output = case.get("output_b") if compare else case.get("output")
        if case.get("error"):
            output = f"⚠ {case.get('error')}"
        scores = [
            f"{_score(case.get('scores'), n)} → {_score(case.get('scores_b'), n)}"
            if compare
            else _score(case.get("scores"), n)
            for n in scorers
        ]
        cells = [case.get("name"), case.get("change" if compare else "status"), case.get("input")]
        cells += [case.get("expected"), output, *scores]
        rows.append(_row([_cell(c) for c in cells]))
    return f"<table>{''.join(rows)}</table>"


def _report_body(state: dict[str, Any]) -> str:
    compare = state.get("mode") == "compare"
    shown = min(len(state.get("cases", [])), HTML_CASES)
    counted = state.get("total")
    total = counted if isinstance(counted, int) else shown
    parts = [
        f"<p><b>{_cell(state.get('title') or 'Evaluation')}</b> · "
        f'<span class="ja-muted">{_cell(state.get("summary"))}</span></p>',
        _scorers_table(state.get("scorers", []), compare),
        _cases_table(state, compare),
    ]
    if shown < total:
        where = "compare(a, b).to_pandas()" if compare else "report.to_pandas()"
        parts.append(f'<p class="ja-muted">Showing {shown} of {total} cases: {where} has all.</p>')
    return "".join(parts)


def report_html(state: dict[str, Any]) -> str:
    """A report's (or comparison's) state as static HTML: every text escaped."""
    return f'<div class="jupyter-agents-saved">{_STYLE}{_report_body(state)}</div>'


def _inert(body: str) -> str:
    """``body`` (HTML of escaped text) as one inert HTML block on one line: no Markdown
    renderer parses anything inside it again."""
    return '<div class="jupyter-agents-saved">' + body.replace("\n", "&#10;") + "</div>\n"


def report_markdown(state: dict[str, Any]) -> str:
    """A report's (or comparison's) state as Markdown: its HTML as one inert block."""
    return _inert(_report_body(state))


def _batch_body(state: BatchState) -> str:
    rows = [_row(["row", "status", "output"], "th")]
    rows += [
        _row([_cell(row.get("label")), _cell(row.get("status")), _cell(row.get("text"))])
        for row in state.get("latest", [])
    ]
    parts = [f"<p><b>Batch</b> · {_cell(state.get('line'), 400)}</p>"]
    if len(rows) > 1:
        parts.append(f"<table>{''.join(rows)}</table>")
    errors = "".join(
        f"<li>{_cell(e.get('label'))}: {_cell(e.get('text'))}</li>" for e in state.get("errors", [])
    )
    if errors:
        parts.append(f"<p>Latest errors:</p><ul>{errors}</ul>")
    return "".join(parts)


def batch_html(state: BatchState) -> str:
    """A batch's progress as static HTML: every text escaped."""
    return f'<div class="jupyter-agents-saved">{_STYLE}{_batch_body(state)}</div>'


def batch_markdown(state: BatchState) -> str:
    """A batch's progress as Markdown: its HTML as one inert block."""
    return _inert(_batch_body(state))
