"""Similarity, top-k and relevance functions."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from stores.scoring import (
    cosine_similarity,
    relevance_from_cosine,
    relevance_from_inner_product,
    relevance_from_squared_l2,
    top_k,
)

finite = st.floats(-100, 100, allow_nan=False, width=32)


@given(arrays(np.float32, st.tuples(st.integers(1, 3), st.integers(1, 40)), elements=finite), st.integers(1, 50))
def test_top_k_matches_a_stable_full_sort(scores, k):
    expected = np.argsort(-scores, axis=1, kind="stable")[:, : min(k, scores.shape[1])]
    np.testing.assert_array_equal(top_k(scores, k), expected)


def test_ties_go_to_the_lower_index():
    assert top_k(np.array([[1.0, 2.0, 2.0, 2.0]]), 2).tolist() == [[1, 2]]


def test_cosine_of_a_zero_vector_is_zero_not_nan():
    assert cosine_similarity(np.zeros(3), np.ones((2, 3))).tolist() == [[0.0, 0.0]]


@given(st.lists(st.floats(0, 4, allow_nan=False), min_size=2, max_size=20))
def test_euclidean_relevance_is_in_unit_range_and_falls_with_distance(distances):
    ordered = np.sort(np.asarray(distances, dtype=np.float32))
    for unit in (True, False):
        relevance = relevance_from_squared_l2(ordered, unit_vectors=unit)
        assert ((relevance >= 0) & (relevance <= 1)).all()
        assert (np.diff(relevance) <= 1e-7).all()


@given(st.lists(st.floats(-50, 50, allow_nan=False), min_size=2, max_size=20))
def test_inner_product_relevance_is_in_unit_range_and_rises_with_the_product(products):
    ordered = np.sort(np.asarray(products, dtype=np.float32))
    for unit in (True, False):
        relevance = relevance_from_inner_product(ordered, unit_vectors=unit)
        assert ((relevance >= 0) & (relevance <= 1)).all()
        assert (np.diff(relevance) >= -1e-7).all()


def test_for_unit_vectors_every_strategy_gives_the_clipped_cosine():
    rng = np.random.default_rng(0)
    a, b = (v / np.linalg.norm(v) for v in rng.normal(size=(2, 16)))
    cosine = float(a @ b)
    expected = min(max(cosine, 0.0), 1.0)
    assert relevance_from_cosine(np.float32(cosine)) == pytest.approx(expected, abs=1e-6)
    assert relevance_from_inner_product(np.float32(cosine), True) == pytest.approx(expected, abs=1e-6)
    squared = float(np.sum((a - b) ** 2))
    assert relevance_from_squared_l2(np.float32(squared), True) == pytest.approx(expected, abs=1e-5)
