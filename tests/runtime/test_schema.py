"""Tests for describing Python functions as tools (schema, arguments model, call arguments)."""

from __future__ import annotations

import dataclasses
import enum
import warnings
from collections.abc import Callable
from typing import Annotated, Any, Literal, Optional

import pydantic
import pytest
from pydantic import BaseModel, Field
from typing_extensions import NotRequired, TypedDict

from jupyter_agents.runtime.context import RunContextWrapper, ToolContext
from jupyter_agents.runtime.errors import ModelBehaviorError, UserError
from jupyter_agents.runtime.tools.function import _params_model as params_model_module
from jupyter_agents.runtime.tools.function.schema import FuncSchema, function_schema

# Types live at module level: with `from __future__ import annotations` the annotations are
# strings, resolved against the module globals.


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    """A postal address."""

    street: str
    zip_code: Optional[str] = None


@dataclasses.dataclass
class Window:
    start: int
    end: int = 10


class Filters(TypedDict):
    tags: list[str]
    lang: NotRequired[str]


class Loose(BaseModel):
    name: str
    extra: dict[str, int]


@dataclasses.dataclass
class MyCtx:
    user: str


class MyWrapper(RunContextWrapper[MyCtx]):
    pass


def call(fs: FuncSchema, func: Any, arguments: dict[str, Any], *context: Any) -> Any:
    """Validate like the runtime does, then call the function."""
    args, kwargs = fs.to_call_args(fs.params_pydantic_model.model_validate(arguments))
    return func(*context, *args, **kwargs)


def search(
    query: str,
    limit: int = 5,
    ratio: float = 0.5,
    exact: bool = False,
    tags: list[str] | None = None,
    mode: Literal["fast", "deep"] = "fast",
    color: Color = Color.RED,
) -> str:
    """Search the catalogue.

    Args:
        query: What to look for.
        limit: Max results.
    """
    return f"{query}|{limit}|{ratio}|{exact}|{tags}|{mode}|{color.value}"


SEARCH_PROPERTIES: dict[str, Any] = {
    "query": {"description": "What to look for.", "title": "Query", "type": "string"},
    "limit": {"default": 5, "description": "Max results.", "title": "Limit", "type": "integer"},
    "ratio": {"default": 0.5, "title": "Ratio", "type": "number"},
    "exact": {"default": False, "title": "Exact", "type": "boolean"},
}
STRING_LIST = {"items": {"type": "string"}, "type": "array"}


def test_scalar_optional_literal_enum_strict_snapshot() -> None:
    fs = function_schema(search)

    assert fs.name == "search"
    assert fs.description == "Search the catalogue."
    assert fs.takes_context is False
    assert fs.strict_json_schema is True
    assert fs.params_json_schema == {
        "properties": {
            **SEARCH_PROPERTIES,
            "tags": {"anyOf": [STRING_LIST, {"type": "null"}], "title": "Tags"},
            "mode": {
                "default": "fast",
                "enum": ["fast", "deep"],
                "title": "Mode",
                "type": "string",
            },
            "color": {
                "enum": ["red", "blue"],
                "title": "Color",
                "type": "string",
                "default": "red",
            },
        },
        "required": ["query", "limit", "ratio", "exact", "tags", "mode", "color"],
        "title": "search_args",
        "type": "object",
        "additionalProperties": False,
    }


def test_scalar_optional_literal_enum_non_strict_snapshot() -> None:
    fs = function_schema(search, strict_json_schema=False)

    assert fs.strict_json_schema is False
    assert fs.params_json_schema == {
        "$defs": {"Color": {"enum": ["red", "blue"], "title": "Color", "type": "string"}},
        "properties": {
            **SEARCH_PROPERTIES,
            "tags": {"anyOf": [STRING_LIST, {"type": "null"}], "default": None, "title": "Tags"},
            "mode": {
                "default": "fast",
                "enum": ["fast", "deep"],
                "title": "Mode",
                "type": "string",
            },
            "color": {"$ref": "#/$defs/Color", "default": "red"},
        },
        "required": ["query"],
        "title": "search_args",
        "type": "object",
    }


