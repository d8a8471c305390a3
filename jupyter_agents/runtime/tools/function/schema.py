"""Describe a Python function as a tool: its arguments model, its JSON schema, how to call it.

Type hints are resolved with ``typing.get_type_hints`` (string annotations work), the
docstring supplies descriptions, and the schema is made strict by default. Building the pydantic
model dominates the cost, so models are memoised on everything that shapes them: rebuilding a
tool from the same function, or re-running the notebook cell that defines it, reuses the model
(each call still gets its own copy of the JSON schema).
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, get_args, get_origin, get_type_hints

import pydantic

from ...context import RunContextWrapper
from ...errors import ModelBehaviorError, UserError
from ._docstrings import DocstringStyle, generate_func_documentation
from ._fast_schema import fast_params_schema
from ._params_model import (
    FieldSpec,
    describe_strict_error,
    field_name,
    params_model,
    shadows_base_model,
    untyped_params,
)
from .strict_schema import (
    StrictSchemaError,
    ensure_strict_json_schema,
)

__all__ = ["DocstringStyle", "FuncSchema", "function_schema"]

_P = inspect.Parameter
_EMPTY = inspect.Parameter.empty


@dataclass(frozen=True)
class FuncSchema:
    """A function described as a tool: what to send to the model and how to call the function."""

    name: str
    """The tool name (the function's ``__name__`` unless overridden)."""

    description: str | None
    """The tool description, from the docstring unless overridden."""

    params_json_schema: dict[str, Any]
    """JSON schema of the arguments, strict when ``strict_json_schema`` is set."""

    signature: inspect.Signature
    """The function's signature, context parameter included."""

    takes_context: bool
    """Whether the first parameter is a ``RunContextWrapper`` (or ``ToolContext``) that the
    caller passes in front of the arguments from ``to_call_args``."""

    strict_json_schema: bool = True
    """Whether ``params_json_schema`` was made strict."""

    model_factory: Callable[[], type[pydantic.BaseModel]] | None = field(
        default=None, repr=False, compare=False
    )
    """Builds the arguments model (deferred: many tools are never called)."""

    @functools.cached_property
    def params_pydantic_model(self) -> type[pydantic.BaseModel]:
        """Validates the model's arguments; one field per parameter (the context excluded)."""
        assert self.model_factory is not None
        return self.model_factory()

    def to_call_args(self, data: pydantic.BaseModel) -> tuple[list[Any], dict[str, Any]]:
        """Turn validated arguments into ``(args, kwargs)`` for calling the function.

        Args:
            data: An instance of ``params_pydantic_model``.

        Returns:
            Positional and keyword arguments, without the context (the caller prepends it).

        Raises:
            ModelBehaviorError: A ``**kwargs`` key repeats a named parameter.
        """
        values = data.__dict__
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        params = list(self.signature.parameters.values())
        for param in params[1:] if self.takes_context else params:
            value = values.get(field_name(param.name))
            if param.kind is _P.VAR_POSITIONAL:
                args.extend(value or ())
            elif param.kind is _P.VAR_KEYWORD:
                named = {
                    p.name for p in params if p.kind in (_P.POSITIONAL_OR_KEYWORD, _P.KEYWORD_ONLY)
                }
                clash = sorted(named.intersection(value or {}))
                if clash:
                    raise ModelBehaviorError(
                        f"Tool {self.name!r}: {', '.join(map(repr, clash))} passed both as a "
                        f"parameter and inside {param.name!r}; pass each argument once."
                    )
                kwargs.update(value or {})
            elif param.kind is _P.KEYWORD_ONLY:
                kwargs[param.name] = value
            else:
                args.append(value)
        return args, kwargs


def function_schema(
    func: Callable[..., Any],
    docstring_style: DocstringStyle | None = None,
    name_override: str | None = None,
    description_override: str | None = None,
    use_docstring_info: bool = True,
    strict_json_schema: bool = True,
) -> FuncSchema:
    """Describe a function as a tool.

    Args:
        func: The function. A first parameter annotated ``RunContextWrapper`` or ``ToolContext``
            (or a subclass or parameterisation of them) receives the run context and is left
            out of the schema.
        docstring_style: The docstring convention; detected when ``None``.
        name_override: Tool name to use instead of ``func.__name__``.
        description_override: Description to use instead of the docstring's.
        use_docstring_info: Read the description and parameter descriptions from the docstring.
        strict_json_schema: Make the schema strict (recommended: the model then always sends
            arguments that match it).

    Returns:
        The schema, the arguments model and what is needed to call the function.

    Raises:
        UserError: The function cannot be described (a type annotation does not resolve, the
            context parameter is not first, a type cannot be validated by pydantic, or, in strict
            mode, a parameter cannot be expressed strictly). The message names the parameter.
    """
    doc = generate_func_documentation(func, docstring_style) if use_docstring_info else None
    name = name_override or getattr(func, "__name__", None) or type(func).__name__
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise UserError(f"Cannot read the signature of tool {name!r}: {exc}") from exc
    hints = _type_hints(func, name)
    params = list(signature.parameters.values())
    takes_context = bool(params) and _is_context(hints.get(params[0].name, _EMPTY))
    if takes_context and params[0].kind not in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD):
        raise UserError(
            f"Tool {name!r}: the context parameter {params[0].name!r} must be positional."
        )
    descriptions = doc.param_descriptions if doc else {}
    specs = tuple(
        _field_spec(name, param, hints, descriptions, strict_json_schema)
        for param in (params[1:] if takes_context else params)
    )
    _warn_about(name, specs)
    json_schema = _fast_schema(name, specs, strict_json_schema)
    if json_schema is not None:
        factory = functools.partial(_model_only, name, specs, strict_json_schema)
    else:  # pydantic's path: build now, so a bad type fails at decoration time
        model, json_schema = params_model(name, specs, strict_json_schema, _where(func))
        factory = functools.partial(_identity, model)
    return FuncSchema(
        name=name,
        description=description_override or (doc.description if doc else None),
        params_json_schema=json_schema,
        signature=signature,
        takes_context=takes_context,
        strict_json_schema=strict_json_schema,
        model_factory=factory,
    )


