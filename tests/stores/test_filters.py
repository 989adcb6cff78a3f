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
    with pytest.raises(ValidationError, match=f"unknown filter operator '\\{name}'"):
        compile_filter(spec)


def test_in_needs_a_list():
    with pytest.raises(ValidationError, match=r"\$in on 'year' needs a list"):
        compile_filter({"year": {"$in": 2020}})


def test_exists_needs_a_boolean():
    with pytest.raises(ValidationError, match=r"\$exists on 'x' needs true or false"):
        compile_filter({"x": {"$exists": "yes"}})


def test_and_needs_a_non_empty_list():
    with pytest.raises(ValidationError, match=r"\$and needs a non-empty list"):
        compile_filter({"$and": []})


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