def test_scalar_round_trip_uses_defaults_and_converts_enum() -> None:
    fs = function_schema(search)

    assert call(fs, search, {"query": "tea"}) == "tea|5|0.5|False|None|fast|red"
    got = call(fs, search, {"query": "tea", "limit": 2, "tags": ["a"], "color": "blue"})
    assert got == "tea|2|0.5|False|['a']|fast|blue"


def test_invalid_literal_is_rejected_by_the_model() -> None:
    fs = function_schema(search)

    with pytest.raises(pydantic.ValidationError):
        fs.params_pydantic_model.model_validate({"query": "x", "mode": "slow"})


def nested(
    address: Address,
    window: Window,
    filters: Filters,
    history: list[Address],
    note: Optional[Filters] = None,
) -> str:
    """Use nested types."""
    return f"{address.street}|{window.start}-{window.end}|{filters}|{len(history)}|{note}"


def test_pydantic_dataclass_typeddict_nested_strict_snapshot() -> None:
    fs = function_schema(nested)

    assert fs.params_json_schema == {
        "properties": {
            "address": {"$ref": "#/$defs/Address"},
            "window": {"$ref": "#/$defs/Window"},
            "filters": {"$ref": "#/$defs/Filters"},
            "history": {"items": {"$ref": "#/$defs/Address"}, "title": "History", "type": "array"},
            "note": {"anyOf": [{"$ref": "#/$defs/Filters"}, {"type": "null"}]},
        },
        "required": ["address", "window", "filters", "history", "note"],
        "title": "nested_args",
        "type": "object",
        "additionalProperties": False,
        "$defs": {
            "Address": {
                "description": "A postal address.",
                "properties": {
                    "street": {"title": "Street", "type": "string"},
                    "zip_code": {
                        "anyOf": [{"type": "string"}, {"type": "null"}],
                        "title": "Zip Code",
                    },
                },
                "required": ["street", "zip_code"],
                "title": "Address",
                "type": "object",
                "additionalProperties": False,
            },
            "Filters": {
                "properties": {
                    "tags": {"items": {"type": "string"}, "title": "Tags", "type": "array"},
                    "lang": {"title": "Lang", "type": "string"},
                },
                "required": ["tags", "lang"],
                "title": "Filters",
                "type": "object",
                "additionalProperties": False,
            },
            "Window": {
                "properties": {
                    "start": {"title": "Start", "type": "integer"},
                    "end": {"default": 10, "title": "End", "type": "integer"},
                },
                "required": ["start", "end"],
                "title": "Window",
                "type": "object",
                "additionalProperties": False,
            },
        },
    }


def test_pydantic_dataclass_typeddict_nested_non_strict_snapshot() -> None:
    schema = function_schema(nested, strict_json_schema=False).params_json_schema

    assert schema["required"] == ["address", "window", "filters", "history"]
    assert schema["properties"]["note"] == {
        "anyOf": [{"$ref": "#/$defs/Filters"}, {"type": "null"}],
        "default": None,
    }
    assert schema["$defs"]["Filters"]["required"] == ["tags"]
    assert schema["$defs"]["Window"]["required"] == ["start"]
    assert "additionalProperties" not in schema["$defs"]["Address"]


def test_nested_round_trip_builds_the_declared_types() -> None:
    fs = function_schema(nested)
    arguments = {
        "address": {"street": "Main St", "zip_code": None},
        "window": {"start": 1, "end": 4},
        "filters": {"tags": ["x"], "lang": "en"},
        "history": [{"street": "Old St", "zip_code": "123"}],
        "note": None,
    }

    data = fs.params_pydantic_model.model_validate(arguments)
    args, kwargs = fs.to_call_args(data)

    assert isinstance(args[0], Address) and isinstance(args[1], Window)
    assert kwargs == {}
    assert nested(*args) == "Main St|1-4|{'tags': ['x'], 'lang': 'en'}|1|None"


