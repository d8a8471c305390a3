"""Turn a JSON schema into one OpenAI accepts for strict function calling and structured output.

Strict mode wants closed objects (``additionalProperties: false``) whose properties are all
``required``, and no ``$ref`` with sibling keywords. ``ensure_strict_json_schema`` rewrites
a schema (typically one pydantic produced) into that shape, and raises
``StrictSchemaError`` for the constructs strict mode cannot express:

* ``dict[str, T]`` and other open objects (``additionalProperties`` true or a schema,
  ``patternProperties``, ``{"type": "object"}`` with no declared properties);
* values with no type at all (``Any``, ``object``, a bare ``list``); a function tool's
  parameters without an annotation are let through when named in ``untyped``.

Optional values keep the ``anyOf: [..., {"type": "null"}]`` pydantic produces for ``X | None``;
defaults other than ``None`` stay as a hint, and ``default: None`` is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from ...errors import UserError

__all__ = ["StrictSchemaError", "copy_json", "describe_schema_path", "ensure_strict_json_schema"]

_DEF_KEYS = ("$defs", "definitions")
_SCHEMA_MAP_KEYS = frozenset({"properties", "$defs", "definitions"})
_SCHEMA_LIST_KEYS = frozenset({"anyOf", "allOf", "prefixItems"})
# Keywords that give a schema some shape. A schema with none of them accepts anything.
_SHAPE_KEYS = frozenset({"type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const", "not"})
# Keywords that only annotate a schema, so they can sit next to a singleton allOf entry.
_ANNOTATION_KEYS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"}
)
_DEFAULT_HINT = "use a pydantic model or set strict_mode=False"
_ANY_REASON = (
    "a value of any type (Any, object or a missing annotation) cannot be used with strict mode"
)
_REF_HINT = "fix the schema's $refs or set strict_mode=False"
_ANY_HINT = "annotate it with a concrete type or set strict_mode=False"


class StrictSchemaError(UserError):
    """A schema contains something strict mode cannot express.

    The message names where (see ``describe_schema_path``) and what to change.
    """

    path: tuple[str, ...]
    """Keys leading from the root to the offending schema. Crossing a ``$ref`` continues from
    the referring schema, so the path reads as the value's location in the JSON document
    (``("properties", "order", "properties", "scores")``), not as a pointer into ``$defs``."""

    reason: str
    """What is wrong, e.g. ``dict[str, T] (additionalProperties: {...}) cannot be used with
    strict mode``."""

    hint: str
    """What to do about it."""

    def __init__(self, reason: str, path: tuple[str, ...], hint: str = _DEFAULT_HINT) -> None:
        where = describe_schema_path(path) or "the schema root"
        super().__init__(f"{where}: {reason}; {hint}")
        self.path = path
        self.reason = reason
        self.hint = hint


def describe_schema_path(path: tuple[str, ...]) -> str:
    """Render a schema path the way a Python user reads it, e.g. ``order.items[].price``.

    Args:
        path: Keys from the root of the schema, as in ``StrictSchemaError.path``.

    Returns:
        A dotted location (``""`` for the root).
    """
    out = ""
    tokens = iter(path)
    for token in tokens:
        if token in ("properties", "$defs", "definitions"):
            name = next(tokens, "")
            out = f"{out}.{name}" if out else name
        elif token == "items":
            out += "[]"
        elif token == "prefixItems":
            out += f"[{next(tokens, '')}]"
        elif token == "additionalProperties":
            out += "[*]"
        elif token in ("anyOf", "oneOf", "allOf"):
            next(tokens, None)  # a union member lives at the same place as the union
    return out


def ensure_strict_json_schema(
    schema: dict[str, Any], untyped: Collection[str] = ()
) -> dict[str, Any]:
    """Return a strict-mode copy of ``schema``; the input is left untouched.

    Every object becomes closed with all properties required; ``$defs`` that are still used
    are made strict too, unused ones are dropped; a ``$ref`` with sibling keywords is replaced
    by the referenced schema merged with those siblings; a singleton ``allOf`` is unwrapped;
    ``oneOf`` becomes ``anyOf`` (its ``discriminator`` kept, as in the SDK); ``default: None`` is
    removed.

    Args:
        schema: A JSON schema whose root is an object, as pydantic's ``model_json_schema()``
            produces.
        untyped: Properties of the root that may accept any value (the parameters of a function
            tool that have no annotation, as the SDK allows): they are left as they are.

    Returns:
        The strict schema.

    Raises:
        StrictSchemaError: Part of the schema cannot be made strict; the message names it.
    """
    return _Strictifier(schema, untyped).run()


class _Strictifier:
    """One conversion: tracks which definitions are needed and which refs are being inlined."""

    def __init__(self, root: dict[str, Any], untyped: Collection[str] = ()) -> None:
        self.root = root
        self.untyped = frozenset(("properties", name) for name in untyped)
        self.defs: dict[str, dict[str, Any]] = {
            key: root[key] for key in _DEF_KEYS if isinstance(root.get(key), dict)
        }
        self.queue: list[tuple[str, str, tuple[str, ...]]] = []
        self.queued: set[tuple[str, str]] = set()
        self.inlining: list[str] = []

    def run(self) -> dict[str, Any]:
        body = {k: v for k, v in self.root.items() if k not in self.defs}
        # A recursive pydantic model at the root comes out as {"$defs": ..., "$ref": ...}.
        out = self.inline_ref(body, ()) if "$ref" in body else self.node(body, ())
        if out.get("type") != "object" or "properties" not in out:
            raise StrictSchemaError("the root of a strict schema must be an object", ())
        done: dict[str, dict[str, Any]] = {}
        while self.queue:
            key, name, via = self.queue.pop(0)
            done.setdefault(key, {})[name] = self.node(self.defs[key][name], via)
        for key in _DEF_KEYS:
            if key in done:
                # Keep the original order of definitions so output is stable.
                out[key] = {n: done[key][n] for n in self.defs[key] if n in done[key]}
        return out

    def node(self, schema: Any, path: tuple[str, ...]) -> dict[str, Any]:
        """Strict copy of one schema node."""
        if path in self.untyped and isinstance(schema, dict) and _shapeless(schema):
            return {k: copy_json(v) for k, v in schema.items() if k != "default" or v is not None}
        if schema is True or schema == {}:
            raise StrictSchemaError(_ANY_REASON, path, _ANY_HINT)
        if not isinstance(schema, dict):
            raise StrictSchemaError(f"{schema!r} is not a schema object", path)
        if "$ref" in schema and len(schema) > 1:
            return self.inline_ref(schema, path)
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1:
            return self.node(_merge_singleton_all_of(schema, path), path)
        if "oneOf" in schema:
            schema = _one_of_to_any_of(schema, path)
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "default" and value is None:
                continue
            if key in _SCHEMA_MAP_KEYS and isinstance(value, dict):
                out[key] = {n: self.node(s, (*path, key, n)) for n, s in value.items()}
            elif key in _SCHEMA_LIST_KEYS and isinstance(value, list):
                out[key] = [self.node(s, (*path, key, str(i))) for i, s in enumerate(value)]
            elif key == "items" and value is not False:
                out[key] = self.node(value, (*path, key))
            elif key == "$ref":
                self.need(value, path)
                out[key] = value
            else:
                out[key] = copy_json(value)
        if _is_object(schema):
            _close_object(schema, out, path)
        elif _shapeless(schema):
            raise StrictSchemaError(_ANY_REASON, path, _ANY_HINT)
        elif (
            schema.get("type") == "array" and "items" not in schema and "prefixItems" not in schema
        ):
            raise StrictSchemaError(
                "a list without an item type cannot be used with strict mode", path, _ANY_HINT
            )
        return out

    def inline_ref(self, schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
        """Replace ``{"$ref": ..., **siblings}`` by the target merged with the siblings."""
        ref = schema["$ref"]
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        if ref in self.inlining:
            if siblings.keys() <= _ANNOTATION_KEYS:
                # A recursive field cannot be inlined forever; its annotations are dropped.
                self.need(ref, path)
                return {"$ref": ref}
            raise StrictSchemaError(f"the $ref {ref!r} refers to itself", path, _REF_HINT)
        target = self.resolve(ref, path)
        self.inlining.append(ref)
        try:
            return self.node({**target, **siblings}, path)
        finally:
            self.inlining.pop()

    def need(self, ref: Any, path: tuple[str, ...]) -> None:
        """Note that a ``$ref`` is kept, so the definition it points into must be converted."""
        self.resolve(ref, path)
        parts = ref[2:].split("/")
        if len(parts) >= 2 and parts[0] in self.defs:
            key, name = parts[0], _unescape(parts[1])
            if (key, name) not in self.queued:
                self.queued.add((key, name))
                self.queue.append((key, name, path))

    def resolve(self, ref: Any, path: tuple[str, ...]) -> dict[str, Any]:
        """Follow a local JSON pointer such as ``#/$defs/Item``."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise StrictSchemaError(
                f"only local $refs can be made strict, not {ref!r}", path, _REF_HINT
            )
        target: Any = self.root
        for part in filter(None, ref[1:].split("/")):
            key = _unescape(part)
            if not isinstance(target, dict) or key not in target:
                raise StrictSchemaError(f"the $ref {ref!r} does not resolve", path, _REF_HINT)
            target = target[key]
        if not isinstance(target, dict):
            raise StrictSchemaError(f"the $ref {ref!r} does not point to a schema", path, _REF_HINT)
        return target


