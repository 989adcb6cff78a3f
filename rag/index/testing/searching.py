"""Conformance: every search type, metadata filters, thresholds and scores, search requests."""

from __future__ import annotations

import pytest

from rag.embeddings.base import embed_query_text
from rag.hybrid import UNION_FUSIONS, HybridConfig
from rag.index.request import SearchRequest
from rag.index.testing._support import names, write_files

__all__ = ["SearchTests", "FilterTests"]

#: Every search type by the index's own names; ``threshold`` is run with threshold 0 where
#: a test is not about the threshold.
SEARCH_TYPES = ("hybrid", "similarity", "mmr", "threshold", "bm25")
#: The search types whose scores are relevance in [0, 1].
RELEVANCE_TYPES = ("similarity", "mmr", "threshold")
#: The search types that rank by the vectors (where a filter must not cost results).
DENSE_TYPES = ("hybrid", "similarity", "mmr")


def search(index, query, search_type, **options):
    """``index.search``, with threshold 0 for a threshold search unless one is given."""
    if search_type == "threshold":
        options.setdefault("threshold", 0.0)
    return index.search(query, search_type=search_type, **options)


class SearchTests:
    """``search(query, k=..., search_type=...)``: ``(chunk, score)`` pairs, best first."""

    @pytest.mark.parametrize("search_type", SEARCH_TYPES)
    def test_each_search_type_finds_the_file_an_unambiguous_query_names(self, indexed, search_type):
        assert names(search(indexed, "owls hunt at night", search_type, k=2))[0] == "owls.md"

    @pytest.mark.parametrize("search_type", SEARCH_TYPES)
    def test_k_caps_the_number_of_results(self, indexed, search_type):
        assert len(search(indexed, "cats purr, goldfish swim, owls hunt, dogs bark", search_type, k=2)) == 2

    @pytest.mark.parametrize("search_type", ("hybrid", "similarity", "threshold", "bm25"))
    def test_results_come_best_first(self, indexed, search_type):
        scores = [score for _, score in search(indexed, "owls hunt at night in the park", search_type, k=4)]
        assert len(scores) >= 2 and scores == sorted(scores, reverse=True)

    @pytest.mark.parametrize("search_type", RELEVANCE_TYPES)
    def test_relevance_scores_are_between_0_and_1(self, indexed, search_type):
        found = search(indexed, "owls hunt at night", search_type, k=4)
        assert found and all(0.0 <= score <= 1.0 for _, score in found)

    def test_a_threshold_search_returns_only_chunks_at_least_that_relevant(self, indexed):
        found = indexed.search("owls hunt at night", k=4, search_type="threshold", threshold=0.3)
        assert names(found) == ["owls.md"] and all(score >= 0.3 for _, score in found)

    def test_langchains_similarity_score_threshold_is_the_threshold_search(self, indexed):
        langchain = indexed.search("owls hunt at night", k=4, search_type="similarity_score_threshold", threshold=0.3)
        assert langchain == indexed.search("owls hunt at night", k=4, search_type="threshold", threshold=0.3)

    def test_mmr_scores_are_the_relevance_a_similarity_search_gives(self, indexed):
        relevance = {d.id: score for d, score in indexed.search("owls hunt at night", k=3, search_type="similarity")}
        picked = indexed.search("owls hunt at night", k=3, search_type="mmr", lambda_mult=1.0)
        assert [d.id for d, _ in picked] == list(relevance)  # relevance only: the similarity order
        assert [score for _, score in picked] == pytest.approx(list(relevance.values()), abs=1e-5)

    def test_mmr_prefers_a_different_chunk_to_a_copy_of_one_it_picked(self, index, tmp_path):
        kestrels = "Kestrels hover over fields hunting voles."
        docs = write_files(tmp_path / "docs", {"a.md": kestrels, "copy.md": kestrels,
                                               "barns.md": "Kestrels nest in old barns."})
        index.update([str(docs)])
        assert len(set(names(index.search("kestrels hover hunting voles", k=2, search_type="similarity")))
                   & {"a.md", "copy.md"}) == 2
        picked = names(index.search("kestrels hover hunting voles", k=2, search_type="mmr"))
        assert picked[0] in ("a.md", "copy.md") and picked[1] == "barns.md"

    @pytest.mark.parametrize("fusion", [None, *UNION_FUSIONS])  # None: the index's default
    def test_hybrid_search_fuses_a_rare_term_that_dense_search_misses(self, index, tmp_path, fusion):
        # Notes of stopwords: close to the query for dense search (words and word pairs in
        # common), invisible to BM25 (stopwords are not indexed).
        notes = {f"note-{n:02d}.md": f"is it the note {n}" for n in range(25)}
        # A long note holding the rare term once among many other words: far from the query
        # for dense search, first for BM25 (the rare term's idf).
        notes["manual.md"] = "kettle " + " ".join(f"filler{i}" for i in range(300)) + " the descaler7x"
        index.update([str(write_files(tmp_path / "docs", notes))])
        if fusion is not None:
            index.configure(hybrid=HybridConfig(fusion=fusion))
        assert "manual.md" not in names(index.search("is it the descaler7x", k=20, search_type="similarity"))
        assert names(index.search("is it the descaler7x", k=1, search_type="bm25")) == ["manual.md"]
        assert "manual.md" in names(index.search("is it the descaler7x", k=5, search_type="hybrid"))

    @pytest.mark.parametrize("fusion", UNION_FUSIONS)
    def test_a_union_fusion_ranks_each_chunk_once_with_a_score_between_0_and_1(self, indexed, fusion):
        indexed.configure(hybrid=HybridConfig(fusion=fusion))
        found = indexed.search("owls hunt at night in the park", k=4, search_type="hybrid")
        ids = [document.id for document, _ in found]
        assert names(found)[0] == "owls.md" and len(ids) == len(set(ids)) == 4
        assert all(0.0 <= score <= 1.0 for _, score in found)

    def test_each_side_scores_named_chunks_as_its_own_search_reports_them(self, indexed):
        query = "owls hunt at night in the park"
        dense = {d.id: s for d, s in indexed.search(query, k=4, search_type="similarity")}
        lexical = {d.id: s for d, s in indexed.search(query, k=4, search_type="bm25")}
        ids = list(dense) + ["no-such-chunk"]
        store = indexed.backend.store
        vector = embed_query_text(store.embeddings, query, dimension=store.dimension)
        assert store.relevance_scores_by_ids(vector, ids) == pytest.approx(dense, abs=1e-5)
        scored = indexed.backend.lexical_scores(query, ids)
        assert "no-such-chunk" not in scored and scored == pytest.approx({i: lexical.get(i, 0.0) for i in scored})
        assert set(lexical) <= set(scored)

    @pytest.mark.parametrize("search_type", SEARCH_TYPES)
    def test_each_result_is_a_stored_chunk_with_its_source_and_id(self, indexed, search_type):
        held = indexed.sources()
        found = search(indexed, "owls hunt at night in the park", search_type, k=4)
        assert found and all(document.id in held[document.metadata["source"]] for document, _ in found)

    @pytest.mark.parametrize("search_type", SEARCH_TYPES)
    def test_an_empty_index_finds_nothing(self, index, search_type):
        assert search(index, "owls hunt at night", search_type, k=4) == []

    @pytest.mark.parametrize("request_", [
        SearchRequest("owls hunt at night", k=2),
        SearchRequest("owls hunt at night", k=3, search_type="mmr", fetch_k=10, lambda_mult=0.5),
        SearchRequest("owls hunt at night", k=4, search_type="threshold", threshold=0.3),
        SearchRequest("owls purr", k=4, search_type="bm25", filter={"source": {"$ne": ""}}),
    ], ids=["hybrid", "mmr", "threshold", "bm25"])
    def test_a_search_request_finds_what_the_same_search_finds(self, indexed, request_):
        by_call = indexed.search(request_.query, k=request_.k, search_type=request_.search_type.value,
                                 filter=request_.filter, threshold=request_.threshold, fetch_k=request_.fetch_k,
                                 lambda_mult=request_.lambda_mult)
        assert by_call and indexed.search_request(request_) == by_call


