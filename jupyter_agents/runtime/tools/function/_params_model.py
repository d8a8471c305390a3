"""The arguments model behind a function tool: its fields, how it is built, and the cache that
lets a re-run notebook cell reuse it (building pydantic models dominates a tool's cost)."""

from __future__ import annotations

import functools
import inspect
import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Annotated, Any, Literal, NamedTuple, Union, get_args, get_origin

import pydantic
from pydantic.fields import FieldInfo

from ...errors import UserError
from .strict_schema import (
    StrictSchemaError,
    copy_json,
    describe_schema_path,
    ensure_strict_json_schema,
)

__all__ = [
    "FieldSpec",
    "describe_strict_error",
    "field_name",
    "params_model",
    "shadows_base_model",
    "untyped_params",
]

_P = inspect.Parameter
_EMPTY = inspect.Parameter.empty
# Parameter names pydantic cannot use as field names; such fields get a prefix and an alias.
_RESERVED_FIELD_NAMES = frozenset(dir(pydantic.BaseModel)) | {"model_config"}


class FieldSpec(NamedTuple):
    """Everything about one parameter that shapes its field in the arguments model."""

    param: str
    kind: inspect._ParameterKind
    annotation: Any
    default: Any
    description: str | None
    untyped: bool = False
    """The parameter has no annotation: its value may be anything, even in strict mode."""

    def cache_key(self) -> Hashable:
        return (
            self.param,
            self.kind,
            _hint_key(self.annotation),
            _value_key(self.default),
            self.description,
            self.untyped,
        )


def untyped_params(specs: tuple[FieldSpec, ...]) -> tuple[str, ...]:
    """The parameters without an annotation, whose schema strict mode leaves open."""
    return tuple(spec.param for spec in specs if spec.untyped)


def shadows_base_model(param: str) -> bool:
    """Whether a parameter is named like one of pydantic's own ``BaseModel`` attributes
    (``model_extra``, ``model_fields_set``): its field is renamed, and code reading the model
    by attribute gets ``BaseModel``'s. Pydantic 1's old names (``json``, ``schema``, ``copy``)
    are common parameter names and are left out."""
    return param.startswith("model_") and param in _RESERVED_FIELD_NAMES


def field_name(param: str) -> str:
    return f"f_{param}" if param.startswith("_") or param in _RESERVED_FIELD_NAMES else param


def params_model(
    tool: str, specs: tuple[FieldSpec, ...], strict: bool, function: str | None = None
) -> tuple[type[pydantic.BaseModel], dict[str, Any]]:
    """The arguments model and a private copy of its JSON schema, memoised when possible.

    ``function`` names the Python function in errors (``analyse()`` in ``stats.py``, line 3);
    the tool's name stands for it when not given."""
    key: Hashable | None = (tool, strict, tuple(spec.cache_key() for spec in specs))
    try:
        hash(key)
    except TypeError:  # e.g. an unhashable object inside Annotated metadata
        key = None
    build = functools.partial(_build, tool, specs, strict, function or f"{tool}()")
    model, schema = _MODELS.get_or_build(key, build)
    return model, copy_json(schema)


_Built = tuple[type[pydantic.BaseModel], dict[str, Any]]


class _ModelCache:
    """Keeps the arguments models of shapes built more than once (stored on the second build).

    Keeping every model would slow one-off builds down (long-lived pydantic classes make garbage
    collection costlier); only repeated builds, such as a re-run notebook cell, benefit.
    """

    def __init__(self, size: int, seen_size: int) -> None:
        self._size = size
        self._seen_size = seen_size
        self._models: OrderedDict[Hashable, _Built] = OrderedDict()
        self._seen: set[int] = set()  # hashes only, so no type is kept alive
        self._lock = threading.Lock()

    def get_or_build(self, key: Hashable | None, build: Callable[[], _Built]) -> _Built:
        if key is None:
            return build()
        with self._lock:
            built = self._models.get(key)
            if built is not None:
                self._models.move_to_end(key)
                return built
            repeated = hash(key) in self._seen
            if not repeated:
                if len(self._seen) >= self._seen_size:
                    self._seen.clear()
                self._seen.add(hash(key))
        built = build()
        if repeated:
            with self._lock:
                self._models[key] = built
                if len(self._models) > self._size:
                    self._models.popitem(last=False)
        return built

    def clear(self) -> None:
        with self._lock:
            self._models.clear()
            self._seen.clear()


_MODELS = _ModelCache(size=256, seen_size=4096)


def _build(tool: str, specs: tuple[FieldSpec, ...], strict: bool, function: str) -> _Built:
    """Create the pydantic model and its (strict) JSON schema."""
    fields: dict[str, Any] = {}
    for spec in specs:
        name = field_name(spec.param)
        if name in fields:
            raise UserError(
                f"Tool {tool!r}: parameters {spec.param!r} and {name!r} collide "
                "in the arguments model; rename one of them."
            )
        fields[name] = _field_definition(spec, name)
    config = pydantic.ConfigDict(
        protected_namespaces=(),
        # With **kwargs, a flat unknown key would otherwise be dropped silently.
        extra="forbid" if any(spec.kind is _P.VAR_KEYWORD for spec in specs) else "ignore",
    )
    try:
        model = pydantic.create_model(f"{tool}_args", __config__=config, **fields)
        schema = model.model_json_schema()
    except (pydantic.PydanticUserError, TypeError, ValueError, NameError) as exc:
        raise UserError(_describe_build_error(tool, specs, exc, function)) from exc
    if strict:
        try:
            schema = ensure_strict_json_schema(schema, untyped_params(specs))
        except StrictSchemaError as exc:
            raise UserError(describe_strict_error(tool, exc)) from exc
    return model, schema