def _where(func: Callable[..., Any]) -> str:
    """The function as its author knows it: ``analyse()``, and where it is defined when that is
    a file of theirs (a notebook cell's code has none worth naming)."""
    target = func.func if isinstance(func, functools.partial) else func
    name = getattr(target, "__qualname__", None) or type(target).__name__
    code = getattr(target, "__code__", None)
    file: str = getattr(code, "co_filename", "")
    if code is None or not file or file.startswith("<") or "ipykernel" in file:
        return f"{name}()"
    return f"{name}() ({file}, line {code.co_firstlineno})"


def _identity(model: type[pydantic.BaseModel]) -> type[pydantic.BaseModel]:
    return model


def _model_only(tool: str, specs: tuple[FieldSpec, ...], strict: bool) -> type[pydantic.BaseModel]:
    return params_model(tool, specs, strict)[0]


def _fast_schema(tool: str, specs: tuple[FieldSpec, ...], strict: bool) -> dict[str, Any] | None:
    rows = [(s.param, s.kind, s.annotation, s.default, s.description) for s in specs]
    schema = fast_params_schema(tool, rows)
    if schema is None or not strict:
        return schema
    try:
        return ensure_strict_json_schema(schema, untyped_params(specs))
    except StrictSchemaError as exc:
        raise UserError(describe_strict_error(tool, exc)) from exc


def _type_hints(func: Callable[..., Any], name: str) -> dict[str, Any]:
    """Resolve annotations (including string ones), keeping ``Annotated`` metadata."""
    target: Any = func
    if isinstance(target, functools.partial):
        target = target.func
    elif not (inspect.isfunction(target) or inspect.ismethod(target)) and callable(target):
        target = type(target).__call__
    try:
        return get_type_hints(target, include_extras=True)
    except NameError as exc:
        raise UserError(
            f"Tool {name!r}: the type annotation {exc.name!r} does not resolve. Import or define "
            "it at module level before building the tool."
        ) from exc
    except TypeError:
        return {}


def _fixed_tuple(annotation: Any) -> bool:
    """``tuple[A, B]`` or ``tuple[()]`` (``Annotated`` or not), not ``tuple[A, ...]``."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) is not tuple:
        return False
    args = get_args(annotation)
    return not (len(args) == 2 and args[1] is Ellipsis)


def _is_context(annotation: Any) -> bool:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    origin = get_origin(annotation) or annotation
    return isinstance(origin, type) and issubclass(origin, RunContextWrapper)


def _field_spec(
    tool: str,
    param: inspect.Parameter,
    hints: Mapping[str, Any],
    descriptions: Mapping[str, str],
    strict: bool,
) -> FieldSpec:
    """Check one parameter and gather what its field needs."""
    annotation = hints.get(param.name, _EMPTY)
    if _is_context(annotation):
        raise UserError(
            f"Tool {tool!r}: parameter {param.name!r} is a run context but not the first "
            "parameter. Make it the first parameter; the runtime passes the context first."
        )
    if strict and param.kind is _P.VAR_KEYWORD:
        raise UserError(
            f"Tool {tool!r}: parameter '**{param.name}' takes arbitrary keyword arguments, which "
            "strict mode cannot describe. Use named parameters or a pydantic model, or set "
            "strict_mode=False."
        )
    if param.kind is _P.VAR_POSITIONAL and _fixed_tuple(annotation):
        raise UserError(
            f"Tool {tool!r}: '*{param.name}' is annotated with a fixed-length tuple, which cannot "
            "describe every positional argument; use tuple[T, ...] or list[T] instead."
        )
    return FieldSpec(
        param=param.name,
        kind=param.kind,
        annotation=Any if annotation is _EMPTY else annotation,
        default=param.default,
        description=descriptions.get(param.name),
        untyped=strict and annotation is _EMPTY,
    )


_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


def _user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside this package (the
    user's decorator or ``function_tool()`` call)."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def _warn_about(tool: str, specs: tuple[FieldSpec, ...]) -> None:
    """Warn (once per tool made) about parameters the tool accepts but that will cause trouble:
    ones without an annotation in strict mode (OpenAI's strict mode refuses a schema node
    without a type, as the SDK lets such a tool be made), and ones named like a pydantic
    ``BaseModel`` attribute."""
    for spec in specs:  # the usual case, on every tool made: nothing to say
        if spec.untyped or spec.param.startswith("model_"):
            break
    else:
        return
    untyped = untyped_params(specs)
    if untyped:
        names = ", ".join(map(repr, untyped))
        which = f"parameter {names} has" if len(untyped) == 1 else f"parameters {names} have"
        warnings.warn(
            f"Tool {tool!r}: {which} no type annotation, so its schema accepts any value, "
            "which OpenAI's strict mode refuses (a 400 on each request). Annotate it (e.g. "
            f"`{untyped[0]}: str`) or set strict_mode=False.",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
    for spec in specs:
        if shadows_base_model(spec.param):
            warnings.warn(
                f"Tool {tool!r}: parameter {spec.param!r} shadows an attribute of pydantic's "
                f"BaseModel; the tool works, but reading {spec.param!r} from its arguments "
                "model gives BaseModel's attribute. Rename the parameter to avoid this.",
                UserWarning,
                stacklevel=_user_stacklevel(),
            )
