"""The arguments schema of common signatures, written directly (the fast path).

Pydantic's JSON-schema generation is most of the cost of building a tool. For parameters of
plain types (``str``, ``int``, ``float``, ``bool``, lists and string-keyed dicts of them,
``Literal``, ``X | None``) and of pydantic models, dataclasses and TypedDicts (whose own schemas
are generated once per type), this module writes the same schema pydantic would. Anything else
returns None and takes pydantic's path; a test checks both paths agree.
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
import types
from collections.abc import Sequence
from typing import Any, Literal, Union, get_args, get_origin

import pydantic
from typing_extensions import is_typeddict

__all__ = ["fast_params_schema"]

_PRIMITIVES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_JSON_SCALARS = (str, int, float, bool, type(None))
_type_schemas: dict[Any, dict[str, Any] | None] = {}
_lock = threading.Lock()


def _plain(hint: Any) -> dict[str, Any] | None:
    name = _PRIMITIVES.get(hint)
    if name is not None:
        return {"type": name}
    origin, args = get_origin(hint), get_args(hint)
    if origin is list and len(args) == 1:
        items = _plain(args[0])
        return None if items is None else {"items": items, "type": "array"}
    if origin is dict and len(args) == 2 and args[0] is str:
        values = _plain(args[1])
        return None if values is None else {"additionalProperties": values, "type": "object"}
    if origin is Literal and args:
        if all(type(v) is str for v in args):
            return {"enum": list(args), "type": "string"}
        if all(type(v) is int for v in args):
            return {"enum": list(args), "type": "integer"}
        return None
    inner = _optional(hint)
    if inner is not None:
        schema = _plain(inner)
        return None if schema is None else {"anyOf": [schema, {"type": "null"}]}
    return None


def _optional(hint: Any) -> Any:
    """``X`` for ``X | None`` / ``Optional[X]``, else None."""
    if get_origin(hint) not in (Union, types.UnionType):
        return None
    args = get_args(hint)
    if len(args) == 2 and type(None) in args:
        return args[0] if args[1] is type(None) else args[1]
    return None


def _is_structured(hint: Any) -> bool:
    return isinstance(hint, type) and (
        issubclass(hint, pydantic.BaseModel) or dataclasses.is_dataclass(hint) or is_typeddict(hint)
    )


def _type_schema(hint: Any) -> dict[str, Any] | None:
    """The schema pydantic generates for a model-like type, once per type."""
    with _lock:
        if hint in _type_schemas:
            return _type_schemas[hint]
    try:
        schema = pydantic.TypeAdapter(hint).json_schema(ref_template="#/$defs/{model}")
    except Exception:
        schema = None
    if schema is not None and schema.get("title") != hint.__name__:
        schema = None  # generic or renamed models: let pydantic name them
    with _lock:
        _type_schemas[hint] = schema
    return schema


def _structured(hint: Any, defs: dict[str, Any]) -> dict[str, Any] | None:
    schema = _type_schema(hint)
    if schema is None:
        return None
    own = {k: v for k, v in schema.items() if k != "$defs"}
    for name, value in [*schema.get("$defs", {}).items(), (hint.__name__, own)]:
        if defs.setdefault(name, value) != value:
            return None  # two different types with one name
    return {"$ref": f"#/$defs/{hint.__name__}"}


def _field(hint: Any, name: str, defs: dict[str, Any]) -> dict[str, Any] | None:
    schema = _plain(hint)
    if schema is not None:
        return {**schema, "title": name.title().replace("_", " ")}
    if _is_structured(hint):
        return _structured(hint, defs)
    inner = _optional(hint)
    if inner is not None and _is_structured(inner):
        ref = _structured(inner, defs)
        return None if ref is None else {"anyOf": [ref, {"type": "null"}]}
    return None


def fast_params_schema(
    tool: str, params: Sequence[tuple[str, Any, Any, Any, str | None]]
) -> dict[str, Any] | None:
    """The (non-strict) arguments schema, or None when a parameter needs pydantic's path.

    Args:
        tool: The tool name (the schema's title is ``<tool>_args``).
        params: ``(name, kind, annotation, default, description)`` per parameter.
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    defs: dict[str, Any] = {}
    for name, kind, hint, default, description in params:
        if kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            return None
        if name.startswith("_") or name in _RESERVED:
            return None
        schema = _field(hint, name, defs)
        if schema is None:
            return None
        if default is inspect.Parameter.empty:
            required.append(name)
        elif isinstance(default, _JSON_SCALARS):
            schema["default"] = default
        else:
            return None
        if description:
            schema["description"] = description
        properties[name] = schema
    result: dict[str, Any] = {"properties": properties}
    if required:
        result["required"] = required
    result.update(title=f"{tool}_args", type="object")
    if defs:
        result["$defs"] = defs
    return result


_RESERVED = frozenset(dir(pydantic.BaseModel)) | {"model_config"}
