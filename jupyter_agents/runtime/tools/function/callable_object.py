"""Callable instances as function tools, as the SDK takes them: an object whose class defines a
plain ``__call__`` method (sync or async) becomes a tool named after its class, with the
method's parameters, docstring and annotations (resolved in the method's module and its
class's namespace).

Shapes whose contract cannot be read reliably from the class are refused with a ``UserError``
asking for an explicit wrapper function: ``functools.partial`` objects, wrappers that publish
their own ``__wrapped__``, ``__signature__`` or annotations, ``__call__`` attributes that are
not plain functions (static, class or partial methods, custom descriptors, decorated methods),
generic classes, annotations that do not resolve, ``Self``, type variables or aliases in the
contract, and a run context that is not the first positional parameter.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from types import FunctionType
from typing import Annotated, Any, get_args, get_origin, get_type_hints

import typing_extensions

from ...context import RunContextWrapper
from ...errors import UserError
from ._docstrings import DocstringStyle, generate_func_documentation

__all__ = ["adapt_callable_object", "checked_fallback_name"]

_WRAP = "Use an explicit wrapper function"
_MISSING = object()


def checked_fallback_name(name: str) -> str:
    """``name`` when it can name a tool (1 to 64 ASCII letters, digits, ``_`` or ``-``)."""
    if 1 <= len(name) <= 64 and all(c.isascii() and (c.isalnum() or c in "_-") for c in name):
        return name
    raise UserError(
        f"The callable class {name!r} cannot name a tool: a tool name has 1 to 64 ASCII "
        "letters, digits, underscores or hyphens. Pass name_override to function_tool()."
    )


def adapt_callable_object(
    func: Any,
    *,
    name_override: str | None,
    use_docstring_info: bool,
    docstring_style: DocstringStyle | None,
) -> tuple[Callable[..., Any], str | None]:
    """A plain function standing for ``func`` (itself when it is a function, method or
    class), and the description of the tool when the class's docstring gives it (else None).

    Raises:
        UserError: ``func`` is a callable shape whose contract is not read (see the module).
    """
    if isinstance(func, functools.partial):
        raise UserError(
            "Unsupported callable object: a functools.partial's parameters are not read as a "
            f"tool's. {_WRAP} that calls it."
        )
    if inspect.isroutine(func) or inspect.isclass(func):
        return func, None
    owner, method = _plain_call_method(func)
    cls = type(func)
    bound = method.__get__(func, cls)
    signature = inspect.signature(bound)
    namespace = {**vars(owner), owner.__name__: owner}
    try:
        hints = get_type_hints(
            bound, globalns=dict(method.__globals__), localns=namespace, include_extras=True
        )
    except (NameError, TypeError) as error:
        raise UserError(
            f"Unsupported callable object annotations: {_WRAP} with annotations resolvable "
            "from its module."
        ) from error
    _check_contract(signature, hints)

    adapter: Any
    if inspect.iscoroutinefunction(bound):

        async def adapter(*args: Any, **kwargs: Any) -> Any:
            return await bound(*args, **kwargs)

    else:

        def adapter(*args: Any, **kwargs: Any) -> Any:
            return bound(*args, **kwargs)

    adapter.__name__ = cls.__name__ if name_override else checked_fallback_name(cls.__name__)
    adapter.__qualname__ = cls.__qualname__
    adapter.__annotations__ = {
        k: v for k, v in hints.items() if k == "return" or k in signature.parameters
    }
    adapter.__signature__ = signature
    description = None
    if use_docstring_info:
        class_doc = inspect.getdoc(cls)
        call_doc = inspect.cleandoc(method.__doc__) if method.__doc__ else None
        adapter.__doc__ = call_doc or class_doc
        if class_doc and call_doc:  # the class says what the tool is, __call__ its parameters
            description = generate_func_documentation(cls, docstring_style).description
    else:
        adapter.__doc__ = None
    return adapter, description


def _plain_call_method(func: Any) -> tuple[type, FunctionType]:
    """The class defining ``func``'s ``__call__`` and that plain function."""
    try:
        own = vars(func)
    except TypeError:
        own = {}
    if (
        inspect.getattr_static(func, "__wrapped__", _MISSING) is not _MISSING
        or inspect.getattr_static(func, "__signature__", _MISSING) is not _MISSING
        or "__annotations__" in own
        or "__annotate__" in own
    ):
        raise UserError(
            "Unsupported callable wrapper: only plain callable instances are read as tools, not "
            f"objects publishing their own signature or annotations. {_WRAP}."
        )
    owner = next((c for c in type(func).__mro__ if "__call__" in c.__dict__), None)
    if owner is None or owner is object:
        raise UserError("Unsupported callable object: its class has no __call__ method to read.")
    method = owner.__dict__["__call__"]
    if getattr(owner, "__type_params__", ()) or getattr(owner, "__parameters__", ()):
        raise UserError(
            f"Unsupported generic callable object: {_WRAP} with concrete parameter and return "
            "annotations."
        )
    if (
        not isinstance(method, FunctionType)
        or hasattr(method, "__wrapped__")
        or hasattr(method, "__signature__")
    ):
        raise UserError(
            "Unsupported callable object: only a plain __call__ method is read (not a partial, "
            f"static, class or decorated method, a built-in or a custom descriptor). {_WRAP}."
        )
    return owner, method


def _check_contract(signature: inspect.Signature, hints: dict[str, Any]) -> None:
    annotations = [hints.get(n, p.annotation) for n, p in signature.parameters.items()]
    annotations.append(hints.get("return", signature.return_annotation))
    if any(a is not inspect.Signature.empty and _unresolved(a) for a in annotations):
        raise UserError(
            "Unsupported generic or aliased callable object annotations (type variables, Self "
            f"or type aliases): {_WRAP} with concrete parameter and return annotations."
        )
    for index, (name, param) in enumerate(signature.parameters.items()):
        annotation = hints.get(name, param.annotation)
        while get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
        origin = get_origin(annotation) or annotation
        if not (isinstance(origin, type) and issubclass(origin, RunContextWrapper)):
            continue
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        if index != 0 or param.kind not in positional:
            raise UserError(
                "Unsupported callable object context parameter: a RunContextWrapper or "
                f"ToolContext must be the first positional parameter. {_WRAP}."
            )


_VARIABLES: tuple[type, ...] = (typing.TypeVar, typing.ParamSpec, typing_extensions.TypeVar)
_ALIASES: tuple[type, ...] = tuple(
    t
    for t in {getattr(typing, "TypeAliasType", None), typing_extensions.TypeAliasType}
    if isinstance(t, type)
)
_SELF = {getattr(typing, "Self", None), typing_extensions.Self} - {None}


def _unresolved(annotation: Any) -> bool:
    """Whether ``annotation`` holds a type variable, ``Self`` or a type alias anywhere."""
    origin = get_origin(annotation)
    kinds = (*_VARIABLES, *_ALIASES)
    if (
        isinstance(annotation, kinds)
        or isinstance(origin, kinds)
        or any(annotation is s for s in _SELF)
    ):
        return True
    return any(_unresolved(arg) for arg in get_args(annotation))
