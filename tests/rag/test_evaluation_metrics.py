"""Retrieval metrics against hand-computed values (graded relevance included)."""

import math

import pytest
from hypothesis import given, settings, strategies as st

from rag.evaluation import (
    average_precision_at_k,
    evaluate_run,
    ndcg_at_k,
    per_query_metrics,
    precision_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
)

# d3 is judged not relevant (grade 0), d4 is unjudged, d5 is relevant but never retrieved.
RANKING = ["d3", "d1", "d2", "d4"]
GRADES = {"d1": 2, "d2": 1, "d3": 0, "d5": 3}


def test_ndcg_uses_linear_gain_and_the_ideal_order_of_all_grades():
    # DCG = 2/log2(3) + 1/log2(4) = 1.7618595; IDCG = 3 + 2/log2(3) + 1/2 = 4.7618595
    assert ndcg_at_k(RANKING, GRADES, 10) == pytest.approx(0.3699940, abs=1e-6)


def test_ndcg_cut_off_counts_only_the_top_k():
    # top 2: DCG = 2/log2(3) = 1.261860; IDCG@2 = 3 + 2/log2(3) = 4.261860
    assert ndcg_at_k(RANKING, GRADES, 2) == pytest.approx(0.2960819, abs=1e-6)


def test_a_perfect_ranking_has_ndcg_one():
    assert ndcg_at_k(["d5", "d1", "d2"], GRADES, 10) == pytest.approx(1.0)


def test_recall_counts_relevant_documents_found():
    assert recall_at_k(RANKING, GRADES, 2) == pytest.approx(1 / 3)
    assert recall_at_k(RANKING, GRADES, 10) == pytest.approx(2 / 3)


def test_precision_counts_empty_places():
    assert precision_at_k(RANKING, GRADES, 10) == pytest.approx(0.2)


def test_reciprocal_rank_of_the_first_relevant_document():
    assert reciprocal_rank_at_k(RANKING, GRADES, 10) == 0.5
    assert reciprocal_rank_at_k(RANKING, GRADES, 1) == 0.0


def test_average_precision_divides_by_all_relevant_documents():
    # hits at ranks 2 and 3: (1/2 + 2/3) / 3 relevant
    assert average_precision_at_k(RANKING, GRADES, 100) == pytest.approx((0.5 + 2 / 3) / 3)


def test_a_repeated_document_counts_once():
    assert recall_at_k(["d1", "d1", "d1"], {"d1": 1, "d2": 1}, 3) == 0.5
    assert average_precision_at_k(["d1", "d1", "d2"], {"d1": 1, "d2": 1}, 3) == pytest.approx((1 + 1) / 2)


def test_a_query_without_relevant_documents_scores_zero():
    assert ndcg_at_k(["a"], {"a": 0}, 10) == 0.0 and recall_at_k(["a"], {}, 10) == 0.0


def test_evaluate_run_averages_over_judged_queries_and_counts_missing_runs_as_zero():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}
    metrics = evaluate_run({"q1": ["a"], "q3": ["c"]}, qrels)
    assert metrics.queries == 2  # q3 has no relevant document
    assert metrics.mrr_at_10 == 0.5 and metrics.recall_at_100 == 0.5 and metrics.ndcg_at_10 == 0.5


def test_recall_at_100_sees_what_recall_at_10_misses():
    ranking = [f"x{i}" for i in range(50)] + ["rel"]
    metrics = evaluate_run({"q": ranking}, {"q": {"rel": 1}})
    assert metrics.recall_at_10 == 0.0 and metrics.recall_at_100 == 1.0
    assert metrics.map_at_100 == pytest.approx(1 / 51)


def test_per_query_values_are_keyed_by_metric_then_query():
    values = per_query_metrics({"q": ["a"]}, {"q": {"a": 1}})
    assert values["ndcg_at_10"] == {"q": 1.0} and set(values) == {
        "ndcg_at_10", "recall_at_10", "recall_at_100", "mrr_at_10", "map_at_100"}


@settings(deadline=None, max_examples=50)
@given(
    ranking=st.lists(st.sampled_from("abcdefgh"), max_size=12),
    grades=st.dictionaries(st.sampled_from("abcdefgh"), st.integers(0, 3), max_size=8),
    k=st.integers(1, 12),
)
def test_every_metric_lies_between_zero_and_one(ranking, grades, k):
    for metric in (ndcg_at_k, recall_at_k, precision_at_k, reciprocal_rank_at_k, average_precision_at_k):
        value = metric(ranking, grades, k)
        assert 0.0 <= value <= 1.0 + 1e-12 and not math.isnan(value)


def test_a_non_positive_cut_off_is_refused():
    with pytest.raises(ValueError, match="k must be >= 1"):
        ndcg_at_k(["a"], {"a": 1}, 0)