def annotated(
    count: Annotated[int, Field(description="How many.", ge=1)],
    label: Annotated[str, "A short label."],
    unit: Annotated[str, Field(max_length=3)] = "kg",
    scale: float = Field(default=1.0, description="Multiplier."),
) -> str:
    """Annotated parameters.

    Args:
        count: Counted (the docstring wins over a Field description, as in the SDK).
        unit: The unit.
        scale: Scaled (the docstring wins over the Field default's description).
    """
    return f"{count}{unit}x{scale}:{label}"


def test_annotated_field_metadata_and_descriptions() -> None:
    fs = function_schema(annotated)

    assert fs.params_json_schema["properties"] == {
        "count": {
            "description": "Counted (the docstring wins over a Field description, as in the SDK).",
            "minimum": 1,
            "title": "Count",
            "type": "integer",
        },
        "label": {"description": "A short label.", "title": "Label", "type": "string"},
        "unit": {
            "default": "kg",
            "description": "The unit.",
            "maxLength": 3,
            "title": "Unit",
            "type": "string",
        },
        "scale": {
            "default": 1.0,
            "description": "Scaled (the docstring wins over the Field default's description).",
            "title": "Scale",
            "type": "number",
        },
    }
    # Without a docstring line: a metadata string, else the Field's own description.
    bare = function_schema(annotated, use_docstring_info=False).params_json_schema["properties"]
    assert bare["count"]["description"] == "How many."
    assert bare["label"]["description"] == "A short label."
    assert bare["scale"]["description"] == "Multiplier."
    assert call(fs, annotated, {"count": 2, "label": "a"}) == "2kgx1.0:a"
    with pytest.raises(pydantic.ValidationError):
        fs.params_pydantic_model.model_validate({"count": 0, "label": "a"})


def variadic(first: int, /, *rest: int, sep: str = ",", **named: str) -> str:
    """Join numbers.

    Args:
        first: The first number.
        *rest: More numbers.
        sep: Separator.
        **named: Labels.
    """
    return sep.join(map(str, (first, *rest))) + "|" + ",".join(f"{k}={v}" for k, v in named.items())


def test_variadic_parameters_non_strict() -> None:
    fs = function_schema(variadic, strict_json_schema=False)

    assert fs.params_json_schema == {
        "additionalProperties": False,
        "properties": {
            "first": {"description": "The first number.", "title": "First", "type": "integer"},
            "rest": {
                "description": "More numbers.",
                "items": {"type": "integer"},
                "title": "Rest",
                "type": "array",
            },
            "sep": {"default": ",", "description": "Separator.", "title": "Sep", "type": "string"},
            "named": {
                "additionalProperties": {"type": "string"},
                "description": "Labels.",
                "title": "Named",
                "type": "object",
            },
        },
        "required": ["first"],
        "title": "variadic_args",
        "type": "object",
    }
    got = call(fs, variadic, {"first": 1, "rest": [2, 3], "sep": "-", "named": {"a": "x"}})
    assert got == "1-2-3|a=x"
    assert call(fs, variadic, {"first": 7}) == "7|"


def test_variadic_keywords_reject_flat_extras_and_collisions() -> None:
    fs = function_schema(variadic, strict_json_schema=False)

    with pytest.raises(pydantic.ValidationError):
        fs.params_pydantic_model.model_validate({"first": 1, "a": "x"})
    data = fs.params_pydantic_model.model_validate({"first": 1, "named": {"sep": ";"}})
    with pytest.raises(ModelBehaviorError, match="'sep' passed both"):
        fs.to_call_args(data)


def test_variadic_positional_in_strict_mode() -> None:
    def total(*values: float) -> float:
        return sum(values)

    fs = function_schema(total)

    assert fs.params_json_schema["properties"]["values"] == {
        "items": {"type": "number"},
        "title": "Values",
        "type": "array",
    }
    assert fs.params_json_schema["required"] == ["values"]
    assert call(fs, total, {"values": [1, 2.5]}) == 3.5


def test_variadic_keywords_in_strict_mode_is_a_user_error() -> None:
    with pytest.raises(UserError, match=r"'\*\*named'.*strict_mode=False"):
        function_schema(variadic)


def with_wrapper(ctx: RunContextWrapper[Any], x: int) -> str:
    return f"{ctx.context}:{x}"


