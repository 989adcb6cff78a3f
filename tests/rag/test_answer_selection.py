"""Choosing quotes under the length budget: best first, each candidate whole or not at all."""

import numpy as np

from rag.chains.selection import fit_block, select_candidates


def pick(scores, candidates, max_units=4, max_chars=1200, min_score=0.2):
    return [(s.index, s.texts) for s in select_candidates(np.array(scores), candidates, max_units=max_units,
                                                            max_chars=max_chars, min_score=min_score)]


def test_candidates_come_best_first_and_below_the_minimum_score_never():
    chosen = pick([0.3, 0.9, 0.1], [[("sentence", "A.")], [("sentence", "B.")], [("sentence", "C.")]])
    assert chosen == [(1, ("B.",)), (0, ("A.",))]


def test_a_sentence_is_never_quoted_without_the_block_it_introduces():
    candidates = [[("sentence", "Run this:"), ("code", "x" * 50)], [("sentence", "Short.")]]
    assert pick([0.9, 0.5], candidates, max_chars=30) == [(1, ("Short.",))]


def test_a_block_is_cut_at_a_line_to_fit():
    block = "line one\nline two\nline three"
    assert pick([0.9], [[("code", block)]], max_chars=18) == [(0, ("line one\nline two",))]


def test_the_unit_limit_counts_every_unit_of_a_candidate():
    candidates = [[("sentence", "A:"), ("code", "a b")], [("sentence", "B.")], [("sentence", "C.")]]
    assert [i for i, _ in pick([0.9, 0.8, 0.7], candidates, max_units=3)] == [0, 1]


def test_a_block_with_no_whole_line_that_fits_is_nothing():
    assert fit_block("a long first line\nb", 5) == ""


def test_the_minimum_applies_to_relevance_when_given_not_to_the_score():
    candidates = [[("sentence", "A.")], [("sentence", "B.")]]
    chosen = select_candidates(np.array([0.9, 0.1]), candidates, max_units=4, max_chars=100, min_score=0.2,
                               relevance=np.array([0.1, 0.5]))
    assert [s.index for s in chosen] == [1]
