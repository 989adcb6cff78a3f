"""BM25 scoring variants and the sparse index, checked by hand and against a direct computation."""

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rag.bm25 import BM25Index, BM25Params
from rag.bm25.index import top_k_scores
from rag.bm25.scoring import idf_atire, idf_lucene, idf_robertson, term_scores, tf_atire, tf_saturation
from rag.errors import ValidationError


def test_lucene_idf_by_hand():
    # N = 10 documents, term in 2: ln(1 + 8.5 / 2.5)
    assert idf_lucene(np.array([2.0]), 10)[0] == pytest.approx(math.log(1 + 8.5 / 2.5))


def test_robertson_idf_is_floored_at_zero_for_common_terms():
    assert idf_robertson(np.array([9.0]), 10)[0] == 0.0
    assert idf_robertson(np.array([1.0]), 10)[0] == pytest.approx(math.log(9.5 / 1.5))


def test_atire_idf_by_hand():
    assert idf_atire(np.array([4.0]), 8)[0] == pytest.approx(math.log(2))


def test_tf_saturation_by_hand():
    # tf 2, a document twice the average length, k1 1.2, b 0.75: 2 / (2 + 1.2 * 1.75)
    assert tf_saturation(np.array([2.0]), np.array([20.0]), 10.0, 1.2, 0.75)[0] == pytest.approx(2 / 4.1)


def test_atire_tf_is_k1_plus_one_times_saturation():
    args = (np.array([3.0]), np.array([5.0]), 7.0, 1.5, 0.75)
    assert tf_atire(*args)[0] == pytest.approx(2.5 * tf_saturation(*args)[0])


def test_b_zero_ignores_document_length():
    short, long = tf_saturation(np.array([1.0, 1.0]), np.array([1.0, 100.0]), 10.0, 1.5, 0.0)
    assert short == long


def naive_scores(corpus, query, params):
    n = len(corpus)
    lengths = np.array([len(d) for d in corpus], dtype=float)
    avg = lengths.mean() if lengths.sum() else 1.0
    df = Counter(t for doc in corpus for t in set(doc))
    out = np.zeros(n)
    for term in query:
        if term not in df:
            continue
        for i, doc in enumerate(corpus):
            tf = doc.count(term)
            if tf:
                out[i] += term_scores(params.method, np.array([tf], float), np.array([df[term]], float),
                                      np.array([lengths[i]]), n, avg, params.k1, params.b)[0]
    return out


words = st.sampled_from(["cat", "dog", "fish", "bird", "tree", "sun", "moon"])


@settings(deadline=None, max_examples=50)
@given(
    corpus=st.lists(st.lists(words, max_size=8), min_size=1, max_size=12),
    query=st.lists(words, min_size=1, max_size=4),
    method=st.sampled_from(["lucene", "robertson", "atire"]),
    k1=st.floats(0, 3), b=st.floats(0, 1),
)
def test_index_scores_equal_a_direct_computation(corpus, query, method, k1, b):
    params = BM25Params(k1=k1, b=b, method=method)
    np.testing.assert_allclose(BM25Index.build(corpus, params).score(query), naive_scores(corpus, query, params),
                               rtol=1e-5, atol=1e-5)


def test_a_repeated_query_term_counts_twice():
    index = BM25Index.build([["cat"], ["dog"]], BM25Params())
    assert index.score(["cat", "cat"])[0] == pytest.approx(2 * index.score(["cat"])[0])


def test_unknown_query_terms_score_nothing():
    assert not BM25Index.build([["cat"]], BM25Params()).score(["zebra"]).any()


def test_top_k_keeps_positive_scores_best_first_ties_by_position():
    assert top_k_scores(np.array([0.5, 0.0, 2.0, 0.5, 1.0]), 3).tolist() == [2, 4, 0]
    assert top_k_scores(np.array([0.0, 0.0]), 2).tolist() == []


@pytest.mark.parametrize("params, shown", [({"k1": -1}, "-1"), ({"b": 1.5}, "1.5"), ({"method": "bm25x"}, "bm25x"),
                                           ({"epsilon": 0.25}, "epsilon")])
def test_bad_bm25_params_are_refused_showing_the_value(params, shown):
    with pytest.raises(ValidationError, match=shown):
        BM25Params.from_dict(params)


def test_scores_match_bm25s_on_a_small_corpus():
    import bm25s  # in the test extra: the reference implementation
    corpus = [["solar", "panel", "energy"], ["wind", "energy", "energy", "farm"], ["solar", "wind"], ["coal"]]
    reference = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    reference.index(bm25s.tokenization.Tokenized(
        ids=[[{"solar": 0, "panel": 1, "energy": 2, "wind": 3, "farm": 4, "coal": 5}[t] for t in doc] for doc in corpus],
        vocab={"solar": 0, "panel": 1, "energy": 2, "wind": 3, "farm": 4, "coal": 5}), show_progress=False)
    ours = BM25Index.build(corpus, BM25Params()).score(["energy", "wind"])
    np.testing.assert_allclose(ours, reference.get_scores(["energy", "wind"]), rtol=1e-5)