def with_tool_context(ctx: ToolContext[Any], x: int) -> str:
    return f"{ctx.tool_name}:{x}"


def with_generic(ctx: RunContextWrapper[MyCtx], x: int) -> str:
    return f"{ctx.context.user}:{x}"


def with_subclass(ctx: MyWrapper, x: int) -> str:
    return f"{ctx.context.user}:{x}"


def with_bare_wrapper(ctx: RunContextWrapper, x: int) -> str:
    return f"{ctx.context}:{x}"


@pytest.mark.parametrize(
    ("func", "ctx", "expected"),
    [
        (with_wrapper, RunContextWrapper(context="c"), "c:1"),
        (with_bare_wrapper, RunContextWrapper(context="c"), "c:1"),
        (with_tool_context, ToolContext(context=None, tool_name="t"), "t:1"),
        (with_generic, RunContextWrapper(context=MyCtx(user="u")), "u:1"),
        (with_subclass, MyWrapper(context=MyCtx(user="u")), "u:1"),
    ],
)
def test_context_parameter_is_injected(func: Any, ctx: Any, expected: str) -> None:
    fs = function_schema(func)

    assert fs.takes_context is True
    assert list(fs.params_json_schema["properties"]) == ["x"]
    assert list(fs.params_pydantic_model.model_fields) == ["x"]
    assert call(fs, func, {"x": 1}, ctx) == expected


def test_context_parameter_not_first_is_a_user_error() -> None:
    def late(x: int, ctx: RunContextWrapper[Any]) -> None:
        pass

    with pytest.raises(UserError, match="parameter 'ctx' is a run context but not the first"):
        function_schema(late)


def dict_param(name: str, scores: dict[str, int]) -> int:
    return sum(scores.values())


def test_dict_parameter_in_strict_mode_names_the_parameter() -> None:
    with pytest.raises(UserError) as info:
        function_schema(dict_param)

    assert str(info.value) == (
        "Tool 'dict_param': parameter 'scores': dict[str, T] (additionalProperties: "
        '{"type": "integer"}) cannot be used with strict mode; use a pydantic model or set '
        "strict_mode=False."
    )


def test_dict_parameter_works_without_strict_mode() -> None:
    fs = function_schema(dict_param, strict_json_schema=False)

    assert fs.params_json_schema["properties"]["scores"] == {
        "additionalProperties": {"type": "integer"},
        "title": "Scores",
        "type": "object",
    }
    assert call(fs, dict_param, {"name": "n", "scores": {"a": 1, "b": 2}}) == 3


def test_nested_non_strict_type_names_the_parameter_and_location() -> None:
    def order(ref: str, item: Loose) -> None:
        pass

    with pytest.raises(UserError, match=r"parameter 'item' \(at item\.extra\): dict\[str, T\]"):
        function_schema(order)


def test_any_parameter_in_strict_mode() -> None:
    def anything(value: Any) -> None:
        pass

    with pytest.raises(UserError, match="parameter 'value': a value of any type") as info:
        function_schema(anything)
    assert "annotate it with a concrete type" in str(info.value)
    assert function_schema(anything, strict_json_schema=False).params_json_schema["properties"] == {
        "value": {"title": "Value"}
    }


def test_bare_list_in_strict_mode_names_the_items() -> None:
    def items(values: list) -> None:  # type: ignore[type-arg]
        pass

    with pytest.raises(UserError, match=r"parameter 'values' \(at values\[\]\): a value of any"):
        function_schema(items)


def test_missing_annotation() -> None:
    def untyped(x, y: int = 1):  # type: ignore[no-untyped-def]
        return (x, y)

    # Accepted as in the SDK, its node left without a type, with one warning: OpenAI's strict
    # mode refuses such a node.
    with pytest.warns(UserWarning, match=r"parameter 'x' has no type annotation.*Annotate it"):
        strict = function_schema(untyped)
    assert strict.params_json_schema["properties"]["x"] == {"title": "X"}
    assert strict.params_json_schema["required"] == ["x", "y"]
    assert strict.params_json_schema["additionalProperties"] is False
    assert call(strict, untyped, {"x": "a", "y": 2}) == ("a", 2)
    fs = function_schema(untyped, strict_json_schema=False)
    assert fs.params_json_schema["properties"]["x"] == {"title": "X"}
    assert call(fs, untyped, {"x": [1]}) == ([1], 1)


