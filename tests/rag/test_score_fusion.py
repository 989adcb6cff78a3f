"""Score fusion: each side's scores normalised over its own candidates, then their weighted
mean (rag.fusion.normalized_score_fusion), and hybrid search's choice of fusion."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.documents import Document
from rag.errors import ValidationError
from rag.fusion import normalized_score_fusion
from rag.hybrid import HybridConfig, fuse

A, B, C, D = (Document(name, id=name) for name in "abcd")


def ids(fused):
    return [document.id for document, _ in fused]


def test_zscore_adds_each_sides_standard_scores():
    dense = [(A, 0.9), (B, 0.5), (C, 0.1)]  # z: +1.22, 0, -1.22
    lexical = [(C, 30.0), (B, 20.0), (A, 10.0)]  # z: +1.22, 0, -1.22
    fused = normalized_score_fusion([dense, lexical], [0.7, 0.3], "zscore")
    assert ids(fused) == ["a", "b", "c"]
    z = math.sqrt(1.5)
    assert [score for _, score in fused] == pytest.approx(
        [0.5 * (1 + math.erf(v / math.sqrt(2))) for v in (0.4 * z, 0.0, -0.4 * z)])


def test_a_document_missing_from_one_side_counts_as_that_sides_lowest_candidate():
    dense = [(A, 1.0), (B, 0.0)]
    lexical = [(C, 5.0), (A, 1.0)]
    fused = dict((d.id, s) for d, s in normalized_score_fusion([dense, lexical], [0.5, 0.5], "minmax"))
    assert fused == {"a": pytest.approx(0.5), "b": pytest.approx(0.0), "c": pytest.approx(0.5)}


def test_a_side_whose_candidates_all_score_alike_says_nothing_about_their_order_and_an_empty_one_nothing_at_all():
    dense = [(A, 0.7), (B, 0.7)]
    lexical = [(B, 3.0), (A, 1.0)]
    assert ids(normalized_score_fusion([dense, lexical], [0.5, 0.5], "zscore")) == ["b", "a"]
    only = normalized_score_fusion([[(A, 0.4)], []], [0.5, 0.5], "minmax")
    assert [(d.id, s) for d, s in only] == [("a", 1.0)]


def test_equal_fused_scores_keep_first_seen_order_dense_first():
    fused = normalized_score_fusion([[(A, 1.0), (B, 0.0)], [(B, 1.0), (A, 0.0)]], [0.5, 0.5], "minmax")
    assert ids(fused) == ["a", "b"]


def test_a_side_of_weight_zero_does_not_reorder():
    dense = [(A, 0.9), (B, 0.8), (C, 0.1)]
    lexical = [(C, 9.0), (D, 8.0)]
    assert ids(normalized_score_fusion([dense, lexical], [1.0, 0.0], "zscore"))[:3] == ["a", "b", "c"]


def test_an_unknown_normalisation_is_refused():
    with pytest.raises(ValidationError, match="method must be one of zscore, minmax, got 'l2'"):
        normalized_score_fusion([[(A, 1.0)]], [1.0], "l2")


scores = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@settings(deadline=None, max_examples=80)
@given(dense=st.lists(scores, max_size=8), lexical=st.lists(scores, max_size=8),
       weight=st.floats(min_value=0.01, max_value=1.0), method=st.sampled_from(["zscore", "minmax"]))
def test_fused_scores_are_in_zero_one_sorted_and_name_each_candidate_once(dense, lexical, weight, method):
    docs = [Document(str(n), id=str(n)) for n in range(12)]
    dense_side = [(docs[n], s) for n, s in enumerate(dense)]
    lexical_side = [(docs[11 - n], s) for n, s in enumerate(lexical)]
    fused = normalized_score_fusion([dense_side, lexical_side], [weight, 1 - weight + 0.01], method)
    values = [s for _, s in fused]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert values == sorted(values, reverse=True)
    assert sorted(ids(fused)) == sorted({d.id for d, _ in dense_side + lexical_side})


@settings(deadline=None, max_examples=60)
@given(dense=st.lists(st.integers(min_value=0, max_value=1000), min_size=2, max_size=8, unique=True),
       scale=st.sampled_from([0.5, 2.0, 10.0]), shift=st.sampled_from([-5.0, 0.0, 3.0]),
       method=st.sampled_from(["zscore", "minmax"]))
def test_the_ranking_does_not_depend_on_a_sides_scale_or_offset(dense, scale, shift, method):
    docs = [Document(str(n), id=str(n)) for n in range(len(dense))]
    lexical = [(docs[-1], 2.0), (docs[0], 1.0)]
    plain = normalized_score_fusion([[(d, s / 1000) for d, s in zip(docs, dense)], lexical], [0.5, 0.5], method)
    moved = normalized_score_fusion([[(d, s / 1000 * scale + shift) for d, s in zip(docs, dense)], lexical],
                                    [0.5, 0.5], method)
    assert ids(plain) == ids(moved)


def test_hybrid_search_fuses_by_the_configured_fusion():
    dense = [(A, 0.91), (B, 0.90), (C, 0.10)]
    lexical = [(B, 50.0), (C, 1.0)]
    assert ids(fuse(dense, lexical, HybridConfig(fusion="rrf"), 3)) == ["b", "c", "a"]  # ranks only
    assert ids(fuse(dense, lexical, HybridConfig(fusion="zscore", weights=(0.9, 0.1)), 3)) == ["b", "a", "c"]
    assert ids(fuse(dense, lexical, HybridConfig(fusion="minmax", weights=(1.0, 0.0)), 3)) == ["a", "b", "c"]


@pytest.mark.parametrize("fields, shown", [
    ({"fusion": "softmax"}, "fusion must be one of rrf, zscore, minmax, union-zscore, union-minmax, got 'softmax'"),
    ({"weights": (-0.1, 1.0)}, "weights must be (dense, lexical), two finite numbers >= 0"),
    ({"weights": (float("inf"), 1.0)}, "weights must be (dense, lexical), two finite numbers >= 0"),
    ({"weights": (0, 0)}, "at least one weight must be greater than 0"),
])
def test_a_bad_hybrid_config_names_the_value(fields, shown):
    with pytest.raises(ValidationError, match=shown.replace("(", r"\(").replace(")", r"\)")):
        HybridConfig(**fields)


def test_a_config_saved_before_fusions_existed_stays_reciprocal_rank_whatever_the_default():
    assert HybridConfig.from_json({"fetch_k": 20, "weights": [0.5, 0.5], "c": 60}) == HybridConfig(fetch_k=20,
                                                                                                   fusion="rrf")
    saved = HybridConfig(fusion="zscore", weights=(0.7, 0.3)).to_json()
    assert HybridConfig.from_json(saved) == HybridConfig(fusion="zscore", weights=(0.7, 0.3))


def test_an_index_keeps_its_fusion_until_asked_and_saves_the_new_one(tmp_path):
    from rag.index import Index

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "owls.md").write_text("Owls hunt at night.")
    (tmp_path / "docs" / "cats.md").write_text("Cats purr when they are content.")
    index = Index.create(tmp_path / "ix", embeddings="hashing", hybrid=HybridConfig(fusion="rrf"))
    index.update([str(tmp_path / "docs")])
    index.configure(hybrid=HybridConfig(fusion="zscore", weights=(0.7, 0.3)))
    reopened = Index.open(tmp_path / "ix")
    assert reopened.config.hybrid == HybridConfig(fusion="zscore", weights=(0.7, 0.3))
    assert reopened.info().hybrid["fusion"] == "zscore" and len(reopened) == 2
    found = reopened.search("owls at night", k=2)
    assert found[0][0].page_content.startswith("Owls") and all(0.0 <= score <= 1.0 for _, score in found)


def test_configure_refuses_what_is_not_a_hybrid_config(tmp_path):
    from rag.index import Index

    index = Index.create(tmp_path / "ix", embeddings="hashing")
    with pytest.raises(ValidationError, match="hybrid must be a HybridConfig"):
        index.configure(hybrid={"fusion": "zscore"})  # type: ignore[arg-type]
    assert not (tmp_path / "ix").exists()


@pytest.mark.parametrize("method", ["zscore", "minmax"])
def test_the_one_candidate_of_a_side_ranks_above_the_documents_that_side_did_not_find(method):
    dense = [(A, 0.60), (D, 0.59), (B, 0.58), (C, 0.20)]
    lexical = [(D, 4.2)]  # the only document holding the query's rare term
    assert ids(normalized_score_fusion([dense, lexical], [0.5, 0.5], method))[0] == "d"
