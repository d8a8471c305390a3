"""What is in the notebook's namespace, as a model reads it: one line per variable
(:func:`list_variables`) and a capped description of one (:func:`inspect_variable`).

Tables and arrays are described by their shape, columns, types, null counts and a few rows:
pandas and polars DataFrames (and Series), numpy arrays, pyarrow tables and record batches. Lazy
values stay lazy: a polars ``LazyFrame`` and a DuckDB relation are described by their columns,
never computed. Libraries are recognised by their classes' modules, so describing a namespace
never imports pandas, polars, pyarrow or DuckDB. Everything is cut to a size a model can read.
"""

from __future__ import annotations

import difflib
import inspect
import reprlib
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..runtime.tracing.redact import REDACTED, is_secret_name, redact_text

__all__ = ["HIDDEN_NAMES", "Variable", "inspect_variable", "list_variables"]

HIDDEN_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython", "open"})
"""Names IPython and ipykernel put in every namespace."""

MAX_COLUMNS = 40
"""Columns described one by one; the rest are counted."""

PREVIEW_ROWS = 5

_short = reprlib.Repr()
_short.maxstring, _short.maxother, _short.maxlist, _short.maxdict = 60, 60, 6, 4


@dataclass(frozen=True)
class Variable:
    """One line of :func:`list_variables`."""

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
            summary = _summary(value)
        except Exception:  # a broken object does not hide the others
            summary = "could not be described"
        if _secret(name, value):
            summary = f"{len(value):,} characters: {REDACTED}"
        summary = redact_text(summary)
        found.append(Variable(name, _type_name(value), summary))
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
            f"{name}: {_type_name(value)}, {len(value):,} characters: not shown, its name says "
            "it holds a secret (rename it if it does not)."
        )
    describe = _describer(value)
    try:
        text = describe(value) if describe is not None else _other(_hidden(value))
    except Exception as e:  # a broken object: its type, and why it could not be described
        text = f"{_type_name(value)} (could not be described: {type(e).__name__}: {e})"
    text = redact_text(f"{name}: {text}")
    if len(text) > max_chars:
        text = text[:max_chars] + f"\n… {len(text) - max_chars:,} characters cut"
    return text


# -- secrets: these tools never ask, so they never show one -------------------------------------


def _secret(name: str, value: Any) -> bool:
    """A text whose name says it is a secret (``OPENAI_API_KEY``, ``db_password``)."""
    return isinstance(value, (str, bytes)) and is_secret_name(name)


def _hidden(value: Any, depth: int = 0) -> Any:
    """``value`` with the entries of its dicts whose keys say secret replaced, in the plain
    dicts, lists and tuples it is made of, as far as a description shows them (every entry of
    a dict, whose description sorts the keys; the first items of a list)."""
    kind = type(value)
    if depth > _longer.maxlevel or kind not in (dict, list, tuple):
        return value
    if kind is dict:
        return {
            k: REDACTED if isinstance(k, str) and is_secret_name(k) else _hidden(v, depth + 1)
            for k, v in value.items()
        }
    seen = _longer.maxlist + 1
    return kind([*(_hidden(v, depth + 1) for v in value[:seen]), *value[seen:]])


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
        return _short.repr(value)
    if isinstance(value, (str, bytes)):
        return f"{len(value):,} characters: {_short.repr(value)}"
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        return f"{len(value):,} items"
    if callable(value):
        return _signature(value)
    return ""  # the type says it all


def _signature(value: Callable[..., Any]) -> str:
    try:
        return f"{getattr(value, '__name__', 'callable')}{inspect.signature(value)}"
    except (TypeError, ValueError):
        return "callable"


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


# -- a description -----------------------------------------------------------------------------


def _describer(value: Any) -> Callable[[Any], str] | None:
    kind = _library_kind(value)
    return _DESCRIBE.get(kind) if kind is not None else None


def _columns(items: Sequence[tuple[str, str, int | None]], total: int | None = None) -> str:
    """One line per column (of the first :data:`MAX_COLUMNS`): name, type and, where known,
    its null count; then how many more there are (``total``: all the columns)."""
    lines = []
    for name, dtype, nulls in items[:MAX_COLUMNS]:
        counted = "" if nulls is None else f", {nulls:,} null"
        lines.append(f"  {name}: {dtype}{counted}")
    more = (len(items) if total is None else total) - MAX_COLUMNS
    if more > 0:
        lines.append(f"  … {more:,} more columns")
    return "\n".join(lines)


def _pandas_frame(df: Any) -> str:
    shown = df.iloc[:, :MAX_COLUMNS]  # null counts only for the columns described
    nulls = shown.isna().sum().tolist()
    items = [
        (str(c), str(t), int(k)) for c, t, k in zip(shown.columns, shown.dtypes, nulls, strict=True)
    ]
    head = df.head(PREVIEW_ROWS).to_string(max_cols=12, max_colwidth=40)
    memory = int(df.memory_usage(deep=False).sum())
    return (
        f"pandas DataFrame, {_rows_by_columns(df)}, about {memory:,} bytes\n"
        f"columns:\n{_columns(items, df.shape[1])}\nfirst rows:\n{head}"
    )


def _pandas_series(s: Any) -> str:
    head = s.head(PREVIEW_ROWS).to_string(max_rows=PREVIEW_ROWS)
    return (
        f"pandas Series {s.name!r}, {len(s):,} values, {s.dtype}, {int(s.isna().sum()):,} null\n"
        f"first values:\n{head}"
    )


def _numpy_array(a: Any) -> str:
    import numpy as np  # the value is an ndarray: numpy is loaded already

    preview = np.array2string(a, threshold=40, edgeitems=3, max_line_width=100)
    shape = "x".join(map(str, a.shape)) or "scalar"
    return f"numpy array, shape {shape}, {a.dtype}, {a.nbytes:,} bytes\n{preview}"


def _polars_frame(df: Any) -> str:
    nulls = df.null_count().row(0)
    items = [(n, str(t), int(k)) for (n, t), k in zip(df.schema.items(), nulls, strict=True)]
    head = str(df.head(PREVIEW_ROWS))
    return (
        f"polars DataFrame, {_rows_by_columns(df)}, about {int(df.estimated_size()):,} bytes\n"
        f"columns:\n{_columns(items)}\nfirst rows:\n{head}"
    )


def _polars_series(s: Any) -> str:
    return (
        f"polars Series {s.name!r}, {len(s):,} values, {s.dtype}, {s.null_count():,} null\n"
        f"first values: {_short.repr(s.head(PREVIEW_ROWS).to_list())}"
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
    shown = "\n".join(f"  {_short.repr(row)}" for row in rows)
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


def _other(value: Any) -> str:
    kind = _type_name(value)
    if isinstance(value, str):
        return f"str, {len(value):,} characters:\n{value}"
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        return f"{kind}, {len(value):,} items: {_long(value)}"
    if callable(value) and not isinstance(value, type):
        doc = (inspect.getdoc(value) or "").split("\n\n")[0]
        return f"{kind} {_signature(value)}" + (f"\n{doc}" if doc else "")
    return f"{kind}: {_long(value)}"


def _long(value: Any) -> str:
    return _longer.repr(value)


_longer = reprlib.Repr()
_longer.maxstring, _longer.maxother, _longer.maxlist, _longer.maxdict = 400, 400, 20, 20
_longer.maxlevel = 3
