"""list_variables and inspect_variable over real pandas, polars, numpy, pyarrow and DuckDB
values: shapes, columns, null counts and a few rows, lazy values never computed, sizes capped."""

from __future__ import annotations

import subprocess
import sys

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from jupyter_agents.notebook.workspace.variables import (
    MAX_COLUMNS,
    inspect_variable,
    list_variables,
)


def test_the_list_has_one_line_per_user_variable_and_skips_ipython_and_modules() -> None:
    def pick(x: int, y: int = 2) -> int:
        return x

    pick.__module__ = "__main__"  # as a function defined in a cell is
    namespace = {
        "df": pd.DataFrame({"a": range(1000), "b": [None, "x"] * 500}),
        "img": np.zeros((480, 640), dtype=np.uint8),
        "n": 3,
        "name": "Ada",
        "rows": [1, 2, 3],
        "np": np,
        "_hidden": 1,
        "In": [],
        "get_ipython": print,
        "pick": pick,
        "sqrt": np.sqrt,  # imported, not defined here
        "DataFrame": pd.DataFrame,
        "thing": object(),
    }
    lines = {v.name: (v.type, v.summary) for v in list_variables(namespace)}
    assert list(lines) == ["df", "img", "n", "name", "pick", "rows", "thing"]
    assert lines["df"] == ("pandas.DataFrame", "1,000 rows x 2 columns")
    assert lines["img"] == ("numpy.ndarray", "shape 480x640, uint8")
    assert lines["n"] == ("int", "3") and lines["rows"] == ("list", "3 items")
    assert lines["name"] == ("str", "3 characters: 'Ada'")
    assert lines["pick"][1] == "pick(x: 'int', y: 'int' = 2) -> 'int'"  # (future annotations)
    assert lines["thing"] == ("object", "")


def test_a_pandas_frame_shows_dtypes_nulls_and_a_few_rows() -> None:
    df = pd.DataFrame({"city": ["Paris", None, "Oslo"], "temp": [21.0, None, 9.5]})
    text = inspect_variable({"df": df}, "df")
    assert text.startswith("df: pandas DataFrame, 3 rows x 2 columns")
    assert "city: object, 1 null" in text or "city: str, 1 null" in text
    assert "temp: float64, 1 null" in text and "Paris" in text and "Oslo" in text


def test_a_wide_frame_names_its_first_columns_and_counts_the_rest() -> None:
    df = pd.DataFrame({f"c{i}": [i] for i in range(MAX_COLUMNS + 25)})
    text = inspect_variable({"df": df}, "df")
    assert f"c{MAX_COLUMNS - 1}: int64" in text and f"c{MAX_COLUMNS}:" not in text
    assert "… 25 more columns" in text


def test_a_long_frame_shows_only_its_head() -> None:
    df = pd.DataFrame({"i": range(100_000)})
    text = inspect_variable({"df": df}, "df")
    assert "100,000 rows" in text and "99999" not in text and len(text) < 1000


def test_a_numpy_array_shows_shape_dtype_size_and_its_edges() -> None:
    text = inspect_variable({"a": np.arange(10_000).reshape(100, 100)}, "a")
    assert "shape 100x100, int64, 80,000 bytes" in text and "..." in text and "9999" in text


def test_a_polars_frame_and_series() -> None:
    df = pl.DataFrame({"city": ["Paris", None], "temp": [21, 9]})
    text = inspect_variable({"df": df, "s": df["temp"]}, "df")
    assert "polars DataFrame, 2 rows x 2 columns" in text and "city: String, 1 null" in text
    series = inspect_variable({"s": df["temp"]}, "s")
    assert "polars Series 'temp', 2 values, Int64, 0 null" in series and "[21, 9]" in series


def test_a_polars_lazy_frame_is_not_computed() -> None:
    computed: list[int] = []

    def spy(batch: pl.Series) -> pl.Series:
        computed.append(len(batch))
        return batch * 2

    lazy = pl.LazyFrame({"x": [1, 2, 3]}).with_columns(
        pl.col("x").map_batches(spy, return_dtype=pl.Int64).alias("y")
    )
    assert list_variables({"lazy": lazy})[0].summary == "lazy: not computed"
    text = inspect_variable({"lazy": lazy}, "lazy")
    assert "not computed" in text and "x: Int64" in text and "y: Int64" in text
    assert computed == []


