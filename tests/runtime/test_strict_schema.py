"""Tests for converting JSON schemas to OpenAI strict mode."""

from __future__ import annotations

import copy
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from pydantic import BaseModel, Field

from jupyter_agents.runtime.errors import UserError
from jupyter_agents.runtime.tools.function.strict_schema import (
    StrictSchemaError,
    describe_schema_path,
    ensure_strict_json_schema,
)


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def test_objects_are_closed_and_every_property_required() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "integer", "default": 3},
            "c": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["a"],
    }

    assert ensure_strict_json_schema(schema) == {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "integer", "default": 3},
            "c": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["a", "b", "c"],
        "additionalProperties": False,
    }


def test_input_is_not_mutated_and_output_shares_nothing() -> None:
    schema = obj(
        tags={"type": "array", "items": {"type": "string"}, "default": ["x"]},
        inner=obj(z={"type": "string"}),
    )
    before = copy.deepcopy(schema)

    out = ensure_strict_json_schema(schema)
    out["properties"]["tags"]["default"].append("y")

    assert schema == before
    assert out["properties"]["inner"]["additionalProperties"] is False


def test_nested_objects_in_arrays_tuples_and_unions() -> None:
    point = obj(x={"type": "number"})
    schema = obj(
        many={"type": "array", "items": point},
        pair={"type": "array", "prefixItems": [point, {"type": "string"}]},
        maybe={"anyOf": [point, {"type": "null"}]},
        both={"allOf": [point, obj(y={"type": "number"})]},
    )
    strict_point = {
        "type": "object",
        "properties": {"x": {"type": "number"}},
        "required": ["x"],
        "additionalProperties": False,
    }

    props = ensure_strict_json_schema(schema)["properties"]

    assert props["many"]["items"] == strict_point
    assert props["pair"]["prefixItems"] == [strict_point, {"type": "string"}]
    assert props["maybe"]["anyOf"] == [strict_point, {"type": "null"}]
    assert props["both"]["allOf"][0] == strict_point
    assert props["both"]["allOf"][1]["required"] == ["y"]


def test_defs_are_made_strict_and_unused_ones_dropped() -> None:
    schema = {
        "$defs": {
            "Used": obj(a={"type": "string"}),
            "Unused": obj(b={"type": "string"}),
        },
        **obj(u={"$ref": "#/$defs/Used"}),
    }

    assert ensure_strict_json_schema(schema) == {
        "type": "object",
        "properties": {"u": {"$ref": "#/$defs/Used"}},
        "required": ["u"],
        "additionalProperties": False,
        "$defs": {
            "Used": {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                "additionalProperties": False,
            }
        },
    }


def test_legacy_definitions_are_handled() -> None:
    schema = {"definitions": {"D": obj(a={"type": "string"})}, **obj(d={"$ref": "#/definitions/D"})}

    out = ensure_strict_json_schema(schema)

    assert out["definitions"]["D"]["additionalProperties"] is False


def test_ref_with_siblings_is_inlined() -> None:
    schema = {
        "$defs": {"Color": {"enum": ["red", "blue"], "title": "Color", "type": "string"}},
        **obj(c={"$ref": "#/$defs/Color", "default": "red", "description": "The colour."}),
    }

    assert ensure_strict_json_schema(schema) == {
        "type": "object",
        "properties": {
            "c": {
                "enum": ["red", "blue"],
                "title": "Color",
                "type": "string",
                "default": "red",
                "description": "The colour.",
            }
        },
        "required": ["c"],
        "additionalProperties": False,
    }


def test_singleton_all_of_is_unwrapped() -> None:
    schema = {
        "$defs": {"P": obj(x={"type": "number"})},
        **obj(p={"allOf": [{"$ref": "#/$defs/P"}], "description": "A point."}),
    }

    assert ensure_strict_json_schema(schema)["properties"]["p"] == {
        "type": "object",
        "properties": {"x": {"type": "number"}},
        "description": "A point.",
        "required": ["x"],
        "additionalProperties": False,
    }


def test_singleton_all_of_with_clashing_keywords_is_rejected() -> None:
    schema = obj(p={"allOf": [{"type": "string"}], "type": "integer"})

    with pytest.raises(StrictSchemaError, match="repeats type"):
        ensure_strict_json_schema(schema)


def test_recursive_model_keeps_its_ref() -> None:
    class Node(BaseModel):
        value: int
        children: list[Node] = []

    out = ensure_strict_json_schema(Node.model_json_schema())

    node = {
        "properties": {
            "value": {"title": "Value", "type": "integer"},
            "children": {
                "default": [],
                "items": {"$ref": "#/$defs/Node"},
                "title": "Children",
                "type": "array",
            },
        },
        "required": ["value", "children"],
        "title": "Node",
        "type": "object",
        "additionalProperties": False,
    }
    assert out == {**node, "$defs": {"Node": node}}


