"""A small JSON Schema check for edited tool arguments of hand-built tools.

Covers what tool schemas use: type, properties, required, additionalProperties, items, enum,
const, anyOf/oneOf and local ``$ref``s. Tools built with ``@tool`` validate with their pydantic
model instead.
"""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
    "null": (type(None),),
}


def _type_ok(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES.get(kind, (object,)))


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return schema
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part, {}) if isinstance(target, dict) else {}
    return target if isinstance(target, dict) else {}


def problems(value: Any, schema: dict[str, Any], root: dict[str, Any], path: str) -> list[str]:
    """Every way ``value`` fails ``schema`` (empty when it conforms)."""
    schema = _resolve(schema, root)
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        if any(not problems(value, option, root, path) for option in options):
            return []
        return [f"{path}: does not match any allowed form"]
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    if kinds and not any(_type_ok(value, k) for k in kinds):
        return [f"{path}: expected {' or '.join(kinds)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: must be one of {schema['enum']}"]
    if "const" in schema and value != schema["const"]:
        return [f"{path}: must be {schema['const']!r}"]
    found: list[str] = []
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                found.append(f"{path}.{name}: required")
        for name, item in value.items():
            if name in properties:
                found.extend(problems(item, properties[name], root, f"{path}.{name}"))
            elif schema.get("additionalProperties") is False:
                found.append(f"{path}.{name}: not an allowed field")
    if isinstance(value, (list, tuple)) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            found.extend(problems(item, schema["items"], root, f"{path}[{i}]"))
    return found


def check_arguments(arguments: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """None when ``arguments`` conform to ``schema``, else a one-line description."""
    found = problems(arguments, schema, schema, "arguments")
    return "; ".join(found) if found else None
