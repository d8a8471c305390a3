"""An evaluation as code: ``MODULE:FUNCTION``, a function (plain or async) that evaluates and
returns an ``EvalReport``. ``python -m jupyter_agents.evals run`` calls it and saves the
report with its source; the gate calls it again when given only that baseline. With the
evaluation's runs in a cassette (``evaluate(cassette=...)``), the call replays them: CI runs
the whole evaluation offline.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import Any

from ..runtime.errors import UserError
from .report import EvalReport

__all__ = ["run_source"]


def _function(source: str, *, here_only: bool) -> Any:
    module_name, _, attribute = source.partition(":")
    if not module_name or not attribute:
        raise UserError(f"{source!r} is not MODULE:FUNCTION (for example evals.qa:run).")
    if os.getcwd() not in sys.path:  # a module next to the caller, as `python -m` would find
        sys.path.insert(0, os.getcwd())
    if here_only:
        _check_here(source, module_name)
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise UserError(f"cannot import {module_name!r}: {e}") from None
    function = getattr(module, attribute, None)
    if not callable(function):
        raise UserError(f"{module_name} has no function {attribute!r}.")
    return function


def _check_here(source: str, module_name: str) -> None:
    """A source read from a file must be a module under this folder: a report file cannot make
    the gate import and call any installed module's function. It is decided from the files
    alone, before anything is imported (asking the import system about ``pkg.mod`` would
    import ``pkg`` first)."""
    if _file_here(module_name, Path.cwd().resolve()) is None:
        raise UserError(
            f"the baseline names {source!r}, which is not a module under this folder; "
            "give --run MODULE:FUNCTION to run it anyway"
        )


def _file_here(module_name: str, here: Path) -> Path | None:
    """The file under ``here`` that importing ``module_name`` would run, found without
    importing anything; None when the import would run anything else: a module already
    imported from elsewhere, a built-in one, a top-level name found elsewhere first, or a
    parent that is not a regular package here (a namespace package may have parts anywhere)."""
    parts = module_name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    spec: importlib.machinery.ModuleSpec | None = None
    for depth in range(1, len(parts) + 1):
        if spec is not None and not _regular_package(spec, here):
            return None
        spec = _spec_unimported(".".join(parts[:depth]), spec)
        if spec is None or not spec.has_location or not _is_under(spec.origin, here):
            return None
    return Path(str(spec.origin)) if spec is not None else None


def _spec_unimported(
    name: str, parent: importlib.machinery.ModuleSpec | None
) -> importlib.machinery.ModuleSpec | None:
    """Where ``name`` would be imported from, given its parent package's spec; imports
    nothing (``importlib.util.find_spec`` does not for a top-level name)."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        found: importlib.machinery.ModuleSpec | None = getattr(loaded, "__spec__", None)
        return found
    try:
        if parent is None:
            return importlib.util.find_spec(name)
        package = sys.modules.get(parent.name)
        search = getattr(package, "__path__", None) or parent.submodule_search_locations or []
        return importlib.machinery.PathFinder.find_spec(name, list(search))
    except (ImportError, ValueError):
        return None


def _regular_package(spec: importlib.machinery.ModuleSpec, here: Path) -> bool:
    """Whether ``spec`` is a package with an ``__init__`` file under ``here``."""
    return spec.submodule_search_locations is not None and _is_under(spec.origin, here)


def _is_under(origin: object, here: Path) -> bool:
    return isinstance(origin, str) and Path(origin).resolve().is_relative_to(here)


def run_source(source: str, *, from_report: bool = False) -> EvalReport:
    """Call ``source`` (``MODULE:FUNCTION``) and return its report, which remembers it.

    Args:
        source: The function, as the person gave it or as a saved report names it.
        from_report: ``source`` was read from a report file: it must be a module under the
            current folder (a file is data; it cannot pick any installed function to run).

    Raises:
        UserError: ``source`` cannot be found (or, from a report, is not a module here),
            fails, or returns something else than a report.
    """
    function = _function(source, here_only=from_report)
    try:
        report = function()
        if inspect.isawaitable(report):
            report = asyncio.run(_awaited(report))
    except UserError:
        raise
    except Exception as e:
        raise UserError(f"{source} failed: {type(e).__name__}: {e}") from None
    if not isinstance(report, EvalReport):
        raise UserError(f"{source} returned {type(report).__name__}, not an EvalReport.")
    report.source = source
    return report


async def _awaited(value: Any) -> Any:
    return await value
