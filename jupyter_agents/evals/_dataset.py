"""The dataset forms ``evaluate`` takes, each read into a pydantic-evals ``Dataset``: a
``Dataset``, a list of ``Case``, a pandas DataFrame (``input`` / ``expected`` columns, optional
``name`` and ``metadata``), or a YAML / JSON file in pydantic-evals' format."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_core import to_jsonable_python
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import Evaluator

from ..runtime.errors import UserError

__all__ = ["case_names", "load_dataset", "prompt_of"]

INPUT_COLUMNS = ("input", "inputs")
EXPECTED_COLUMNS = ("expected", "expected_output")


def load_dataset(
    dataset: Any, evaluator_types: Sequence[type[Evaluator[Any, Any, Any]]] = ()
) -> Dataset[Any, Any, Any]:
    """``dataset`` as a pydantic-evals ``Dataset`` (a file's custom evaluators may name any
    of ``evaluator_types``)."""
    if isinstance(dataset, Dataset):
        return dataset
    if isinstance(dataset, (str, os.PathLike)):
        return _from_file(Path(dataset), evaluator_types)
    if hasattr(dataset, "columns") and hasattr(dataset, "to_dict"):
        return _from_frame(dataset)
    if isinstance(dataset, Sequence) and all(isinstance(c, Case) for c in dataset):
        return Dataset(name="cases", cases=list(dataset))
    raise UserError(
        "evaluate() takes a pydantic_evals.Dataset, a list of Case, a pandas DataFrame with "
        f"'input' and 'expected' columns, or a YAML/JSON file path; got {type(dataset).__name__}."
    )


def prompt_of(inputs: Any) -> str:
    """A case's prompt: a string input as is, anything else as JSON."""
    if isinstance(inputs, str):
        return inputs
    return json.dumps(to_jsonable_python(inputs, serialize_unknown=True), ensure_ascii=False)


def case_names(dataset: Dataset[Any, Any, Any]) -> list[str]:
    """Each case's name as pydantic-evals reports it (``Case 3`` for an unnamed third case)."""
    return [case.name or f"Case {i}" for i, case in enumerate(dataset.cases, 1)]


def _from_file(
    path: Path, evaluator_types: Sequence[type[Evaluator[Any, Any, Any]]]
) -> Dataset[Any, Any, Any]:
    if not path.is_file():
        raise UserError(f"No dataset file at {os.fspath(path)!r}.")
    if path.suffix.lower() not in (".yaml", ".yml", ".json"):
        raise UserError(f"A dataset file is .yaml, .yml or .json; got {path.name!r}.")
    try:
        loaded: Dataset[Any, Any, Any] = Dataset[Any, Any, Any].from_file(
            path, custom_evaluator_types=evaluator_types
        )
        return loaded
    except ValueError as e:
        raise UserError(f"{path.name} is not a pydantic-evals dataset: {e}") from None


def _missing_as_none(value: Any) -> Any:
    return None if isinstance(value, float) and value != value else value  # NaN: a blank cell


def _from_frame(frame: Any) -> Dataset[Any, Any, Any]:
    columns = [str(c) for c in frame.columns]
    given = next((c for c in INPUT_COLUMNS if c in columns), None)
    if given is None:
        raise UserError(
            "The DataFrame needs an 'input' column (and usually 'expected'); its columns: "
            + (", ".join(columns) or "none")
            + "."
        )
    expected = next((c for c in EXPECTED_COLUMNS if c in columns), None)
    cases = []
    for label, row in zip(frame.index, frame.to_dict(orient="records"), strict=True):
        name = row.get("name") if "name" in columns else None
        cases.append(
            Case(
                name=str(name) if name is not None else str(label),
                inputs=row[given],
                expected_output=_missing_as_none(row[expected]) if expected else None,
                metadata=row.get("metadata") if "metadata" in columns else None,
            )
        )
    try:
        return Dataset(name="dataframe", cases=cases)
    except ValueError as e:
        raise UserError(f"The DataFrame's cases: {e} (give each row its own name).") from None