def _shapeless(schema: dict[str, Any]) -> bool:
    """Whether ``schema`` accepts any value (it has no keyword that gives it a shape)."""
    return schema.keys().isdisjoint(_SHAPE_KEYS)


def _is_object(schema: dict[str, Any]) -> bool:
    typ = schema.get("type")
    if typ is None:
        return "properties" in schema
    return typ == "object" or (isinstance(typ, list) and "object" in typ)


def _close_object(schema: dict[str, Any], out: dict[str, Any], path: tuple[str, ...]) -> None:
    """Make an object closed with every property required, or explain why it cannot be."""
    extra = schema.get("additionalProperties")
    if extra is True:
        raise StrictSchemaError(
            "a free-form dict (additionalProperties: true) cannot be used with strict mode", path
        )
    if isinstance(extra, dict):
        raise StrictSchemaError(
            f"dict[str, T] (additionalProperties: {_brief(extra)}) cannot be used with strict mode",
            path,
        )
    if "patternProperties" in schema:
        raise StrictSchemaError(
            "an object with patternProperties cannot be used with strict mode", path
        )
    if "properties" not in schema and extra is not False:
        raise StrictSchemaError(
            "an object with no declared properties (a free-form dict) cannot be used with "
            "strict mode",
            path,
        )
    if "type" not in out:
        out["type"] = "object"
    out.setdefault("properties", {})
    out["required"] = list(out["properties"])
    out["additionalProperties"] = False


