"""Codex-style MCP tool names and the sanitising of servers' schemas."""

from __future__ import annotations

import copy
import re

from hypothesis import example, given
from hypothesis import strategies as st

from jupyter_agents.runtime.mcp.names import qualified_tool_names
from jupyter_agents.runtime.mcp.schema import sanitize_input_schema, strict_form

VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_plain_names_are_kept() -> None:
    assert qualified_tool_names([("git", "git_status")]) == {
        ("git", "git_status"): "mcp__git__git_status"
    }


def test_odd_characters_become_underscores() -> None:
    names = qualified_tool_names([("my server", "read.file"), ("é", "tool/x")])
    assert names[("my server", "read.file")] == "mcp__my_server__read_file"
    assert names[("é", "tool/x")] == "mcp_____tool_x"
    assert all(VALID.match(n) for n in names.values())


def test_long_names_are_cut_with_a_hash() -> None:
    pair = ("server", "t" * 80)
    name = qualified_tool_names([pair])[pair]
    assert len(name) == 64 and VALID.match(name)
    assert re.search(r"_[0-9a-f]{8}$", name)
    assert qualified_tool_names([pair])[pair] == name  # stable


def test_collisions_get_distinct_names() -> None:
    pairs = [("s", "a.b"), ("s", "a_b"), ("s.x", "t"), ("s_x", "t")]
    names = qualified_tool_names(pairs)
    assert len(set(names.values())) == 4
    assert all(VALID.match(n) for n in names.values())


@given(
    st.lists(
        st.tuples(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=90)),
        max_size=12,
    )
)
def test_names_are_always_unique_valid_and_order_independent(
    pairs: list[tuple[str, str]],
) -> None:
    names = qualified_tool_names(pairs)
    assert len(set(names.values())) == len(set(pairs))
    assert all(VALID.match(n) for n in names.values())
    assert qualified_tool_names(list(reversed(pairs))) == names


def test_sanitising_fills_what_the_api_needs_and_leaves_the_input_alone() -> None:
    raw = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {
            "tags": {"type": "array"},
            "options": {"type": "object"},
            "anything": True,
            "nothing": False,
            "count": {"minimum": 0},
            "name": {"maxLength": 3},
            "mode": {"enum": ["a", "b"]},
            "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "nested": {"properties": {"xs": {"items": {"type": "string"}}}},
        },
    }
    before = copy.deepcopy(raw)
    out = sanitize_input_schema(raw)
    assert raw == before
    assert "$schema" not in out and out["type"] == "object"
    props = out["properties"]
    assert props["tags"] == {"type": "array", "items": {}}
    assert props["options"] == {"type": "object", "properties": {}}
    assert props["anything"] == {} and props["nothing"] == {"not": {}}
    assert props["count"]["type"] == "number" and props["name"]["type"] == "string"
    assert props["mode"]["type"] == "string"
    assert props["either"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert props["nested"]["type"] == "object"
    assert props["nested"]["properties"]["xs"]["type"] == "array"


def test_odd_roots_become_empty_objects_and_deep_schemas_are_capped() -> None:
    roots: tuple[object, ...] = (None, True, False, "x", [], {"type": "string"})
    for root in roots:
        assert sanitize_input_schema(root) == {"type": "object", "properties": {}}
    deep: dict[str, object] = {"type": "object", "properties": {}}
    node = deep
    for _ in range(500):
        child: dict[str, object] = {"type": "object", "properties": {}}
        node["properties"] = {"x": child}
        node = child
    out = sanitize_input_schema(deep)  # no RecursionError
    assert out["type"] == "object"


def test_strict_form_when_it_keeps_the_meaning() -> None:
    schema = sanitize_input_schema(
        {
            "type": "object",
            "properties": {"text": {"type": "string"}, "times": {"type": "integer"}},
            "required": ["text"],
        }
    )
    made = strict_form(schema)
    assert made is not None
    strict, nullable = made
    assert nullable == {"times"}
    assert strict["required"] == ["text", "times"] and strict["additionalProperties"] is False
    assert strict["properties"]["times"]["type"] == ["integer", "null"]


def test_no_strict_form_for_nested_optionals_or_open_values() -> None:
    nested = sanitize_input_schema(
        {
            "type": "object",
            "properties": {"o": {"type": "object", "properties": {"a": {"type": "string"}}}},
            "required": ["o"],
        }
    )
    assert strict_form(nested) is None
    open_value = sanitize_input_schema({"type": "object", "properties": {"v": True}})
    assert strict_form(open_value) is None


SCHEMA_KEYS = st.sampled_from(
    ["type", "properties", "items", "required", "enum", "anyOf", "minimum", "format", "x"]
)
LEAVES = st.one_of(
    st.booleans(),
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.sampled_from(["object", "array", "string", "integer", "number", "boolean", "null"]),
)
ANY_JSON = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(SCHEMA_KEYS, st.text(max_size=4)), inner, max_size=5),
    ),
    max_leaves=30,
)


@given(ANY_JSON)
@example({"items": False, "required": False})  # an object with array keywords (found by it)
def test_whatever_a_server_sends_the_api_accepts_after_sanitising(raw: object) -> None:
    """Random schemas, however broken, pass the local server's copy of the API's checks once
    sanitised, in non-strict and (when offered) strict form."""
    from jupyter_agents.testing._server_tools import tool_schema_problem

    parameters = sanitize_input_schema(raw)
    tool = {"type": "function", "name": "mcp__s__t", "parameters": parameters, "strict": False}
    assert tool_schema_problem([tool], "responses") is None
    made = strict_form(parameters)
    if made is not None:
        tool = {**tool, "parameters": made[0], "strict": True}
        assert tool_schema_problem([tool], "responses") is None