def test_recursive_ref_with_a_description_keeps_a_bare_ref() -> None:
    node = obj(value={"type": "integer"}, next={"$ref": "#/$defs/Node", "description": "Next."})
    schema = {"$defs": {"Node": node}, "$ref": "#/$defs/Node"}

    out = ensure_strict_json_schema(schema)

    # The root is Node inlined, so its "next" recurses into Node: a bare $ref ends the recursion.
    assert out["properties"]["next"] == {"$ref": "#/$defs/Node"}
    assert out["$defs"]["Node"]["properties"]["next"] == {
        "type": "object",
        "properties": {"value": {"type": "integer"}, "next": {"$ref": "#/$defs/Node"}},
        "description": "Next.",
        "required": ["value", "next"],
        "additionalProperties": False,
    }


def test_discriminated_union_becomes_any_of_keeping_its_discriminator() -> None:
    class Cat(BaseModel):
        kind: Literal["cat"]

    class Dog(BaseModel):
        kind: Literal["dog"]

    class Pet(BaseModel):
        pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]

    out = ensure_strict_json_schema(Pet.model_json_schema())

    assert out["properties"]["pet"] == {
        "anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
        "discriminator": {
            "mapping": {"cat": "#/$defs/Cat", "dog": "#/$defs/Dog"},
            "propertyName": "kind",
        },
        "title": "Pet",
    }
    assert set(out["$defs"]) == {"Cat", "Dog"}


def test_pydantic_model_with_optional_and_defaults() -> None:
    class Query(BaseModel):
        text: str
        limit: int = 10
        lang: Optional[str] = None

    assert ensure_strict_json_schema(Query.model_json_schema()) == {
        "properties": {
            "text": {"title": "Text", "type": "string"},
            "limit": {"default": 10, "title": "Limit", "type": "integer"},
            "lang": {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Lang"},
        },
        "required": ["text", "limit", "lang"],
        "title": "Query",
        "type": "object",
        "additionalProperties": False,
    }


def test_empty_model_is_a_closed_empty_object() -> None:
    out = ensure_strict_json_schema({"type": "object", "properties": {}, "title": "Empty"})

    assert out == {
        "type": "object",
        "properties": {},
        "title": "Empty",
        "required": [],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("prop", "path", "reason"),
    [
        (
            {"type": "object", "additionalProperties": {"type": "integer"}},
            "scores",
            'dict[str, T] (additionalProperties: {"type": "integer"}) cannot be used with strict',
        ),
        ({"type": "object", "additionalProperties": True}, "scores", "a free-form dict"),
        ({"type": "object"}, "scores", "no declared properties"),
        ({"type": "object", "patternProperties": {"^a": {}}}, "scores", "patternProperties"),
        ({"title": "Scores"}, "scores", "a value of any type"),
        ({"type": "array", "items": {}}, "scores[]", "a value of any type"),
        ({"type": "array"}, "scores", "a list without an item type"),
        ({"anyOf": [{"type": "string"}], "oneOf": [{"type": "string"}]}, "scores", "both anyOf"),
    ],
)
def test_what_cannot_be_strict_is_named(prop: dict[str, Any], path: str, reason: str) -> None:
    with pytest.raises(StrictSchemaError) as info:
        ensure_strict_json_schema(obj(scores=prop))

    assert isinstance(info.value, UserError)
    assert str(info.value).startswith(f"{path}: ")
    assert reason in info.value.reason
    assert "strict_mode=False" in str(info.value)


def test_error_inside_a_definition_names_where_it_is_used() -> None:
    schema = {
        "$defs": {"Order": obj(totals={"type": "object", "additionalProperties": True})},
        **obj(order={"$ref": "#/$defs/Order"}),
    }

    with pytest.raises(StrictSchemaError) as info:
        ensure_strict_json_schema(schema)

    assert info.value.path == ("properties", "order", "properties", "totals")
    assert str(info.value).startswith("order.totals: a free-form dict")


def test_unused_non_strict_definition_is_not_an_error() -> None:
    schema = {"$defs": {"Loose": {"type": "object"}}, **obj(a={"type": "string"})}

    assert "$defs" not in ensure_strict_json_schema(schema)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (obj(a={"$ref": "#/$defs/Missing"}), "does not resolve"),
        (obj(a={"$ref": "https://example.com/s.json"}), r"only local \$refs"),
        (
            {"$defs": {"X": {"$ref": "#/$defs/X", "minimum": 1}}, **obj(a={"$ref": "#/$defs/X"})},
            "refers to itself",
        ),
        ({"type": "array", "items": {"type": "string"}}, "root of a strict schema"),
    ],
)
def test_broken_schemas_are_rejected(schema: dict[str, Any], message: str) -> None:
    with pytest.raises(StrictSchemaError, match=message):
        ensure_strict_json_schema(schema)


def test_describe_schema_path() -> None:
    path = ("properties", "order", "properties", "lines", "items", "anyOf", "0", "properties", "x")

    assert describe_schema_path(path) == "order.lines[].x"
    assert describe_schema_path(("properties", "t", "prefixItems", "1")) == "t[1]"
    assert describe_schema_path(()) == ""