def test_untyped_parameters_are_named_in_one_warning() -> None:
    def two(a, b):  # type: ignore[no-untyped-def]
        return a, b

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        function_schema(two)
    assert [str(w.message) for w in caught] == [
        "Tool 'two': parameters 'a', 'b' have no type annotation, so its schema accepts any "
        "value, which OpenAI's strict mode refuses (a 400 on each request). Annotate it (e.g. "
        "`a: str`) or set strict_mode=False."
    ]
    assert caught[0].filename == __file__  # pointed at the caller, not at this package
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        function_schema(two, strict_json_schema=False)  # not strict: nothing to warn about


def test_untyped_nested_value_is_still_refused_in_strict_mode() -> None:
    def nested(x: list[Any]) -> None:
        pass

    with pytest.raises(UserError, match=r"parameter 'x' \(at x\[\]\): a value of any"):
        function_schema(nested)


@pytest.mark.parametrize("param", ["model_extra", "model_fields_set"])
def test_parameter_named_like_a_base_model_attribute_warns_and_works(param: str) -> None:
    namespace: dict[str, Any] = {}
    exec(f"def f(query: str, {param}: str) -> str:\n    return query + ':' + {param}", namespace)
    with pytest.warns(UserWarning, match=f"parameter '{param}' shadows an attribute"):
        fs = function_schema(namespace["f"])
    assert call(fs, namespace["f"], {"query": "q", param: "v"}) == "q:v"


def test_unresolvable_annotation_is_a_user_error() -> None:
    def later(x: NotDefinedAnywhere) -> None:  # type: ignore[name-defined]  # noqa: F821
        pass

    with pytest.raises(UserError, match="'NotDefinedAnywhere' does not resolve"):
        function_schema(later)


def test_type_pydantic_cannot_handle_names_the_parameter() -> None:
    class Opaque:
        pass

    def takes(ok: int, thing: Opaque) -> None:
        pass

    takes.__annotations__ = {"ok": int, "thing": Opaque}
    with pytest.raises(UserError) as raised:
        function_schema(takes)
    said = str(raised.value)
    where = f"{takes.__qualname__}() ({__file__}, line {takes.__code__.co_firstlineno})"
    assert said.startswith(f"Tool 'takes': parameter 'thing' of {where} is annotated ")
    assert "arbitrary_types_allowed" not in said and "__get_pydantic_core_schema__" not in said


class Opaque:
    pass


@pytest.mark.parametrize(
    ("hint", "annotated", "culprit"),
    [
        (Opaque, "test_schema.Opaque", "test_schema.Opaque"),
        (list[Opaque], "list[test_schema.Opaque]", "test_schema.Opaque"),
        (Optional[dict[str, Opaque]], "dict[str, test_schema.Opaque] | None", "test_schema.Opaque"),
        (
            Annotated[Opaque, "the thing"],
            "Annotated[test_schema.Opaque, 'the thing']",
            "test_schema.Opaque",
        ),
        (Callable[[int], int], "Callable[[int], int]", None),
    ],
)
def test_a_type_a_model_cannot_send_says_what_to_annotate_instead(
    hint: Any, annotated: str, culprit: str | None
) -> None:
    def analyse(rows: int, thing: Any) -> None:
        pass

    analyse.__annotations__ = {"rows": int, "thing": hint}
    with pytest.raises(UserError) as raised:
        function_schema(analyse, name_override="summarise")
    said = str(raised.value).replace("tests.runtime.", "")
    assert said.startswith("Tool 'summarise': parameter 'thing' of ")
    assert f"analyse() ({__file__}, line " in said
    assert f"is annotated {annotated}; a model cannot send a {culprit or annotated}," in said
    assert "Annotate 'thing' with str, int, float, bool, a list or dict of them" in said
    assert "(`thing: str`) and look it up in the function." in said