def _field_definition(spec: FieldSpec, field_name: str) -> tuple[Any, Any]:
    """The ``(type, FieldInfo)`` pair for ``create_model``."""
    info: dict[str, Any] = {}
    if field_name != spec.param:
        info["alias"] = spec.param
    description = _field_description(spec)
    if description:
        info["description"] = description
    if spec.kind is _P.VAR_POSITIONAL:
        return list.__class_getitem__(spec.annotation), pydantic.Field(default_factory=list, **info)
    if spec.kind is _P.VAR_KEYWORD:
        value_type = dict.__class_getitem__((str, spec.annotation))
        return value_type, pydantic.Field(default_factory=dict, **info)
    if isinstance(spec.default, FieldInfo):
        # The parameter's own Field() keeps its settings; the alias applies where it is
        # silent, and a docstring or Annotated description replaces its description.
        default = spec.default
        if description:
            default = FieldInfo.merge_field_infos(default, description=description)
        info.pop("description", None)
        return Annotated[spec.annotation, pydantic.Field(**info)], default
    if spec.default is not _EMPTY:
        info["default"] = spec.default
    return spec.annotation, pydantic.Field(**info)


def _field_description(spec: FieldSpec) -> str | None:
    """The field description, as the SDK ranks them: the docstring's, else a bare string of
    ``Annotated`` metadata (``Annotated[int, "How many"]``), else None (a ``Field``
    description, when there is one, then stays)."""
    if spec.description:
        return spec.description
    if get_origin(spec.annotation) is Annotated:
        texts = [item for item in spec.annotation.__metadata__ if isinstance(item, str)]
        if texts:
            return texts[-1]
    return None


def describe_strict_error(tool: str, exc: StrictSchemaError) -> str:
    path = exc.path
    if len(path) < 2 or path[0] != "properties":
        return f"Tool {tool!r}: {exc}"
    param = path[1]
    where = describe_schema_path(path)
    at = f" (at {where})" if where != param else ""
    return f"Tool {tool!r}: parameter {param!r}{at}: {exc.reason}; {exc.hint}."


JSON_TYPES = (
    "str, int, float, bool, a list or dict of them, a Literal, an Enum, a TypedDict, a dataclass "
    "or a pydantic model"
)
"""What a tool's parameter may be annotated with: types whose values a model sends as JSON."""


def _describe_build_error(
    tool: str, specs: tuple[FieldSpec, ...], exc: Exception, function: str
) -> str:
    """Name the parameter whose type pydantic rejected (found by trying each on its own), the
    type at fault, and what to annotate it with instead."""
    for spec in specs:
        culprit = _unsendable(_field_definition(spec, spec.param)[0])
        if culprit is None:
            continue
        return (
            f"Tool {tool!r}: parameter {spec.param!r} of {function} is annotated "
            f"{_type_name(spec.annotation)}; a model cannot send a {_type_name(culprit)}, since "
            f"a model's arguments are JSON. Annotate {spec.param!r} with {JSON_TYPES} instead; "
            f"for an object such as a DataFrame, take the name of its variable or file "
            f"(`{spec.param}: str`) and look it up in the function."
        )
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"Tool {tool!r}: cannot build the arguments model of {function}: {first_line}"


def _unsendable(hint: Any) -> Any:
    """The part of ``hint`` (itself, or the innermost of its arguments) that has no JSON
    schema, or None when all of it has one."""
    try:
        pydantic.TypeAdapter(hint).json_schema()
        return None
    except (pydantic.PydanticUserError, TypeError, ValueError, NameError):
        pass
    for arg in get_args(hint):
        if isinstance(arg, type) or get_args(arg):  # not a Literal's value, not metadata
            inner = _unsendable(arg)
            if inner is not None:
                return inner
    return hint


def _type_name(hint: Any) -> str:
    """A type as its author likely wrote it: ``pandas.DataFrame`` (where the package exports
    it), ``Thing`` (defined in the notebook), ``list[Thing] | None``."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is type(None):
        return "None"
    if isinstance(hint, list):  # a Callable's parameters
        return f"[{', '.join(_type_name(arg) for arg in hint)}]"
    if origin is Annotated:
        return f"Annotated[{', '.join([_type_name(args[0]), *map(repr, args[1:])])}]"
    if origin in (Union, types.UnionType):
        return " | ".join(_type_name(arg) for arg in args)
    if origin is Literal or not isinstance(origin or hint, type):
        return repr(hint).replace("typing.", "")
    if args:
        return f"{_type_name(origin)}[{', '.join(_type_name(arg) for arg in args)}]"
    module, name = hint.__module__, hint.__qualname__
    if module in ("builtins", "__main__", "typing", "collections.abc"):
        return str(name)
    package = module.split(".")[0]
    exported = getattr(sys.modules.get(package), name, None) is hint
    return f"{package if exported else module}.{name}"


class _Identity:
    """Compares by identity; stands in for values that are unhashable or unsafe to compare."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.obj is self.obj


def _hint_key(hint: Any) -> Hashable:
    """Cache key of a type hint that keeps argument order (``int | str`` equals ``str | int``)."""
    args = get_args(hint)
    if not args:
        return _value_key(hint)
    return (get_origin(hint), tuple(_hint_key(arg) for arg in args))


def _value_key(value: Any) -> Hashable:
    """Cache key of a default or a ``Literal``/``Annotated`` argument."""
    if isinstance(value, type):
        return value
    if value is None or type(value) in (str, int, bool):
        # The type is part of the key because 1 == True == 1.0 but their schemas differ.
        return (type(value), value)
    if type(value) is float:
        return (float, repr(value))
    return _Identity(value)
