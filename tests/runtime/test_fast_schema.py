"""The fast schema path writes exactly what pydantic's path writes, or steps aside."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Literal, Optional

import pydantic
import pytest
from typing_extensions import TypedDict

from jupyter_agents.runtime.tools.function import _params_model as params_model_module
from jupyter_agents.runtime.tools.function import schema as schema_module
from jupyter_agents.runtime.tools.function._fast_schema import fast_params_schema


class Address(pydantic.BaseModel):
    street: str
    zip: Optional[str] = None


class Person(pydantic.BaseModel):
    name: str
    address: Address
    tags: list[str] = []


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Movie(TypedDict):
    title: str
    year: int


def f_plain(city: str, days: int = 1, ratio: float = 0.5, loud: bool = False) -> None:
    """Plain.

    Args:
        city: The city.
        days: How many days.
    """


def f_containers(names: list[str], scores: dict[str, float], grid: list[list[int]]) -> None:
    """Containers."""


def f_optional(note: Optional[str] = None, count: int | None = None) -> None:
    """Optionals."""


def f_literal(mode: Literal["fast", "slow"], level: Literal[1, 2, 3] = 1) -> None:
    """Literals."""


def f_models(person: Person, where: Point, movie: Movie, other: Optional[Person] = None) -> None:
    """Models.

    Args:
        person: Who.
    """


def f_snake_case_names(max_tokens: int, user_id2: str, a_b_c: bool) -> None:
    """Names."""


CASES = [
    (func, strict)
    for func in (f_plain, f_containers, f_optional, f_literal, f_models, f_snake_case_names)
    for strict in (True, False)
    if not (strict and func is f_containers)  # dict parameters cannot be strict
]


@pytest.mark.parametrize(("func", "strict"), CASES)
def test_fast_path_matches_pydantic(func: Any, strict: bool) -> None:
    fast = schema_module.function_schema(func, strict_json_schema=strict)
    signature = inspect.signature(func)
    hints = schema_module._type_hints(func, func.__name__)
    doc = schema_module.generate_func_documentation(func, None)  # type: ignore[attr-defined]
    specs = tuple(
        schema_module._field_spec(func.__name__, p, hints, doc.param_descriptions, strict)
        for p in signature.parameters.values()
    )
    rows = [(s.param, s.kind, s.annotation, s.default, s.description) for s in specs]
    assert fast_params_schema(func.__name__, rows) is not None  # fast path
    _, slow = params_model_module._build(func.__name__, specs, strict, func.__name__)
    assert fast.params_json_schema == slow
    # The arguments model is built when first needed and validates like pydantic's own.
    assert fast.params_pydantic_model.model_json_schema() is not None


def test_other_types_take_pydantic_path() -> None:
    def with_any(x: Any) -> None:
        """Any."""

    def with_field(x: int = pydantic.Field(default=3, ge=0)) -> None:
        """Field."""

    def with_kwargs(**extra: int) -> None:
        """Kwargs."""

    for func in (with_any, with_field, with_kwargs):
        specs = [
            (p.name, p.kind, p.annotation, p.default, None)
            for p in inspect.signature(func).parameters.values()
        ]
        assert fast_params_schema(func.__name__, specs) is None