def test_a_duckdb_relation_is_not_computed() -> None:
    calls: list[int] = []
    con = duckdb.connect()

    def spy(x: int) -> int:
        calls.append(x)
        return x

    con.create_function("spy", spy, [duckdb.sqltype("BIGINT")], duckdb.sqltype("BIGINT"))
    relation = con.sql("select spy(range) as v, 'a' as w from range(5)")
    assert list_variables({"r": relation})[0].summary == "lazy: 2 columns, not computed"
    text = inspect_variable({"r": relation}, "r")
    assert "DuckDB relation, not computed" in text and "v: BIGINT" in text
    assert calls == []


def test_a_pyarrow_table_shows_nulls_from_its_metadata_and_first_rows() -> None:
    table = pa.table({"a": [1, None, 3], "b": ["x", "y", None]})
    text = inspect_variable({"t": table}, "t")
    assert "pyarrow Table, 3 rows x 2 columns" in text
    assert "a: int64, 1 null" in text and "b: string, 1 null" in text and "'x'" in text


def test_an_unknown_name_suggests_the_close_ones() -> None:
    text = inspect_variable({"sales": 1, "sales_2024": 2, "other": 3}, "sale")
    assert text.startswith("No variable named 'sale'") and "sales" in text
    assert "\n" not in text


def test_a_huge_value_is_cut_and_a_broken_repr_is_named() -> None:
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    huge = inspect_variable({"s": "x" * 100_000}, "s", max_chars=500)
    assert len(huge) < 600 and "characters cut" in huge
    assert inspect_variable({"b": Broken()}, "b").startswith("b: tests.Broken: <Broken instance")

    class Exploding:
        shape = property(lambda self: 1 / 0)  # a "table" whose shape cannot be read

    Exploding.__module__ = "pandas.core.frame"
    Exploding.__name__ = "DataFrame"
    text = inspect_variable({"e": Exploding()}, "e")
    assert "could not be described: " in text
    assert list_variables({"e": Exploding()})[0].summary == "could not be described"


@pytest.mark.parametrize("library", ["pandas", "polars", "pyarrow", "duckdb", "numpy"])
def test_describing_plain_values_imports_no_table_library(library: str) -> None:
    code = (
        "import sys\n"
        "from jupyter_agents.notebook.workspace.variables import inspect_variable, list_variables\n"
        "ns = {'a': 1, 'b': [1, 2], 'c': 'text'}\n"
        "list_variables(ns); [inspect_variable(ns, n) for n in ns]\n"
        f"print({library!r} in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


# -- secrets: the reading tools never ask, so they never hand a secret to the model -----------

KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2"


def test_a_variable_named_like_a_secret_is_listed_without_its_value() -> None:
    ns = {"OPENAI_API_KEY": KEY, "db_password": b"hunter2-hunter2", "city": "Paris", "key": 3}
    rows = {v.name: v for v in list_variables(ns)}
    assert (
        KEY not in rows["OPENAI_API_KEY"].summary and "[redacted]" in rows["OPENAI_API_KEY"].summary
    )
    assert "hunter2" not in rows["db_password"].summary
    assert "Paris" in rows["city"].summary and rows["key"].summary == "3"  # not a string


def test_inspecting_a_secret_says_it_is_not_shown() -> None:
    text = inspect_variable({"api_key": KEY}, "api_key")
    assert KEY not in text and "not shown" in text and "secret" in text


def test_a_key_inside_any_value_is_redacted() -> None:
    ns = {
        "note": f"use {KEY} for the demo",
        "config": {"model": "gpt-5", "api_key": "plain-but-named", "nested": {"token": "t0k"}},
        "headers": [("Authorization", f"Bearer {KEY}")],
        "env": dict(PATH="/usr/bin", GITHUB_TOKEN="ghp_x" * 5),
    }
    for name in ns:
        text = inspect_variable(ns, name) + "\n".join(v.summary for v in list_variables(ns))
        assert KEY not in text and "plain-but-named" not in text and "t0k" not in text
        assert "ghp_x" not in text, name
    assert "gpt-5" in inspect_variable(ns, "config") and "/usr/bin" in inspect_variable(ns, "env")
    assert inspect_variable(ns, "headers").startswith("headers: list, 1 items")


def test_ordinary_text_is_not_taken_for_a_secret() -> None:
    ns = {"essay": "a basic understanding of statistics", "tokens": ["a", "b"], "key": 3}
    assert "basic understanding" in inspect_variable(ns, "essay")
    assert inspect_variable(ns, "tokens").endswith("['a', 'b']")
    assert inspect_variable(ns, "key") == "key: int: 3"