class FilterTests:
    """A metadata ``filter`` is applied before ranking, by every search type."""

    @pytest.mark.parametrize("search_type", SEARCH_TYPES)
    def test_a_source_filter_keeps_only_that_sources_chunks(self, indexed, docs, search_type):
        found = search(indexed, "owls purr", search_type, k=4, filter={"source": str(docs / "cats.md")})
        assert found and set(names(found)) == {"cats.md"}

    @pytest.mark.parametrize("search_type", SEARCH_TYPES)
    def test_a_ne_filter_leaves_that_source_out(self, indexed, docs, search_type):
        found = search(indexed, "owls hunt at night in the park", search_type, k=4,
                       filter={"source": {"$ne": str(docs / "owls.md")}})
        assert found and "owls.md" not in names(found)

    @pytest.mark.parametrize("search_type", SEARCH_TYPES)
    def test_a_filter_that_matches_nothing_finds_nothing(self, indexed, docs, search_type):
        assert search(indexed, "owls hunt at night", search_type, k=4, filter={"source": str(docs / "none.md")}) == []

    @pytest.mark.parametrize("fusion", UNION_FUSIONS)
    def test_a_union_fusion_scores_no_chunk_outside_the_filter(self, indexed, docs, fusion):
        indexed.configure(hybrid=HybridConfig(fusion=fusion))
        # The owl chunk is first on both sides unfiltered: neither side may bring it back.
        found = indexed.search("owls hunt at night in the park", k=4, filter={"source": {"$ne": str(docs / "owls.md")}})
        assert found and "owls.md" not in names(found)

    @pytest.mark.parametrize("search_type", DENSE_TYPES)
    def test_k_results_come_back_whenever_k_chunks_match_the_filter(self, index, tmp_path, search_type):
        files = {f"owl-{n:02d}.md": f"Owl note {n}: owls hunt at night." for n in range(25)}
        files.update({f"heron-{n}.md": f"Heron note {n}: herons wade in shallow water." for n in range(3)})
        docs = write_files(tmp_path / "docs", files)
        index.update([str(docs)])
        herons = [str(docs / f"heron-{n}.md") for n in range(3)]  # ranked below every owl note
        found = search(index, "owls hunt at night", search_type, k=3, filter={"source": {"$in": herons}})
        assert sorted(names(found)) == ["heron-0.md", "heron-1.md", "heron-2.md"]
