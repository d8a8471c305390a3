"""What is in the notebook's namespace, as a model reads it: one line per variable
(``list_variables``) and a capped description of one (``inspect_variable``).

Tables and arrays are described by their shape, columns, types, null counts and a few rows:
pandas and polars DataFrames (and Series), numpy arrays, pyarrow tables and record batches. Lazy
values stay lazy: a polars ``LazyFrame`` and a DuckDB relation are described by their columns,
never computed. Libraries are recognised by their classes' modules, so describing a namespace
never imports pandas, polars, pyarrow or DuckDB.

These tools never ask, so they never show a secret: a variable whose name says secret is
described without its value; entries, fields and columns whose names say secret (in any
mapping, dataclass, attrs class, pydantic model, named tuple, table) are shown as
``[redacted]``; keys of well-known shapes, private keys and URL passwords are replaced in every
text (``runtime/tracing/redact.py``, the rules traces and recordings use). And they never
format a whole value: a text is cut before it is redacted and quoted, a container shows its
first entries and levels, a table its first rows, so a 290 MB string or a list of ten million
items costs what a short one does.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import itertools
import re
import types
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence, Set, ValuesView
from dataclasses import dataclass
from typing import Any, Literal

from ...runtime.tracing.redact import REDACTED, is_secret_name, redact_assignments, redact_text

__all__ = ["HIDDEN_NAMES", "Variable", "inspect_variable", "list_variables"]

HIDDEN_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython", "open"})
"""Names IPython and ipykernel put in every namespace."""

MAX_COLUMNS = 40
"""Columns described one by one; the rest are counted."""

PREVIEW_ROWS = 5

MAX_ITEMS = 20
"""Entries of a list, mapping or record shown; the rest are counted."""

MAX_DEPTH = 3
"""Levels of nesting shown; deeper ones are ``…``."""

TEXT_CHARS = 400
"""The longest text (or another value's own repr) shown inside a container."""

SUMMARY_CHARS = 60
"""The longest text shown in a ``list_variables`` line."""

CELL_CHARS = 40
"""The longest text shown in a table's cell."""


@dataclass(frozen=True)
class Variable:
    """One line of ``list_variables``."""

    name: str
    type: str
    summary: str


def list_variables(namespace: Mapping[str, Any], *, limit: int = 200) -> list[Variable]:
    """The namespace's variables, sorted by name, at most ``limit``: not modules, functions
    and classes imported from them (only those defined in the notebook), IPython's own names
    or ``_private`` ones."""
    found = []
    for name in sorted(namespace):
        value = namespace[name]
        if name.startswith("_") or name in HIDDEN_NAMES or _imported(value):
            continue
        try:
            summary = _secret_summary(value) if _secret(name, value) else _summary(value)
        except Exception:  # a broken object does not hide the others
            summary = "could not be described"
        found.append(Variable(name, _type_name(value), redact_text(summary)))
        if len(found) >= limit:
            break
    return found


def inspect_variable(namespace: Mapping[str, Any], name: str, *, max_chars: int = 6000) -> str:
    """A description of ``namespace[name]`` cut at ``max_chars``; for a name that is not there,
    one line naming the closest ones."""
    if name not in namespace:
        names = [n for n in namespace if not n.startswith("_") and n not in HIDDEN_NAMES]
        close = difflib.get_close_matches(name, names, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        return f"No variable named {name!r} in the notebook.{hint} (list_variables shows them.)"
    value = namespace[name]
    if _secret(name, value):
        return (
            f"{name}: {_type_name(value)}{_size(value)}: not shown, its name says it holds a "
            "secret (rename it if it does not)."
        )
    describe = _describer(value)
    try:
        text = describe(value) if describe is not None else _other(value, max_chars)
    except Exception as e:  # a broken object: its type, and why it could not be described
        text = f"{_type_name(value)} (could not be described: {type(e).__name__}: {e})"
    text = redact_text(f"{name}: {text}")  # bounded by now: every part was cut before
    if len(text) > max_chars:
        text = f"{_cut(text, max_chars)}\n… more characters cut (the first {max_chars:,} shown)"
    return text


# -- secrets: these tools never ask, so they never show one -------------------------------------


def _secret(name: str, value: Any) -> bool:
    """A variable whose name says it is a secret (``OPENAI_API_KEY``, ``PGPASSWORD``,
    ``db_credentials``), unless it holds a number or a function (``token_count``,
    ``get_token``): those are not what a name like that warns of."""
    plain = value is None or isinstance(value, (bool, int, float, complex))
    code = inspect.isroutine(value) or isinstance(value, type)
    return not plain and not code and is_secret_name(name)


def _secret_summary(value: Any) -> str:
    if isinstance(value, (str, bytes, bytearray)):
        return f"{len(value):,} characters: {REDACTED}"
    return f"{_size(value).lstrip(', ')}: {REDACTED}" if _size(value) else REDACTED


def _size(value: Any) -> str:
    """``, 12 characters`` or ``, 3 items`` for a value that has a length; else nothing."""
    try:
        length = len(value)
    except Exception:  # no length, or a broken one
        return ""
    unit = "characters" if isinstance(value, (str, bytes, bytearray)) else "items"
    return f", {length:,} {unit}"


def _secret_key(key: Any) -> bool:
    """Whether a mapping's key or a field's name says its value is a secret."""
    if isinstance(key, str):
        return is_secret_name(key[:200])
    if isinstance(key, bytes):
        return is_secret_name(key[:200].decode("utf-8", "replace"))
    if isinstance(key, tuple):  # a MultiIndex column, a composite key
        return any(_secret_key(part) for part in key[:8])
    return False


_CUT_WORD = re.compile(r"[^\s'\"(),\[\]{}<>]{1,201}\Z")
"""The end of a word that a cut splits."""


def _cut(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text`` without the word the cut splits, which could
    be the start of a key too short to be recognised by its shape: a whole word of up to 200
    characters (a URL's password too), else its last 48 (more than any key shape's shortest
    match, so a longer piece of a key is still recognised, and redacted). A ``[redacted]``
    the cut splits is kept whole."""
    if len(text) <= limit:
        return text
    at = text.find(REDACTED, max(limit - len(REDACTED) + 1, 0), limit + len(REDACTED))
    if 0 <= at < limit:
        limit = at + len(REDACTED)
    head = text[:limit]
    if limit >= len(text) or text[limit].isspace() or head.endswith(REDACTED):
        return head
    word = _CUT_WORD.search(head[-201:])
    length = len(word.group()) if word else 0
    return head[: len(head) - (length if length <= 200 else 48)]


def _excerpt(text: str, limit: int) -> str:
    """``text`` with its secrets replaced (keys, private keys, URL passwords and values given
    to secret names), cut at about ``limit`` characters; only a little more of it is read, so
    that a key the limit splits is replaced whole."""
    window = _cut(text, limit + 256)
    shown = redact_assignments(redact_text(window))
    cut = _cut(shown, limit)
    return cut if len(window) == len(text) and len(cut) == len(shown) else f"{cut}…"


# -- one line ----------------------------------------------------------------------------------


def _imported(value: Any) -> bool:
    """A module, or a function or class a module defined (``from x import y``)."""
    if isinstance(value, types.ModuleType):
        return True
    function = inspect.isroutine(value) or type(value).__name__ == "ufunc"  # np.sqrt is one
    if isinstance(value, type) or function:
        return getattr(value, "__module__", None) != "__main__"
    return False


def _type_name(value: Any) -> str:
    cls = type(value)
    module = cls.__module__.split(".")[0]
    return cls.__name__ if module in ("builtins", "__main__") else f"{module}.{cls.__name__}"


def _summary(value: Any) -> str:
    kind = _library_kind(value)
    if kind is not None:
        return _LINES[kind](value)
    if value is None or isinstance(value, (bool, int, float, complex)):
        return _excerpt(repr(value), SUMMARY_CHARS)
    if isinstance(value, (str, bytes, bytearray)):
        return f"{len(value):,} characters: {_text_repr(value, SUMMARY_CHARS)}"
    if isinstance(value, (list, tuple, set, frozenset, Mapping, deque)):
        return f"{len(value):,} items"
    if callable(value):
        return _signature(value)
    return ""  # the type says it all


class _Shown:
    """What a default shows in a signature: its bounded, redacted repr."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _signature(value: Callable[..., Any]) -> str:
    """``name(parameters)``, each default shown bounded, a secret-named one redacted."""
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return "callable"
    parameters = [
        p
        if p.default is p.empty
        else p.replace(default=_Shown(REDACTED if _secret_key(p.name) else _short(p.default)))
        for p in signature.parameters.values()
    ]
    return f"{getattr(value, '__name__', 'callable')}{signature.replace(parameters=parameters)}"


def _library_kind(value: Any) -> str | None:
    """Which table or array class ``value`` is, by its class's module (nothing imported)."""
    cls = type(value)
    module, name = cls.__module__.split(".")[0], cls.__name__
    if module == "pandas" and name in ("DataFrame", "Series"):
        return f"pandas.{name}"
    if module == "numpy" and name == "ndarray":
        return "numpy.ndarray"
    if module == "polars" and name in ("DataFrame", "Series", "LazyFrame"):
        return f"polars.{name}"
    if module == "pyarrow" and name in ("Table", "RecordBatch"):
        return "pyarrow.Table"
    if module in ("duckdb", "_duckdb") and name == "DuckDBPyRelation":
        return "duckdb.relation"
    return None


def _rows_by_columns(value: Any) -> str:
    rows, columns = value.shape
    return f"{rows:,} rows x {columns:,} columns"


_LINES: dict[str, Callable[[Any], str]] = {
    "pandas.DataFrame": _rows_by_columns,
    "pandas.Series": lambda s: f"{len(s):,} values ({s.dtype})",
    "numpy.ndarray": lambda a: f"shape {'x'.join(map(str, a.shape)) or 'scalar'}, {a.dtype}",
    "polars.DataFrame": _rows_by_columns,
    "polars.Series": lambda s: f"{len(s):,} values ({s.dtype})",
    "polars.LazyFrame": lambda _: "lazy: not computed",
    "pyarrow.Table": lambda t: f"{t.num_rows:,} rows x {t.num_columns:,} columns",
    "duckdb.relation": lambda r: f"lazy: {len(r.columns):,} columns, not computed",
}


# -- any value, bounded and redacted -----------------------------------------------------------


@dataclass(frozen=True)
class _Parts:
    """How a container is shown: ``open``, its first entries, ``close``."""

    kind: Literal["items", "mapping", "record"]
    """Items shown alone, ``key: value`` entries, or ``name=value`` fields."""
    open: str
    close: str
    total: int
    """How many entries it has (the ones not shown are counted)."""
    entries: Iterable[Any]
    """Its entries, read lazily: items, or ``(key, value)`` pairs."""


class _Repr:
    """A repr made from the outside in, never of a whole value: at most ``items`` entries of a
    container, ``MAX_DEPTH`` levels, ``text`` characters of a text, and about ``budget``
    characters in all; secret-named entries redacted, and every text's secrets."""

    def __init__(self, budget: int, text: int = TEXT_CHARS, items: int = MAX_ITEMS) -> None:
        self.left = budget
        self.text = text
        self.items = items
        self.open: set[int] = set()
        """The containers being shown (one inside itself is shown as ``…``)."""

    def show(self, value: Any, depth: int = MAX_DEPTH) -> str:
        """``value`` shown with ``depth`` levels of nesting."""
        parts = _parts(value)
        if parts is None:
            shown = _leaf(value, self.text)
            self.left -= len(shown)
            return shown
        if depth <= 0 or id(value) in self.open or self.left <= 0:
            return f"{parts.open}…{parts.close.lstrip(',')}"
        self.open.add(id(value))
        try:
            shown_entries = self._entries(parts, depth - 1)
        finally:
            self.open.discard(id(value))
        more = parts.total - len(shown_entries)
        if more > 0:
            shown_entries.append(f"… {more:,} more")
        return f"{parts.open}{', '.join(shown_entries)}{parts.close}"

    def _entries(self, parts: _Parts, depth: int) -> list[str]:
        shown = []
        for entry in itertools.islice(parts.entries, self.items):
            if self.left <= 0:
                break
            shown.append(self._entry(parts.kind, entry, depth))
        return shown

    def _entry(self, kind: str, entry: Any, depth: int) -> str:
        if kind == "items":
            return self.show(entry, depth)
        key, value = entry
        shown = REDACTED if _secret_key(key) else self.show(value, depth)
        if kind == "mapping":
            return f"{self.show(key, 1)}: {shown}"
        return f"{key}={shown}"


def _short(value: Any) -> str:
    """A repr of a line's size (a default, a table's row or cell)."""
    return _Repr(TEXT_CHARS, text=SUMMARY_CHARS, items=6).show(value, depth=2)


def _parts(value: Any) -> _Parts | None:
    """How ``value`` is shown if it is a container or a record; None for anything else."""
    if isinstance(value, Mapping):
        return _mapping_parts(value)
    fields = _record_fields(value)
    if fields is not None:
        return _Parts("record", f"{type(value).__name__}(", ")", len(fields), _read(value, fields))
    if isinstance(value, (str, bytes, bytearray, range, memoryview)):
        return None
    if isinstance(value, (Sequence, Set, ValuesView, deque)):
        return _Parts("items", *_brackets(value), len(value), value)
    return None


def _mapping_parts(value: Mapping[Any, Any]) -> _Parts:
    if type(value) is dict:
        return _Parts("mapping", "{", "}", len(value), value.items())
    return _Parts("mapping", f"{type(value).__name__}({{", "})", len(value), value.items())


_BRACKETS: dict[type, tuple[str, str]] = {
    list: ("[", "]"),
    tuple: ("(", ")"),
    set: ("{", "}"),
    frozenset: ("frozenset({", "})"),
}


def _brackets(value: Any) -> tuple[str, str]:
    kind = type(value)
    if kind is tuple and len(value) == 1:
        return "(", ",)"
    if kind is set and not value:
        return "set(", ")"
    return _BRACKETS.get(kind) or (f"{kind.__name__}([", "])")


def _record_fields(value: Any) -> list[str] | None:
    """The fields a dataclass, attrs class, pydantic model, named tuple or namespace shows in
    its repr; None for other values."""
    cls = type(value)
    if isinstance(value, type):
        return None
    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls) if f.repr]
    if hasattr(cls, "__attrs_attrs__"):
        return [a.name for a in cls.__attrs_attrs__ if a.repr is not False]
    fields = getattr(cls, "__pydantic_fields__", None)  # pydantic 2
    if isinstance(fields, dict):
        extra = getattr(value, "__pydantic_extra__", None) or {}
        return [n for n, f in fields.items() if getattr(f, "repr", True)] + list(extra)
    fields = getattr(cls, "__fields__", None)  # pydantic 1 (and pydantic.v1)
    if isinstance(fields, dict) and hasattr(cls, "__config__"):
        return [str(name) for name in fields]
    if isinstance(value, tuple) and isinstance(getattr(cls, "_fields", None), tuple):
        return [str(name) for name in cls._fields]
    if isinstance(value, types.SimpleNamespace):
        return list(vars(value))
    return None


def _read(value: Any, fields: list[str]) -> Iterable[tuple[str, Any]]:
    """``(field, value)`` pairs, each value read only when it is shown."""
    for name in fields:
        try:
            yield name, getattr(value, name)
        except Exception as e:  # an unset attrs slot, a property that raises
            yield name, _Shown(f"<could not be read: {type(e).__name__}>")


def _leaf(value: Any, limit: int) -> str:
    """A value that is not a container: a text, bytes, a table (one line), anything else by
    its own repr; cut and redacted."""
    if isinstance(value, (str, bytes, bytearray)):
        return _text_repr(value, limit)
    kind = _library_kind(value)
    if kind is not None:
        return f"<{_type_name(value)}: {_LINES[kind](value)}>"
    if value is None or isinstance(value, (bool, int, float, _Shown)):
        return repr(value)
    return _excerpt(_own_repr(value), limit)


def _text_repr(value: str | bytes | bytearray, limit: int) -> str:
    """A text or bytes quoted as Python would, cut at ``limit`` before it is quoted."""
    if isinstance(value, str):
        return repr(_excerpt(value, limit))
    head = repr(bytes(value[: limit + 1]))  # one more: the cut is seen, and the word it splits
    return _excerpt(head[:-1], limit) + head[-1]


def _own_repr(value: Any) -> str:
    """The value's own repr (the only thing not bounded here: it is the class's code)."""
    try:
        return repr(value)
    except Exception:
        return f"<{type(value).__name__} instance at {id(value):#x}>"


# -- a description -----------------------------------------------------------------------------


def _describer(value: Any) -> Callable[[Any], str] | None:
    kind = _library_kind(value)
    return _DESCRIBE.get(kind) if kind is not None else None


def _columns(items: Sequence[tuple[str, str, int | None]], total: int | None = None) -> str:
    """One line per column (of the first ``MAX_COLUMNS``): name, type and, where known,
    its null count; then how many more there are (``total``: all the columns)."""
    lines = []
    for name, dtype, nulls in items[:MAX_COLUMNS]:
        counted = "" if nulls is None else f", {nulls:,} null"
        lines.append(f"  {_excerpt(name, TEXT_CHARS // 4)}: {dtype}{counted}")
    more = (len(items) if total is None else total) - MAX_COLUMNS
    if more > 0:
        lines.append(f"  … {more:,} more columns")
    return "\n".join(lines)


def _cell(value: Any) -> Any:
    """A table's cell as it may be shown: a text cut and redacted, a container bounded and
    redacted; a number as it is."""
    if value is None or isinstance(value, (bool, int, float, complex)):
        return value
    if isinstance(value, str):
        return _excerpt(value, CELL_CHARS)
    return _short(value)


def _pandas_frame(df: Any) -> str:
    shown = df.iloc[:, :MAX_COLUMNS]  # null counts only for the columns described
    nulls = [int(shown.iloc[:, i].isna().sum()) for i in range(shown.shape[1])]  # one at a time
    items = [
        (str(c), str(t), k) for c, t, k in zip(shown.columns, shown.dtypes, nulls, strict=True)
    ]
    head = _pandas_head(df.head(PREVIEW_ROWS)).to_string(max_cols=12, max_colwidth=40)
    memory = int(df.memory_usage(deep=False).sum())
    return (
        f"pandas DataFrame, {_rows_by_columns(df)}, about {memory:,} bytes\n"
        f"columns:\n{_columns(items, df.shape[1])}\nfirst rows:\n{head}"
    )


def _pandas_head(head: Any) -> Any:
    """A copy of a DataFrame's first rows safe to print: the columns ``to_string(max_cols=12)``
    shows (the first and last six) with secret-named ones redacted and the others' texts and
    containers cut and redacted; the index too."""
    safe = head.copy()
    count = head.shape[1]
    for i in sorted({*range(min(6, count)), *range(max(count - 6, 0), count)}):
        column = head.iloc[:, i]
        if _secret_key(head.columns[i]):
            safe.isetitem(i, [REDACTED] * len(head))
        elif column.dtype.kind == "O":
            safe.isetitem(i, [_cell(v) for v in column])
    safe.index = _pandas_index(head.index)
    return safe


def _pandas_index(index: Any) -> Any:
    """The first rows' index safe to print: redacted if a level's name says secret, its texts
    and containers cut and redacted."""
    secret = any(_secret_key(name) for name in index.names)
    if not secret and index.dtype.kind != "O":
        return index
    cell: Callable[[Any], Any] = (lambda _: REDACTED) if secret else _cell
    if index.nlevels > 1:
        return index.map(lambda key: tuple(cell(part) for part in key))
    return index.map(cell)


def _pandas_series(s: Any) -> str:
    head = s.head(PREVIEW_ROWS)
    safe = head.astype(object)
    if _secret_key(s.name):
        safe[:] = [REDACTED] * len(head)
    else:
        safe[:] = [_cell(v) for v in head]
    safe.index = _pandas_index(head.index)
    return (
        f"pandas Series {_short(s.name)}, {len(s):,} values, {s.dtype}, "
        f"{int(s.isna().sum()):,} null\nfirst values:\n{safe.to_string(max_rows=PREVIEW_ROWS)}"
    )


def _numpy_array(a: Any) -> str:
    import numpy as np  # the value is an ndarray: numpy is loaded already

    names = a.dtype.names or ()
    hidden = [n for n in names if _secret_key(n)]
    shown = a[[n for n in names if n not in hidden]] if hidden else a  # a view, not a copy
    preview = np.array2string(
        shown,
        threshold=40,
        edgeitems=3,
        max_line_width=100,
        formatter={"numpystr": _short, "object": _short},  # texts and objects: bounded
    )
    if hidden:
        preview += f"\n({', '.join(hidden)}: {REDACTED})"
    shape = "x".join(map(str, a.shape)) or "scalar"
    return f"numpy array, shape {shape}, {a.dtype}, {a.nbytes:,} bytes\n{preview}"


def _polars_frame(df: Any) -> str:
    nulls = df.null_count().row(0)
    items = [(n, str(t), int(k)) for (n, t), k in zip(df.schema.items(), nulls, strict=True)]
    head = str(_polars_head(df.head(PREVIEW_ROWS)))
    return (
        f"polars DataFrame, {_rows_by_columns(df)}, about {int(df.estimated_size()):,} bytes\n"
        f"columns:\n{_columns(items)}\nfirst rows:\n{head}"
    )


def _polars_head(head: Any) -> Any:
    """A DataFrame's first rows safe to print: secret-named columns redacted, the texts and
    containers of the others cut and redacted (numbers, dates and booleans as they are)."""
    replaced = []
    for column in head.get_columns():
        dtype = column.dtype
        if _secret_key(column.name):
            replaced.append(type(column)(column.name, [REDACTED] * len(column)))
        elif not (dtype.is_numeric() or dtype.is_temporal() or str(dtype) == "Boolean"):
            texts = [None if v is None else str(_cell(v)) for v in column.to_list()]
            replaced.append(type(column)(column.name, texts))
    return head.with_columns(replaced) if replaced else head


def _polars_series(s: Any) -> str:
    first = s.head(PREVIEW_ROWS).to_list()
    shown = REDACTED if _secret_key(s.name) else _short(first)
    return (
        f"polars Series {_short(s.name)}, {len(s):,} values, {s.dtype}, {s.null_count():,} null\n"
        f"first values: {shown}"
    )


def _polars_lazy(lf: Any) -> str:
    schema = lf.collect_schema()  # resolves the plan's columns; reads no data
    items = [(n, str(t), None) for n, t in schema.items()]
    return (
        f"polars LazyFrame, not computed ({len(items):,} columns; .collect() computes it)\n"
        f"columns:\n{_columns(items)}"
    )


def _arrow_table(t: Any) -> str:
    items = [
        (f.name, str(f.type), int(c.null_count)) for f, c in zip(t.schema, t.columns, strict=True)
    ]
    rows = t.slice(0, PREVIEW_ROWS).to_pylist()
    shown = "\n".join(f"  {_short(row)}" for row in rows)
    return (
        f"pyarrow {type(t).__name__}, {t.num_rows:,} rows x {t.num_columns:,} columns, "
        f"{int(t.nbytes):,} bytes\ncolumns:\n{_columns(items)}\nfirst rows:\n{shown}"
    )


def _duckdb_relation(r: Any) -> str:
    items = [(str(n), str(t), None) for n, t in zip(r.columns, r.types, strict=True)]
    return (
        f"DuckDB relation, not computed ({len(items):,} columns; .df() or .fetchall() runs "
        f"it)\ncolumns:\n{_columns(items)}"
    )


_DESCRIBE: dict[str, Callable[[Any], str]] = {
    "pandas.DataFrame": _pandas_frame,
    "pandas.Series": _pandas_series,
    "numpy.ndarray": _numpy_array,
    "polars.DataFrame": _polars_frame,
    "polars.Series": _polars_series,
    "polars.LazyFrame": _polars_lazy,
    "pyarrow.Table": _arrow_table,
    "duckdb.relation": _duckdb_relation,
}


def _other(value: Any, max_chars: int) -> str:
    """A value that is not a table or an array, in about ``max_chars`` characters."""
    kind = _type_name(value)
    if isinstance(value, str):
        # more than max_chars, so that inspect_variable's own cut says the text was cut
        return f"str, {len(value):,} characters:\n{_excerpt(value, max_chars + 256)}"
    if isinstance(value, (bytes, bytearray)):
        return f"{kind}, {len(value):,} bytes: {_text_repr(value, max_chars)}"
    parts = _parts(value)
    shown = _Repr(max_chars).show(value)
    if parts is not None and parts.kind != "record":
        return f"{kind}, {parts.total:,} items: {shown}"
    if callable(value) and not isinstance(value, type):
        doc = (inspect.getdoc(value) or "").split("\n\n")[0]
        return f"{kind} {_signature(value)}" + (f"\n{_excerpt(doc, max_chars)}" if doc else "")
    return f"{kind}: {shown}"
