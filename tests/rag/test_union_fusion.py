"""Union score fusion: every candidate of either side scored by both sides with its true
score, each side normalised over the union (rag.fusion.union_score_fusion), and the
lexical sides' scores of named documents it relies on."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.bm25 import BM25Retriever
from rag.documents import Document
from rag.errors import ValidationError
from rag.fusion import union_score_fusion
from rag.hybrid import HybridConfig, fuse, rescorer

A, B, C, D = (Document(name, id=name) for name in "abcd")


def ids(fused):
    return [document.id for document, _ in fused]


def table(scores):
    """A rescorer reading true scores from ``{id: score}``, recording what it was asked."""
    asked = []

    def rescore(documents):
        asked.append([d.id for d in documents])
        return [scores[d.id] for d in documents]
    rescore.asked = asked
    return rescore


def phi(z):
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def test_a_candidate_one_side_missed_counts_with_its_true_score_there():
    dense, lexical = [(A, 0.9), (B, 0.5)], [(C, 4.0), (B, 3.0)]
    true_dense, true_lexical = table({"c": 0.1}), table({"a": 0.0})
    fused = union_score_fusion([dense, lexical], [0.5, 0.5], [true_dense, true_lexical], "minmax")
    # dense over {a, b, c}: 1, 0.5, 0; lexical: 0, 0.75, 1.
    assert [(d.id, round(s, 6)) for d, s in fused] == [("b", 0.625), ("a", 0.5), ("c", 0.5)]
    assert true_dense.asked == [["c"]] and true_lexical.asked == [["a"]]  # once each, only the missing


def test_zscore_is_the_normal_cdf_of_the_weighted_mean_of_standard_scores_over_the_union():
    dense, lexical = [(A, 0.9), (B, 0.5), (C, 0.1)], [(C, 30.0), (B, 20.0), (A, 10.0)]
    fused = union_score_fusion([dense, lexical], [0.7, 0.3], [table({}), table({})], "zscore")
    z = math.sqrt(1.5)
    assert ids(fused) == ["a", "b", "c"]
    assert [s for _, s in fused] == pytest.approx([phi(0.4 * z), 0.5, phi(-0.4 * z)])


def test_no_side_is_asked_when_both_returned_every_candidate():
    never = table({})
    union_score_fusion([[(A, 1.0), (B, 0.5)], [(B, 2.0), (A, 1.0)]], [0.5, 0.5], [never, never])
    assert never.asked == []


def test_a_side_of_weight_zero_is_neither_asked_nor_counted():
    never = table({})
    fused = union_score_fusion([[(A, 0.9), (B, 0.8)], [(C, 9.0)]], [1.0, 0.0], [table({"c": 0.1}), never])
    assert ids(fused) == ["a", "b", "c"] and never.asked == []


def test_an_empty_side_is_left_out_and_not_asked():
    never = table({})
    fused = union_score_fusion([[(A, 0.9), (B, 0.1)], []], [0.5, 0.5], [never, never], "minmax")
    assert [(d.id, s) for d, s in fused] == [("a", 1.0), ("b", 0.0)] and never.asked == []


def test_a_side_whose_scores_are_all_alike_over_the_union_is_left_out():
    # Lexical: one candidate, and the other candidate holds the same score: it orders nothing.
    fused = union_score_fusion([[(A, 0.9), (B, 0.1)], [(B, 2.0)]], [0.5, 0.5], [table({}), table({"a": 2.0})],
                               "minmax")
    assert [(d.id, s) for d, s in fused] == [("a", 1.0), ("b", 0.0)]


def test_one_candidate_scores_the_middle_of_the_scale():
    for method in ("zscore", "minmax"):
        assert [(d.id, s) for d, s in union_score_fusion([[(A, 0.3)], [(A, 7.0)]], [0.5, 0.5],
                                                         [table({}), table({})], method)] == [("a", 0.5)]


def test_a_rare_term_one_chunk_holds_is_not_lost_to_near_identical_dense_matches():
    # Dense: 20 notes alike, the manual far below; lexical: the manual alone holds the term.
    notes = [Document(f"note {n}", id=f"n{n}") for n in range(20)]
    manual = Document("manual", id="manual")
    dense = [(note, 0.63) for note in notes]
    true_dense = table({"manual": 0.18})
    true_lexical = table({note.id: 0.0 for note in notes})
    fused = union_score_fusion([dense, [(manual, 0.54)]], [0.5, 0.5], [true_dense, true_lexical], "zscore")
    # The z-scores cancel exactly (a mirror image); the tie goes to a side's first pick.
    assert ids(fused)[:2] == ["n0", "manual"]


def test_scores_a_float32_digit_apart_count_as_equal():
    # The mirror image above, with the dense scores a last digit apart (as PostgreSQL
    # returns equal cosines): noise must not put the 20 notes above the manual.
    notes = [Document(f"note {n}", id=f"n{n}") for n in range(20)]
    manual = Document("manual", id="manual")
    dense = [(note, 0.63 + (-1) ** n * 6e-8) for n, note in enumerate(notes)]
    true_dense = table({"manual": 0.18})
    true_lexical = table({note.id: 0.0 for note in notes})
    fused = union_score_fusion([dense, [(manual, 0.54)]], [0.5, 0.5], [true_dense, true_lexical], "zscore")
    assert ids(fused)[:2] == ["n0", "manual"]


def test_equal_scores_go_to_the_better_best_rank_then_first_seen():
    dense = [(A, 1.0), (B, 0.5), (C, 0.0)]
    lexical = [(C, 1.0), (B, 0.5), (A, 0.0)]
    fused = union_score_fusion([dense, lexical], [0.5, 0.5], [table({}), table({})], "minmax")
    assert ids(fused) == ["a", "c", "b"]  # all 0.5; a and c were first somewhere, b second at best


def test_bad_inputs_are_refused_naming_the_value():
    with pytest.raises(ValidationError, match="method must be one of zscore, minmax, got 'l2'"):
        union_score_fusion([[(A, 1.0)]], [1.0], [table({})], "l2")
    with pytest.raises(ValidationError, match="1 ranked lists for 1 weights and 2 rescorers"):
        union_score_fusion([[(A, 1.0)]], [1.0], [table({}), table({})])
    with pytest.raises(ValidationError, match="must be finite"):
        union_score_fusion([[(A, 1.0), (B, 0.0)], [(C, 1.0)]], [0.5, 0.5], [table({"c": math.nan}), table({"a": 0.0,
                                                                                                           "b": 0.0})])
    with pytest.raises(ValidationError, match="must be finite"):
        union_score_fusion([[(A, math.inf)], [(A, 1.0)]], [0.5, 0.5], [table({}), table({})])


def test_a_union_fusion_without_rescorers_is_refused_naming_the_fix():
    with pytest.raises(ValidationError, match="union-zscore.*rescorers=\\(dense, lexical\\)"):
        fuse([(A, 1.0)], [(B, 1.0)], HybridConfig(fusion="union-zscore"), 2)


def test_a_rescorer_over_scores_by_id_gives_zero_to_what_it_does_not_name():
    asked = []
    rescore = rescorer(lambda wanted: asked.append(wanted) or {"a": 0.4})
    assert rescore([A, B]) == [0.4, 0.0] and asked == [["a", "b"]]


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@settings(deadline=None, max_examples=80)
@given(dense=st.dictionaries(st.integers(0, 11), finite, max_size=8),
       lexical=st.dictionaries(st.integers(0, 11), finite, max_size=8),
       truth=st.lists(finite, min_size=24, max_size=24),
       weight=st.floats(min_value=0.0, max_value=1.0), method=st.sampled_from(["zscore", "minmax"]))
def test_fused_scores_are_in_zero_one_sorted_and_name_each_candidate_once(dense, lexical, truth, weight, method):
    docs = [Document(str(n), id=str(n)) for n in range(12)]
    sides = [[(docs[n], s) for n, s in dense.items()], [(docs[n], s) for n, s in lexical.items()]]
    rescorers = [table({str(n): truth[n] for n in range(12)}), table({str(n): truth[12 + n] for n in range(12)})]
    fused = union_score_fusion(sides, [weight, 1.0 - weight + 0.01], rescorers, method)
    values = [s for _, s in fused]
    assert all(0.0 <= v <= 1.0 for v in values) and values == sorted(values, reverse=True)
    assert sorted(ids(fused)) == sorted(str(n) for n in set(dense) | set(lexical))


@settings(deadline=None, max_examples=60)
@given(dense=st.lists(st.integers(0, 1000), min_size=2, max_size=8, unique=True),
       lexical=st.lists(st.integers(0, 1000), min_size=1, max_size=8),
       scale=st.sampled_from([0.5, 2.0, 10.0, 1e4]), shift=st.sampled_from([-5.0, 0.0, 3.0, 1e3]),
       method=st.sampled_from(["zscore", "minmax"]), side=st.sampled_from([0, 1]))
def test_neither_order_nor_scores_depend_on_a_sides_scale_or_offset(dense, lexical, scale, shift, method, side):
    docs = [Document(str(n), id=str(n)) for n in range(len(dense))]
    # Lexical: its own top len(lexical) of the docs, in reverse order; true scores for the rest.
    lexical_true = {d.id: float(lexical[n % len(lexical)]) for n, d in enumerate(docs)}
    own = sorted(docs[-len(lexical):], key=lambda d: -lexical_true[d.id])

    def fused(move):
        dense_side = [(d, move(s, 0) / 1000) for d, s in zip(docs, dense)]
        lexical_side = [(d, move(lexical_true[d.id], 1)) for d in own]
        rescorers = [table({d.id: move(s, 0) / 1000 for d, s in zip(docs, dense)}),
                     table({i: move(s, 1) for i, s in lexical_true.items()})]
        return union_score_fusion([dense_side, lexical_side], [0.5, 0.5], rescorers, method)

    plain = fused(lambda s, _: s)
    moved = fused(lambda s, which: s * scale + shift if which == side else s)
    assert ids(plain) == ids(moved)
    assert [s for _, s in moved] == pytest.approx([s for _, s in plain], abs=1e-6)


def test_bm25_scores_of_named_documents_are_what_its_search_reports():
    retriever = BM25Retriever.from_documents([Document("cats purr", id="c"), Document("dogs bark", id="d"),
                                              Document("a cat sleeps", id="s")])
    found = dict((d.id, s) for d, s in retriever.search_with_scores("cat", 3))
    assert retriever.scores_of("cat", ["s", "d", "missing", "c"]) == pytest.approx({**found, "d": 0.0})


def test_hybrid_search_over_a_store_and_bm25_fuses_the_union_by_true_scores():
    from rag.embeddings import HashingEmbeddings
    from rag.hybrid import hybrid_search
    from stores import FAISS

    docs = [Document("The mitochondria is the powerhouse of the cell.", id="bio"),
            Document("Stock markets fell sharply on Monday.", id="finance"),
            Document("Photosynthesis converts light into chemical energy in plants.", id="plants"),
            Document("Plants need light and water.", id="garden")]
    store = FAISS(HashingEmbeddings(dim=64), distance_strategy="COSINE")
    store.add_documents(docs)
    lexical = BM25Retriever.from_documents(docs)
    query = "plants energy light"
    config = HybridConfig(fetch_k=2, fusion="union-zscore")  # two candidates a side: the rest rescored
    found = hybrid_search(store, lexical, query, 2, config=config)
    # By hand: every document's true score on each side, the sides' own top 2 as candidates.
    dense_all = dict((d.id, s) for d, s in store.similarity_search_with_relevance_scores(query, k=4))
    lexical_all = dict(zip([d.id for d in docs], lexical.scores(query).tolist()))
    dense = [(d, s) for d, s in store.similarity_search_with_relevance_scores(query, k=2)]
    top = sorted(docs, key=lambda d: -lexical_all[d.id])[:2]
    expected = union_score_fusion([dense, [(d, lexical_all[d.id]) for d in top if lexical_all[d.id] > 0]],
                                  [0.5, 0.5], [table(dense_all), table(lexical_all)], "zscore")[:2]
    assert [(d.id, round(s, 6)) for d, s in found] == [(d.id, round(s, 6)) for d, s in expected]
