"""The index as a library: create, update, search, retrieve, answer and describe, in Python."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.errors import EmbeddingMismatchError, IndexNotFoundError, StorageError, ValidationError
from rag.index import Answer, Index, IndexRetriever
from rag.index.segments import SegmentFolder
from rag.models import FakeListChatModel
from rag.tools import create_retriever_tool


@pytest.fixture
def index(corpus: Path, tmp_path: Path) -> Index:
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(corpus)])
    return index


def test_an_update_reports_added_sources_and_saves_the_index(corpus, tmp_path):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    summary = index.update([str(corpus)])
    assert (summary.added, summary.updated, summary.unchanged, summary.deleted, summary.failed) == (3, 0, 0, 0, [])
    assert Index.exists(tmp_path / "ix") and len(Index.open(tmp_path / "ix")) == 3


def test_a_second_update_reports_unchanged_updated_added_and_deleted(index, corpus):
    (corpus / "cats.md").write_text("# Cats\n\nCats chase laser pointers at night.\n")
    (corpus / "birds.txt").write_text("Parrots can learn words and whistle tunes.\n")
    (corpus / "dogs.txt").unlink()
    summary = index.update([str(corpus)])
    assert (summary.added, summary.updated, summary.unchanged, summary.deleted) == (1, 1, 1, 1)
    assert all("dogs.txt" not in doc.metadata["source"] for doc, _ in index.search("postman bark", k=4))


def test_a_source_that_fails_is_reported_with_its_reason_and_kept(index, corpus):
    (corpus / "dogs.txt").write_bytes(b"\x81\x8d\x8f\x90\x9d not decodable")
    summary = index.update([str(corpus)])
    [(source, reason)] = summary.failed
    assert source.endswith("dogs.txt") and reason
    assert summary.deleted == 0 and len(index.sources()) == 3


@pytest.mark.parametrize("search_type", ["hybrid", "similarity", "mmr", "bm25"])
def test_every_search_type_ranks_the_matching_chunk_first(index, search_type):
    [(best, score), *_] = index.search("goldfish bowls", k=3, search_type=search_type)
    assert best.metadata["source"].endswith("fish.md") and score > 0


def test_threshold_search_keeps_only_chunks_at_or_above_the_threshold(index):
    everything = index.search("goldfish", k=3, search_type="similarity")
    kept = index.search("goldfish", k=3, search_type="similarity_score_threshold", threshold=0.1)
    assert [d.id for d, _ in kept] == [d.id for d, s in everything if s >= 0.1]


def test_a_filter_applies_to_both_sides_of_hybrid_search(index):
    results = index.search("goldfish bowls", k=3, filter={"source": {"$ne": index.search("goldfish", k=1)[0][0].metadata["source"]}})
    assert len(results) == 2 and all(not doc.metadata["source"].endswith("fish.md") for doc, _ in results)



@pytest.mark.parametrize("store", ["faiss", "memory"])
@pytest.mark.parametrize("search_type", ["similarity", "mmr", "bm25", "hybrid"])
def test_a_callable_filter_takes_a_chunks_metadata_whatever_the_store(corpus, tmp_path, store, search_type):
    # The memory store hands its own callable filters a Document; the index's takes metadata everywhere.
    index = Index.create(tmp_path / "ix", embeddings="hashing", store=store)
    index.update([corpus])
    results = index.search("cats purr, dogs bark", k=3, search_type=search_type,
                           filter=lambda metadata: not metadata["source"].endswith("cats.md"))
    assert results and all(not doc.metadata["source"].endswith("cats.md") for doc, _ in results)

@pytest.mark.parametrize("kwargs, shown", [
    ({"k": 0}, "k must be a positive int, got 0"),
    ({"search_type": "fuzzy"}, "'fuzzy' is not one of hybrid"),
    ({"search_type": "similarity", "threshold": 0.5}, "threshold applies to search type 'threshold' only"),
    ({"search_type": "threshold"}, "needs threshold"),
    ({"filter": {"source": {"$near": 1}}}, "\\$near"),
])
def test_bad_search_arguments_name_the_value_and_what_was_expected(index, kwargs, shown):
    with pytest.raises(ValidationError, match=shown):
        index.search("cats", **kwargs)


def test_the_retriever_numbers_its_documents_and_works_as_a_tool(index):
    retriever = index.as_retriever(search_kwargs={"k": 2})
    assert isinstance(retriever, IndexRetriever)
    documents = retriever.invoke("goldfish")
    assert [d.metadata["n"] for d in documents] == [1, 2]
    tool = create_retriever_tool(retriever, "search_pets", "Search the pet notes.")
    assert "Goldfish swim in bowls" in tool.invoke({"query": "goldfish"})


def test_a_misspelt_retriever_argument_is_refused(index):
    with pytest.raises(ValidationError, match="kk"):
        index.as_retriever(search_kwargs={"kk": 2})


def test_asking_offline_answers_with_cited_sentences_and_numbered_sources(index):
    answer = index.ask("What do goldfish swim in?")
    assert isinstance(answer, Answer)
    assert "Goldfish swim in bowls" in answer.answer and "[1]" in answer.answer
    assert answer.sources[0].n == 1 and answer.sources[0].source.endswith("fish.md")


def test_asking_a_chat_model_sends_the_numbered_passages_and_returns_its_answer(index):
    model = FakeListChatModel(responses=["They swim in bowls [1]."])
    answer = index.ask("What do goldfish swim in?", llm=model)
    assert answer.answer == "They swim in bowls [1]."
    assert answer.to_json()["sources"][0]["source"].endswith("fish.md")


def test_info_describes_the_index(index, tmp_path):
    info = index.info()
    assert (info.embeddings, info.sources, info.chunks, info.store, info.bm25) == ("hashing", 3, 3, "FAISS", True)
    assert info.size_on_disk_bytes > 0 and info.hybrid == {"fetch_k": 20, "weights": [0.5, 0.5], "c": 60.0,
                                                                "fusion": "union-zscore"}


def test_the_library_prints_nothing(corpus, tmp_path, capsys):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(corpus)])
    index.search("cats")
    index.ask("What do cats do?")
    index.info()
    assert capsys.readouterr() == ("", "")


def test_opening_a_missing_index_says_how_to_create_one(tmp_path):
    with pytest.raises(IndexNotFoundError, match="rag index SOURCE --index") as caught:
        Index.open(tmp_path / "nothing")
    assert isinstance(caught.value, FileNotFoundError)


def test_creating_over_an_existing_index_is_refused(index):
    with pytest.raises(ValidationError, match="already holds an index"):
        Index.create(index.path, embeddings="hashing")


def test_creating_in_a_folder_of_other_files_is_refused_and_keeps_them(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "precious.txt").write_text("keep me")
    with pytest.raises(StorageError, match="not an index folder"):
        Index.create(tmp_path / "mine", embeddings="hashing")
    assert (tmp_path / "mine" / "precious.txt").read_text() == "keep me"


def test_opening_with_other_embeddings_is_refused_with_the_fix(index):
    with pytest.raises(EmbeddingMismatchError, match="built with --embeddings hashing.*rebuild"):
        Index.open(index.path, embeddings="openai:text-embedding-3-small")


def test_new_chunk_settings_rechunk_every_source_and_are_kept(index, corpus):
    summary = index.update([str(corpus)], chunk_size=40, chunk_overlap=5)
    assert summary.updated == 3 and len(index) > 3
    reopened = Index.open(index.path)
    assert (reopened.config.chunk_size, reopened.config.chunk_overlap) == (40, 5)
    assert reopened.update([str(corpus)]).unchanged == 3


def test_an_update_with_nothing_changed_does_not_rewrite_the_folder(corpus, tmp_path):
    import os
    import time

    old = time.time() - 10  # edited well before the build: nothing to re-check afterwards
    for path in corpus.rglob("*.*"):
        os.utime(path, (old, old))
    index = Index.create(tmp_path / "fresh", embeddings="hashing")
    index.update([str(corpus)])
    before = (index.path / "manifest.json").stat().st_mtime_ns, (index.path / "manifest.json").stat().st_ino
    index.update([str(corpus)])
    assert ((index.path / "manifest.json").stat().st_mtime_ns, (index.path / "manifest.json").stat().st_ino) == before


def test_a_failed_save_leaves_the_index_as_it_was_on_disk_and_in_memory(index, corpus, monkeypatch):
    (corpus / "owls.txt").write_text("Owls hunt mice at night and turn their heads far around.\n")

    def full_disk(*args, **kwargs):
        raise StorageError(28, "No space left on device")

    monkeypatch.setattr(SegmentFolder, "write_segment", full_disk)
    with pytest.raises(StorageError, match="No space"):
        index.update([str(corpus)])
    assert len(index.sources()) == 3 and all("owls" not in s for s in index.sources())
    assert not any("owls" in doc.metadata["source"] for doc, _ in index.search("owls hunt mice", k=4))
    monkeypatch.undo()
    assert index.update([str(corpus)]).added == 1 and len(Index.open(index.path).sources()) == 4


def test_an_update_adopts_a_save_made_meanwhile_by_another_process(index, corpus, tmp_path):
    other = Index.open(index.path)
    (corpus / "owls.txt").write_text("Owls hunt mice at night.\n")
    other.update([str(corpus)])
    (corpus / "bats.txt").write_text("Bats sleep upside down.\n")
    summary = index.update([str(corpus)])
    assert (summary.added, summary.unchanged) == (1, 4)
    assert len(Index.open(index.path).sources()) == 5


def test_sources_must_be_a_list(index):
    with pytest.raises(ValidationError, match="list of files"):
        index.update("docs/")


def test_a_folder_holding_another_kind_of_index_is_refused_and_left_alone(tmp_path):
    from rag.embeddings import HashingEmbeddings
    from stores import FAISS

    FAISS.from_texts(["a saved store"], HashingEmbeddings()).save_local(tmp_path / "store")
    before = sorted((p.relative_to(tmp_path), p.read_bytes()) for p in (tmp_path / "store").rglob("*") if p.is_file())
    with pytest.raises(StorageError, match="holds a FAISS index, not a RagIndex"):
        Index.open_or_create(tmp_path / "store" / "index", embeddings="hashing")
    with pytest.raises(StorageError, match="not an index folder"):
        Index.open_or_create(tmp_path / "store", embeddings="hashing")
    assert sorted((p.relative_to(tmp_path), p.read_bytes()) for p in (tmp_path / "store").rglob("*") if p.is_file()) == before


def test_a_malformed_url_source_is_a_validation_error_naming_it(index):
    with pytest.raises(ValidationError, match=r"'http://\[::1/x' is not a valid URL"):
        index.update(["http://[::1/x"])


def test_a_root_named_twice_counts_each_deletion_once(index, corpus):
    (corpus / "dogs.txt").unlink()
    summary = index.update([str(corpus), str(corpus) + "/"])
    assert summary.deleted == 1 and len(index.sources()) == 2


def test_a_deleted_file_first_indexed_through_a_subfolder_is_removed_by_its_parent_folder(tmp_path, corpus):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(corpus / "sub"), str(corpus)])  # fish.md is recorded under the subfolder
    (corpus / "sub" / "fish.md").unlink()
    summary = index.update([str(corpus)])
    assert summary.deleted == 1 and not any("fish" in s for s in index.sources())


def test_a_bad_crawl_depth_is_refused_before_anything_is_loaded(index):
    with pytest.raises(ValidationError, match="crawl must be a number of link hops, an integer >= 0, got -1"):
        index.update(["http://127.0.0.1:9/"], crawl=-1)


def test_an_unreadable_beir_corpus_line_deletes_nothing(tmp_path):
    import json

    corpus = tmp_path / "beir" / "corpus.jsonl"
    corpus.parent.mkdir()
    rows = [{"_id": f"d{n}", "title": "", "text": f"document number {n} about topic {n}"} for n in range(4)]
    corpus.write_text("".join(json.dumps(row) + "\n" for row in rows))
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    assert index.update([str(corpus.parent)], beir=True).added == 4
    corpus.write_text("{not json\n" + "".join(json.dumps(row) + "\n" for row in rows[1:]))
    summary = index.update([str(corpus.parent)], beir=True)
    assert len(summary.failed) == 1 and summary.deleted == 0 and len(index.sources()) == 4


def test_new_chunk_settings_must_name_every_root_of_the_index(tmp_path, corpus):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(corpus / "cats.md"), str(corpus / "sub")])
    with pytest.raises(ValidationError, match=r"re-chunks every source: name all .*missing: .*sub"):
        index.update([str(corpus / "cats.md")], chunk_size=40, chunk_overlap=5)
    assert index.config.chunk_size == 1000 and len(index.sources()) == 2


def test_langchains_mmr_search_kwargs_reach_the_search(index):
    retriever = index.as_retriever(search_type="mmr", search_kwargs={"k": 2, "fetch_k": 3, "lambda_mult": 1.0})
    by_relevance = [d.id for d, _ in index.search("goldfish bowls", k=2, search_type="similarity")]
    assert [d.id for d in retriever.invoke("goldfish bowls")] == by_relevance


def test_a_search_setting_the_search_type_does_not_take_is_refused(index):
    with pytest.raises(ValidationError, match="lambda_mult"):
        index.search("cats", search_type="hybrid", lambda_mult=0.3)
    with pytest.raises(ValidationError, match="fetch_k"):
        index.search("cats", search_type="similarity", fetch_k=0)


def test_a_threshold_search_takes_fetch_k(index):
    kept = index.search("goldfish", k=3, search_type="threshold", threshold=0.1, fetch_k=10)
    assert all(score >= 0.1 for _, score in kept)


def test_an_index_that_cannot_be_read_back_after_a_failed_save_refuses_further_use(index, corpus, monkeypatch):
    from rag.index.state import IndexState

    (corpus / "owls.txt").write_text("Owls hunt mice at night.\n")

    def fail(*args, **kwargs):
        raise StorageError(5, "Input/output error")

    monkeypatch.setattr(SegmentFolder, "write_segment", fail)
    monkeypatch.setattr(IndexState, "load", classmethod(lambda cls, *a, **k: fail()))
    with pytest.raises(StorageError, match="Input/output"):
        index.update([str(corpus)])
    with pytest.raises(StorageError, match="could not be read back after a failed update.*Index.open"):
        index.search("owls")


def test_a_hybrid_setting_that_is_not_a_hybrid_config_is_refused_at_creation(tmp_path):
    with pytest.raises(ValidationError, match="hybrid must be a HybridConfig"):
        Index.create(tmp_path / "ix", embeddings="hashing", hybrid={"fetch_k": 5})
