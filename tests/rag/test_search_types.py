"""Search types: one vocabulary, per-component subsets, one validator, one kwargs table."""

import pytest

from rag.errors import ValidationError
from rag.search_types import (
    INDEX_SEARCH_TYPES,
    SEARCH_KWARGS,
    VECTOR_STORE_SEARCH_TYPES,
    SearchType,
    check_search_kwargs,
)


def test_threshold_is_an_alias_of_langchains_similarity_score_threshold():
    assert SearchType("threshold") is SearchType.SIMILARITY_SCORE_THRESHOLD
    assert VECTOR_STORE_SEARCH_TYPES.check("threshold") is INDEX_SEARCH_TYPES.check("similarity_score_threshold")


def test_a_search_type_is_its_string():
    assert SearchType.MMR == "mmr" and str(SearchType.MMR) == "mmr" and f"{SearchType.HYBRID}" == "hybrid"


def test_a_vector_store_answers_langchains_three_and_the_index_all():
    assert set(VECTOR_STORE_SEARCH_TYPES.members) == {SearchType.SIMILARITY, SearchType.SIMILARITY_SCORE_THRESHOLD, SearchType.MMR}
    assert set(INDEX_SEARCH_TYPES.members) == set(SearchType)
    assert list(INDEX_SEARCH_TYPES) == ["hybrid", "similarity", "mmr", "threshold", "bm25"]


def test_a_stores_refusal_lists_the_choices_as_python_strings():
    with pytest.raises(ValidationError) as caught:
        VECTOR_STORE_SEARCH_TYPES.check("hybrid")
    assert str(caught.value) == "search_type must be one of 'similarity', 'similarity_score_threshold', 'mmr', got 'hybrid'"


def test_the_indexs_refusal_lists_the_choices_as_typed_on_the_command_line():
    with pytest.raises(ValidationError) as caught:
        INDEX_SEARCH_TYPES.without("threshold").check("threshold")
    assert str(caught.value) == "search type 'threshold' is not one of hybrid, similarity, mmr, bm25"


@pytest.mark.parametrize("value", [None, 3, ["mmr"], "MMR"])
def test_values_that_are_no_search_type_are_refused(value):
    with pytest.raises(ValidationError):
        INDEX_SEARCH_TYPES.check(value)


def test_every_search_type_lists_its_keyword_arguments():
    assert set(SEARCH_KWARGS) == set(SearchType)
    assert all({"k", "filter"} <= accepted for accepted in SEARCH_KWARGS.values())


def test_search_kwargs_outside_what_the_caller_accepts_are_refused():
    with pytest.raises(ValidationError, match=r"\['fetch_k'\] are not used by search_type='mmr'"):
        check_search_kwargs(SearchType.MMR, {"fetch_k": 5}, accepted=frozenset({"k", "filter"}))


@pytest.mark.parametrize("kwargs, shown", [
    ({"fetch_k": 0}, "search_kwargs\\['fetch_k'\\] must be a positive int"),
    ({"lambda_mult": 2}, "search_kwargs\\['lambda_mult'\\] must be a number between 0 and 1"),
])
def test_search_kwarg_values_are_checked(kwargs, shown):
    with pytest.raises(ValidationError, match=shown):
        check_search_kwargs(SearchType.MMR, kwargs)
