"""W4: building function tools from functions with six typed parameters.

The function takes ``str, int, float, bool, list[str]`` and a structured parameter (a pydantic
model, or a ``typing_extensions.TypedDict``) and has a Google-style docstring. Only the
``function_tool(fn)`` call is timed; the functions are defined beforehand. Metrics are ms per
tool, one sample per tool:

- ``ms_per_tool_pydantic`` / ``ms_per_tool_typeddict``: 1,000 tools, each from a freshly
  defined function with its own name and docstring: nothing can be reused between builds
  (cold).
- ``..._rerun``: a freshly defined function with the same name and signature each time, as when
  a notebook cell is re-run (our schema builder caches by shape, so this is warm for us).
- ``..._same_fn``: the same function object again and again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pydantic
from typing_extensions import TypedDict

from .._common import Impl, Measured, main, profiled, settle

WORKLOAD = "W4"


class Filters(pydantic.BaseModel):
    """Extra search filters."""

    category: str
    max_price: float | None = None


class FiltersDict(TypedDict):
    """Extra search filters."""

    category: str
    max_price: float


def _rename(fn: Callable[..., Any], name: str) -> None:
    """Name ``fn`` and make its docstring unique to that name (no docstring-parse cache hits)."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (fn.__doc__ or "").replace(
        "Search the catalogue.", f"Search the catalogue {name}."
    )


def pydantic_fn(name: str) -> Callable[..., Any]:
    """A newly defined function object named ``name``, with a pydantic model parameter."""

    def search(
        query: str, limit: int, threshold: float, exact: bool, tags: list[str], filters: Filters
    ) -> str:
        """Search the catalogue.

        Args:
            query: What to look for.
            limit: Return at most this many results.
            threshold: The minimum relevance score.
            exact: Only exact matches.
            tags: Only items with all of these tags.
            filters: Extra filters.

        Returns:
            The matching items, one per line.
        """
        return query

    _rename(search, name)
    return search


def typeddict_fn(name: str) -> Callable[..., Any]:
    """A newly defined function object named ``name``, with a TypedDict parameter."""

    def search(
        query: str,
        limit: int,
        threshold: float,
        exact: bool,
        tags: list[str],
        filters: FiltersDict,
    ) -> str:
        """Search the catalogue.

        Args:
            query: What to look for.
            limit: Return at most this many results.
            threshold: The minimum relevance score.
            exact: Only exact matches.
            tags: Only items with all of these tags.
            filters: Extra filters.

        Returns:
            The matching items, one per line.
        """
        return query

    _rename(search, name)
    return search


def _build_all(impl: Impl, funcs: list[Callable[..., Any]]) -> list[float]:
    """Build one tool per function; ms per build."""
    samples: list[float] = []
    tools: list[Any] = []
    settle()
    perf = time.perf_counter
    with profiled():
        for fn in funcs:
            start = perf()
            tools.append(impl.function_tool(fn))
            samples.append((perf() - start) * 1000)
    return samples


def measure(impl: Impl, quick: bool) -> Measured:
    cold, warm = (20, 10) if quick else (1000, 300)
    metrics: dict[str, list[float]] = {}
    for label, factory in (("pydantic", pydantic_fn), ("typeddict", typeddict_fn)):
        impl.function_tool(factory(f"warmup_{label}"))  # imports, first-use caches
        metrics[f"ms_per_tool_{label}"] = _build_all(
            impl, [factory(f"search_{label}_{i}") for i in range(cold)]
        )
        metrics[f"ms_per_tool_{label}_rerun"] = _build_all(
            impl, [factory(f"search_{label}") for _ in range(warm)]
        )
        same = factory(f"search_{label}_same")
        metrics[f"ms_per_tool_{label}_same_fn"] = _build_all(impl, [same] * warm)
    return Measured(metrics=metrics, info={"cold_tools": cold, "warm_tools": warm})


if __name__ == "__main__":
    main(WORKLOAD, measure)