def kinds(a: int, /, b: int, *, c: int = 3) -> tuple[int, int, int]:
    return (a, b, c)


def test_to_call_args_respects_parameter_kinds() -> None:
    fs = function_schema(kinds)

    args, kwargs = fs.to_call_args(fs.params_pydantic_model.model_validate({"a": 1, "b": 2}))

    assert (args, kwargs) == ([1, 2], {"c": 3})
    assert kinds(*args, **kwargs) == (1, 2, 3)


def test_reserved_and_private_parameter_names_round_trip() -> None:
    def odd(json: str, schema: int, _hidden: bool = False) -> str:
        return f"{json}|{schema}|{_hidden}"

    fs = function_schema(odd)

    assert list(fs.params_json_schema["properties"]) == ["json", "schema", "_hidden"]
    assert call(fs, odd, {"json": "j", "schema": 2, "_hidden": True}) == "j|2|True"


def test_overrides_and_disabling_docstring_info() -> None:
    fs = function_schema(search, name_override="find", description_override="Find things.")
    bare = function_schema(search, use_docstring_info=False)

    assert (fs.name, fs.description) == ("find", "Find things.")
    assert fs.params_json_schema["title"] == "find_args"
    assert bare.description is None
    assert "description" not in bare.params_json_schema["properties"]["query"]


def numpy_doc(city: str) -> str:
    """Weather.

    Parameters
    ----------
    city : str
        The city.
    """
    return city


def sphinx_doc(city: str) -> str:
    """Weather.

    :param city: The city.
    """
    return city


@pytest.mark.parametrize(
    ("func", "style"),
    [(numpy_doc, "numpy"), (numpy_doc, None), (sphinx_doc, "sphinx"), (sphinx_doc, None)],
)
def test_docstring_styles_reach_the_schema(func: Any, style: Any) -> None:
    fs = function_schema(func, docstring_style=style)

    assert fs.description == "Weather."
    assert fs.params_json_schema["properties"]["city"]["description"] == "The city."


def test_no_parameters() -> None:
    def ping() -> str:
        return "pong"

    fs = function_schema(ping)

    assert fs.params_json_schema == {
        "properties": {},
        "required": [],
        "title": "ping_args",
        "type": "object",
        "additionalProperties": False,
    }
    assert call(fs, ping, {}) == "pong"


def test_repeated_builds_share_the_model_but_not_the_schema() -> None:
    params_model_module._MODELS.clear()
    built = [function_schema(search) for _ in range(3)]

    assert built[1].params_pydantic_model is built[2].params_pydantic_model
    assert built[0].params_json_schema == built[2].params_json_schema
    built[2].params_json_schema["properties"].clear()
    assert function_schema(search).params_json_schema == built[0].params_json_schema


def test_cache_distinguishes_union_order_and_defaults() -> None:
    def first(x: int | str = 1) -> None:
        pass

    def second(x: str | int = 1) -> None:
        pass

    def third(x: int | str = True) -> None:
        pass

    for _ in range(2):  # the second round is served from the cache
        a, b, c = (
            function_schema(f, name_override="f").params_json_schema for f in (first, second, third)
        )
        assert a["properties"]["x"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
        assert b["properties"]["x"]["anyOf"] == [{"type": "string"}, {"type": "integer"}]
        assert (a["properties"]["x"]["default"], c["properties"]["x"]["default"]) == (1, True)
        assert type(c["properties"]["x"]["default"]) is bool


def test_cache_follows_a_redefined_type() -> None:
    cell = "class Item(BaseModel):\n    {field}\n\ndef make(item: Item) -> None:\n    pass\n"
    namespace: dict[str, Any] = {"BaseModel": BaseModel}
    schemas = []
    for field in ("a: int", "b: str", "b: str"):
        exec(cell.format(field=field), namespace)  # re-running a notebook cell
        schemas.append(function_schema(namespace["make"]).params_json_schema)

    assert list(schemas[0]["$defs"]["Item"]["properties"]) == ["a"]
    assert list(schemas[1]["$defs"]["Item"]["properties"]) == ["b"]
    assert schemas[2] == schemas[1]
