"""MMR: vectorised, and selecting exactly what LangChain's reference selects."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from rag.errors import ValidationError
from stores.mmr import maximal_marginal_relevance


@given(seed=st.integers(0, 100_000), n=st.integers(1, 40), k=st.integers(1, 12),
       lambda_mult=st.floats(0, 1), dim=st.integers(2, 16))
def test_selects_the_same_candidates_in_the_same_order_as_langchain(seed, n, k, lambda_mult, dim):
    utils = pytest.importorskip("langchain_core.vectorstores.utils")
    rng = np.random.default_rng(seed)
    query = rng.normal(size=dim)
    candidates = rng.normal(size=(n, dim))
    expected = utils.maximal_marginal_relevance(query, list(candidates), lambda_mult=lambda_mult, k=k)
    assert maximal_marginal_relevance(query, candidates, lambda_mult, k) == expected


def test_the_first_pick_is_the_most_similar_candidate():
    candidates = np.array([[0.0, 1.0], [1.0, 0.1], [1.0, 0.0]])
    assert maximal_marginal_relevance(np.array([1.0, 0.0]), candidates, 0.5, 1) == [2]


def test_lambda_zero_prefers_the_most_different_candidate_second():
    candidates = np.array([[1.0, 0.0], [0.99, 0.01], [0.0, 1.0]])
    assert maximal_marginal_relevance(np.array([1.0, 0.0]), candidates, 0.0, 2) == [0, 2]


def test_ties_go_to_the_lowest_index():
    candidates = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    assert maximal_marginal_relevance(np.array([1.0, 0.0]), candidates, 0.5, 3) == [0, 1, 2]


def test_no_candidates_give_no_selection():
    assert maximal_marginal_relevance(np.ones(3), np.empty((0, 3)), 0.5, 4) == []


def test_lambda_outside_unit_range_raises():
    with pytest.raises(ValidationError, match="lambda_mult must be a number between 0 and 1, got 2"):
        maximal_marginal_relevance(np.ones(2), np.ones((2, 2)), 2, 1)
