"""The rows of a batch: a DataFrame, a list of dicts or strings, or any iterable; their keys
(the DataFrame's index, else the position) and the prompt each one gets from the template."""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import UserError

__all__ = ["BatchRows", "prompt_fields"]


@dataclass(frozen=True)
class BatchRows:
    """Rows ready to run: each one's key, label and prompt."""

    keys: list[str]
    """A stable key per row: the DataFrame's index label (as JSON), else the position."""
    labels: list[Any]
    """The index labels as given (for ``to_pandas``)."""
    prompts: list[str]
    """Each row's prompt."""
    index_name: Any = None
    """The DataFrame index's name, kept for ``to_pandas``."""

    def __len__(self) -> int:
        return len(self.keys)

    @classmethod
    def of(cls, rows: Any, prompt: str | None) -> BatchRows:
        """Read ``rows`` and fill ``prompt`` for each; a column the template names that a row
        lacks is a ``UserError`` (raised before anything runs)."""
        labels, values, index_name = _read(rows)
        fields = prompt_fields(prompt) if prompt is not None else []
        prompts = []
        for position, row in enumerate(values):
            missing = [f for f in fields if f not in row]
            if missing:
                where = f"row {labels[position]!r}"
                known = ", ".join(map(str, row)) or "none"
                raise UserError(
                    f"The prompt names {{{missing[0]}}}, which {where} does not have "
                    f"(its columns: {known})."
                )
            prompts.append(_fill(prompt, row) if prompt is not None else _default_prompt(row))
        keys = [_key(label) for label in labels]
        if len(set(keys)) != len(keys):
            raise UserError(
                "The rows' index has repeated labels; give each row its own "
                "(df.reset_index() does)."
            )
        return cls(keys, labels, prompts, index_name)


def prompt_fields(template: str) -> list[str]:
    """The column names a ``str.format`` template uses (``{col}``, ``{col:.2f}``,
    ``{col[0]}``); a template that does not parse is a ``UserError``."""
    fields: list[str] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as e:
        raise UserError(
            f"The prompt template does not parse ({e}); write literal braces as {{{{ and }}}}."
        ) from None
    for _, field, _, _ in parsed:
        if field is None:
            continue
        base = field.split(".", 1)[0].split("[", 1)[0]
        if not base or base.isdigit():
            raise UserError(
                "The prompt template uses {} or {0}; name the column instead, e.g. {text}."
            )
        if base not in fields:
            fields.append(base)
    return fields


def prompt_hash(prompt: str) -> str:
    """A short hash of a row's prompt (a stored row with another prompt is run again)."""
    return hashlib.sha256(prompt.encode()).hexdigest()[:16]


def _read(rows: Any) -> tuple[list[Any], list[dict[str, Any]], Any]:
    to_dict = getattr(rows, "to_dict", None)
    if callable(to_dict) and hasattr(rows, "columns") and hasattr(rows, "index"):  # DataFrame
        records = rows.to_dict(orient="records")
        return (
            list(rows.index),
            [{str(k): v for k, v in r.items()} for r in records],
            rows.index.name,
        )
    if isinstance(rows, (str, bytes, dict)) or not isinstance(rows, Iterable):
        raise UserError(
            "run_batch takes a pandas DataFrame, a list of dicts or strings, or another "
            f"iterable of them; got {type(rows).__name__}."
        )
    values: list[dict[str, Any]] = []
    for position, row in enumerate(rows):
        if isinstance(row, str):
            values.append({"input": row})
        elif isinstance(row, dict):
            values.append({str(k): v for k, v in row.items()})
        else:
            raise UserError(
                f"Row {position} is a {type(row).__name__}; give dicts (columns) or strings."
            )
    return list(range(len(values))), values, None


def _fill(template: str, row: dict[str, Any]) -> str:
    return template.format_map(row)


def _default_prompt(row: dict[str, Any]) -> str:
    if set(row) == {"input"}:
        return str(row["input"])
    return "\n".join(f"{k}: {v}" for k, v in row.items())


def _key(label: Any) -> str:
    try:
        return json.dumps(label, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(label)
