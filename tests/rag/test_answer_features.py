"""The offline answerer's named features: small pure functions over arrays of units, each
value in [0, 1]."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.chains.features import (
    FEATURES,
    block_fit,
    brevity,
    dense_similarity,
    lexical_overlap,
    question_form,
    section_lead,
    section_match,
    source_rank,
    subject_match,
)


def test_question_forms_are_told_apart_by_their_wording():
    assert [question_form(q) for q in ("How do I add a column?", "Which lock modes conflict with each other?",
                                       "What is a tablespace?", "Why is my query slow?")] == [
        "how", "which", "what", "other"]


def test_dense_similarity_is_the_clipped_cosine_and_zero_for_a_zero_vector():
    scores = dense_similarity(np.array([1.0, 0.0]), np.array([[2.0, 0.0], [0.0, 3.0], [-1.0, 0.0], [0.0, 0.0]]))
    assert scores.tolist() == [1.0, 0.0, 0.0, 0.0]


def test_a_rare_question_term_counts_more_than_a_common_one():
    units = [["vacuum", "table"], ["table"], ["table"], ["table"]]
    scores = lexical_overlap(["vacuum", "table"], units)
    assert scores[0] == 1.0 and 0 < scores[1] < 0.5


def test_a_question_without_terms_matches_nothing():
    assert lexical_overlap([], [["a"], ["b"]]).tolist() == [0.0, 0.0]


def test_a_unit_without_a_heading_gets_no_section_match():
    assert section_match(np.array([0.8, 0.3]), [1, -1, 0]).tolist() == [0.3, 0.0, 0.8]


def test_only_the_first_two_sentences_of_a_section_are_its_lead():
    assert section_lead([0, 1, 2, None], np.array([0.5, 0.5, 0.5, 0.5])).tolist() == [0.5, 0.5, 0.0, 0.0]


def test_subject_match_applies_to_what_is_questions_only():
    assert subject_match("what", [True, False, True], [False, False, True]).tolist() == [0.5, 0.0, 1.0]
    assert subject_match("how", [True], [True]).tolist() == [0.0]


def test_a_how_question_fits_code_but_not_a_synopsis_and_a_which_question_fits_a_table():
    kinds = ["code", "code", "table", "sentence"]
    assert block_fit("how", kinds, [False, True, False, False]).tolist() == [1.0, 0.0, 0.0, 0.0]
    assert block_fit("which", kinds, [False] * 4).tolist() == [0.0, 0.0, 1.0, 0.0]


def test_brevity_is_how_far_a_unit_falls_short_of_four_words():
    assert brevity([1, 2, 4, 30]).tolist() == [0.75, 0.5, 0.0, 0.0]


def test_source_rank_falls_from_the_first_passage_to_the_last():
    assert source_rank([1, 2, 3], 3).tolist() == [1.0, 0.5, 0.0]
    assert source_rank([1, 1], 1).tolist() == [1.0, 1.0]


@settings(deadline=None, max_examples=60)
@given(st.lists(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=4), min_size=1, max_size=8),
       st.lists(st.sampled_from(["a", "b", "c", "e"]), max_size=4),
       st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=8))
def test_every_feature_stays_in_the_unit_interval(unit_terms, question_terms, words):
    values = [lexical_overlap(question_terms, unit_terms), brevity(words),
              source_rank([1 + w % 5 for w in words], 5)]
    assert all(((v >= 0) & (v <= 1)).all() for v in values)


def test_the_feature_names_are_the_weights_fields():
    from dataclasses import fields

    from rag.chains.weights import AnswerWeights

    assert set(FEATURES) <= {f.name for f in fields(AnswerWeights)}


def test_the_answer_modules_docstring_examples_run():
    import doctest
    import importlib

    for name in ("rag.chains.features", "rag.chains.weights", "rag.chains.selection", "rag.chains.spans",
                 "rag.chains.units"):
        result = doctest.testmod(importlib.import_module(name))
        assert result.failed == 0 and result.attempted > 0, name
