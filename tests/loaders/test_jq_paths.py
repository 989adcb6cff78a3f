"""The jq path subset: parsing, rendering and jq's evaluation semantics."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loaders._jq import Index, Iterate, Key, evaluate, parse, render
from rag.errors import ValidationError


def select(schema: str, data):
    return list(evaluate(parse(schema), data, schema=schema))


def test_dot_selects_the_whole_input() -> None:
    assert select(".", {"a": 1}) == [{"a": 1}]


def test_key_chain_descends_objects() -> None:
    assert select(".a.b", {"a": {"b": 3}}) == [3]


def test_missing_key_gives_null_as_jq() -> None:
    assert select(".a.b", {"a": {}}) == [None]


def test_key_of_null_gives_null_as_jq() -> None:
    assert select(".a.b.c", {"a": None}) == [None]


def test_iteration_yields_array_elements_in_order() -> None:
    assert select(".[]", [3, 1, 2]) == [3, 1, 2]


def test_iteration_yields_object_values_in_order() -> None:
    assert select(".[]", {"x": 1, "y": 2}) == [1, 2]


def test_iteration_then_key_maps_over_elements() -> None:
    assert select(".a[].b", {"a": [{"b": 1}, {"b": 2}, {}]}) == [1, 2, None]


def test_nested_iterations_flatten() -> None:
    assert select(".[][]", [[1, 2], [3]]) == [1, 2, 3]


def test_index_picks_an_element_and_negative_counts_from_the_end() -> None:
    assert select(".a[0]", {"a": ["x", "y"]}) == ["x"]
    assert select(".a[-1]", {"a": ["x", "y"]}) == ["y"]


def test_index_out_of_range_gives_null() -> None:
    assert select(".[5]", [1]) == [None]


def test_quoted_and_bracketed_keys_allow_any_characters() -> None:
    data = {"a key": {"dotted.name": 7}}
    assert select('."a key"["dotted.name"]', data) == [7]


def test_iterating_a_scalar_raises_naming_the_schema() -> None:
    with pytest.raises(ValidationError, match=r"'\.a\[\]'.*iterate over a number"):
        select(".a[]", {"a": 5})


def test_key_on_an_array_raises() -> None:
    with pytest.raises(ValidationError, match="look up key 'a' in an array"):
        select(".a", [1])


@pytest.mark.parametrize(
    "schema",
    ["", "a", "..", ".a.", ".a | .b", ".a?", ".[1:2]", ".a,.b", "map(.a)", ".a[", '."open'],
)
def test_unsupported_schema_is_rejected_naming_it(schema: str) -> None:
    with pytest.raises(ValidationError) as caught:
        parse(schema)
    assert f"Unsupported jq_schema {schema!r}" in str(caught.value)


def test_surrounding_whitespace_is_ignored() -> None:
    assert parse("  .a[]  ") == (Key("a"), Iterate())


keys = st.text(min_size=1, max_size=6)
steps = st.lists(
    st.one_of(keys.map(Key), st.integers(-3, 3).map(Index), st.just(Iterate())), max_size=5
).map(tuple)


@settings(deadline=None, max_examples=50)
@given(steps)
def test_render_then_parse_gives_the_same_steps(path) -> None:
    assert parse(render(path)) == path


@settings(deadline=None, max_examples=50)
@given(st.lists(keys, min_size=1, max_size=5), st.integers())
def test_key_path_finds_a_value_nested_under_those_keys(path_keys, value) -> None:
    data = value
    for key in reversed(path_keys):
        data = {key: data}
    assert list(evaluate(tuple(Key(key) for key in path_keys), data)) == [value]


@settings(deadline=None, max_examples=50)
@given(st.lists(st.dictionaries(keys, st.integers(), max_size=3), max_size=6), keys)
def test_iterate_then_key_equals_get_on_each_element(records, key) -> None:
    assert list(evaluate((Iterate(), Key(key)), records)) == [record.get(key) for record in records]
