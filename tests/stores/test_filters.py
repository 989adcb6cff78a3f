"""Metadata filters: LangChain's operators, missing-field rules and clear errors."""

import pytest
from hypothesis import given, strategies as st

from rag.errors import ValidationError
from stores.filters import compile_filter

ROWS = [
    {"year": 2020, "lang": "en", "tags": "a"},
    {"year": 2021, "lang": "fr"},
    {"year": 2022},
    {"lang": "en"},
    {},
]


def matching(spec):
    predicate = compile_filter(spec)
    return [i for i, row in enumerate(ROWS) if predicate(row)]


@pytest.mark.parametrize(
    "spec, expected",
    [
        ({"lang": "en"}, [0, 3]),
        ({"lang": ["en", "fr"]}, [0, 1, 3]),
        ({"year": {"$eq": 2021}}, [1]),
        ({"year": {"$ne": 2021}}, [0, 2, 3, 4]),
        ({"year": {"$neq": 2021}}, [0, 2, 3, 4]),
        ({"year": {"$gt": 2020}}, [1, 2]),
        ({"year": {"$gte": 2021}}, [1, 2]),
        ({"year": {"$lt": 2021}}, [0]),
        ({"year": {"$lte": 2021}}, [0, 1]),
        ({"year": {"$in": [2020, 2022]}}, [0, 2]),
        ({"year": {"$nin": [2020, 2022]}}, [1, 3, 4]),
        ({"lang": {"$exists": True}}, [0, 1, 3]),
        ({"lang": {"$exists": False}}, [2, 4]),
        ({"year": {"$gte": 2020, "$lt": 2022}}, [0, 1]),
        ({"lang": "en", "year": 2020}, [0]),
        ({"$and": [{"lang": "en"}, {"year": {"$exists": True}}]}, [0]),
        ({"$or": [{"lang": "fr"}, {"year": 2022}]}, [1, 2]),
        ({"$not": {"lang": "en"}}, [1, 2, 4]),
    ],
)
def test_operator_semantics(spec, expected):
    assert matching(spec) == expected


def test_comparisons_on_a_missing_field_do_not_match():
    assert matching({"year": {"$lt": 3000}}) == [0, 1, 2]


def test_negations_match_a_missing_field():
    assert 4 in matching({"year": {"$ne": 1}}) and 4 in matching({"year": {"$nin": [1]}})


def test_ordering_across_incomparable_types_does_not_match_or_raise():
    assert compile_filter({"year": {"$gt": "2000"}})({"year": 2021}) is False


def test_unhashable_values_work_with_in():
    assert compile_filter({"tags": {"$in": [["a", "b"]]}})({"tags": ["a", "b"]}) is True


@pytest.mark.parametrize("spec, name", [({"year": {"$regex": "20"}}, "$regex"), ({"$xor": []}, "$xor")])
def test_an_unknown_operator_raises_naming_it(spec, name):
    with pytest.raises(ValidationError, match=f"^filter contains unsupported operator: \\{name} "):
        compile_filter(spec)


def test_in_needs_a_list():
    with pytest.raises(ValidationError, match=r"\$in on 'year' needs a list"):
        compile_filter({"year": {"$in": 2020}})


def test_exists_needs_a_boolean():
    with pytest.raises(ValidationError, match=r"\$exists on 'x' needs true or false"):
        compile_filter({"x": {"$exists": "yes"}})


def test_an_empty_and_matches_everything_and_an_empty_or_nothing():
    assert matching({"$and": []}) == [0, 1, 2, 3, 4]
    assert matching({"$or": []}) == []


def test_and_needs_a_list():
    with pytest.raises(ValidationError, match=r"\$and needs a list of filters"):
        compile_filter({"$and": {"lang": "en"}})


def test_a_boolean_is_not_the_number_one():
    rows = [{"x": True}, {"x": 1}, {"x": 1.0}]
    assert [compile_filter({"x": 1})(r) for r in rows] == [False, True, True]
    assert [compile_filter({"x": True})(r) for r in rows] == [True, False, False]
    assert compile_filter({"x": {"$gt": 0}})({"x": True}) is False


def test_a_null_value_is_present_and_equals_only_null():
    assert compile_filter({"x": None})({"x": None}) is True
    assert compile_filter({"x": {"$exists": True}})({"x": None}) is True
    assert compile_filter({"x": {"$ne": 1}})({"x": None}) is True
    assert compile_filter({"x": {"$lt": 1}})({"x": None}) is False


def test_lists_and_dicts_compare_structurally():
    assert compile_filter({"x": [1, {"a": [2]}]})({"x": 1}) is True  # a list condition means $in
    assert compile_filter({"x": {"$eq": {"a": [2.0]}}})({"x": {"a": [2]}}) is True
    assert compile_filter({"x": {"$eq": {"a": [True]}}})({"x": {"a": [1]}}) is False


def test_numpy_scalars_compare_as_the_numbers_they_hold():
    import numpy as np

    assert compile_filter({"x": 3})({"x": np.int64(3)}) is True
    assert compile_filter({"x": {"$gte": np.float32(2.5)}})({"x": 3}) is True
    assert compile_filter({"x": True})({"x": np.bool_(True)}) is True


def test_the_dict_language_parses_into_an_expression_tree():
    from stores.filters import And, Compare, Not, Or, parse_filter

    assert parse_filter({"a": 1, "b": {"$gte": 2, "$lt": 5}, "$or": [{"c": [1, 2]}], "$not": {"d": {"$neq": 0}}}) == And((
        Compare("a", "$eq", 1),
        And((Compare("b", "$gte", 2), Compare("b", "$lt", 5))),
        Or((Compare("c", "$in", (1, 2)),)),
        Not(Compare("d", "$ne", 0)),
    ))
    assert parse_filter({}) is None and parse_filter(None) is None


def test_a_callable_is_used_as_is_and_none_or_empty_means_no_filter():
    func = lambda m: True  # noqa: E731
    assert compile_filter(func) is func
    assert compile_filter(None) is None and compile_filter({}) is None


def test_a_filter_that_is_neither_dict_nor_callable_is_refused():
    with pytest.raises(ValidationError, match="dict or a callable"):
        compile_filter(["lang", "en"])


values = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b"]), st.none())
metadata = st.dictionaries(st.sampled_from(["x", "y"]), values, max_size=2)


@given(metadata, st.sampled_from(["x", "y"]), values)
def test_not_is_the_complement_of_its_filter(row, field, value):
    spec = {field: value}
    assert compile_filter({"$not": spec})(row) == (not compile_filter(spec)(row))


@given(metadata, st.sampled_from(["x", "y"]), st.lists(values, max_size=3))
def test_nin_is_the_complement_of_in(row, field, options):
    assert compile_filter({field: {"$nin": options}})(row) == (not compile_filter({field: {"$in": options}})(row))