def _merge_singleton_all_of(schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """Unwrap ``{"allOf": [X], **rest}`` into ``{**X, **rest}`` when ``rest`` only annotates."""
    entry = schema["allOf"][0]
    rest = {k: v for k, v in schema.items() if k != "allOf"}
    if not isinstance(entry, dict):
        raise StrictSchemaError(f"{entry!r} is not a schema object", (*path, "allOf", "0"))
    clashing = sorted(k for k in rest if k in entry and k not in _ANNOTATION_KEYS)
    if clashing:
        raise StrictSchemaError(
            f"an allOf whose member repeats {', '.join(clashing)} cannot be merged for strict mode",
            path,
        )
    return {**entry, **rest}


def _one_of_to_any_of(schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """Rewrite ``oneOf`` (unsupported in strict mode) as ``anyOf``; a ``discriminator`` stays.
    A schema with both is refused: merging them into one ``anyOf`` (as the SDK does) would
    accept values the schema does not."""
    if "anyOf" in schema:
        raise StrictSchemaError(
            "a schema with both anyOf and oneOf cannot be used with strict mode", path
        )
    return {("anyOf" if k == "oneOf" else k): v for k, v in schema.items()}


def copy_json(value: Any) -> Any:
    """Copy JSON data so the result shares no mutable containers with the input."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _brief(schema: dict[str, Any], limit: int = 80) -> str:
    text = json.dumps(schema, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
