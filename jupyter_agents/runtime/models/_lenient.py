"""Output items holding values newer than the installed ``openai`` package knows.

The API adds item types and enum values (a web search's ``sources`` of type ``api``, say)
before the package's generated models list them. The package keeps such values, but pydantic
warns when the item is dumped (``PydanticSerializationUnexpectedValue``), and a dump happens
for every item a run sends back: the warning would be printed into the person's cell. Such an
item is given a subclass of its own class whose dumps do not warn; everything else about it
(fields, ``isinstance``, equality) stays as it was.
"""

from __future__ import annotations

import sys
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

__all__ = ["without_dump_warnings"]

_LENIENT: dict[type[BaseModel], type[BaseModel]] = {}


def without_dump_warnings(item: Any) -> Any:
    """``item``, made to dump without warnings if it holds a value its class does not know
    (changed in place; returned for convenience)."""
    if not isinstance(item, BaseModel) or type(item) in _LENIENT.values():
        return item
    try:
        item.model_dump(mode="json", warnings="error")
    except PydanticSerializationError:
        item.__class__ = _lenient_class(type(item))
    return item


def _lenient_class(cls: type[BaseModel]) -> type[BaseModel]:
    lenient = _LENIENT.get(cls)
    if lenient is not None:
        return lenient

    def model_dump(self: BaseModel, **kwargs: Any) -> dict[str, Any]:
        kwargs.setdefault("warnings", False)
        return cls.model_dump(self, **kwargs)

    def model_dump_json(self: BaseModel, **kwargs: Any) -> str:
        kwargs.setdefault("warnings", False)
        return cls.model_dump_json(self, **kwargs)

    name = f"Lenient{cls.__name__}"
    namespace = {"model_dump": model_dump, "model_dump_json": model_dump_json}
    lenient = type(name, (cls,), {"__module__": __name__, **namespace})
    setattr(sys.modules[__name__], name, lenient)  # so that pickle finds it
    _LENIENT[cls] = lenient
    return lenient
