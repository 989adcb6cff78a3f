"""Where an index is: a folder path or a database URI, told apart once (rag.index.backend),
and what a search asks for, checked once (rag.index.request)."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from rag.errors import IndexNotFoundError, UnsupportedOperationError, ValidationError
from rag.index import Index
from rag.index.backend import parse_target
from rag.index.request import MAX_K, SearchRequest
from rag.search_types import SearchType


@pytest.mark.parametrize("target, kind", [
    ("postgresql://ann@db.internal/kb", "pgvector"),
    ("postgres://ann@/kb?host=/run/postgresql", "pgvector"),
    ("http://milvus.internal:19530", "milvus"),
    ("https://milvus.example.com", "milvus"),
    ("tcp://10.0.0.5:19530", "milvus"),
    ("grpc://10.0.0.5:19530", "milvus"),
    ("my-index", "folder"),
    ("notes:2024", "folder"),
    ("./postgresql:/db", "folder"),
])
def test_a_target_names_its_backend_by_its_scheme(target, kind):
    assert parse_target(target)[0] == kind


def test_a_path_object_is_always_a_folder():
    assert parse_target(Path("postgresql:")) == ("folder", Path("postgresql:"))


def test_an_unknown_scheme_is_refused_naming_it_and_the_schemes_expected(tmp_path):
    with pytest.raises(ValidationError, match=r"scheme 'redis', which names no index backend; expected a folder "
                                              r"path or a URI starting postgresql://"):
        Index.open("redis://localhost:6379/0")


def test_a_uri_missing_its_slashes_is_refused_not_made_a_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValidationError, match="reads as a postgresql:// URI without '//'"):
        Index.open_or_create("postgresql:/db.internal/kb", embeddings="hashing")
    assert list(tmp_path.iterdir()) == []


def test_a_password_in_a_refused_uri_is_not_shown():
    with pytest.raises(ValidationError) as refused:
        Index.open("mysql://ann:hunter2@db/kb")
    assert "hunter2" not in str(refused.value)


def test_a_password_in_a_uri_missing_its_slashes_is_not_shown():
    with pytest.raises(ValidationError, match="without '//'") as refused:
        Index.open("postgresql:/ann:hunter2@db/kb")
    assert "hunter2" not in str(refused.value)


def test_an_empty_target_is_refused():
    with pytest.raises(ValidationError, match="a folder path or a database URI, got ''"):
        Index.open("")


def test_opening_a_missing_folder_says_how_to_create_it(tmp_path):
    with pytest.raises(IndexNotFoundError, match="rag index SOURCE --index"):
        Index.open(tmp_path / "nothing")


@pytest.fixture
def index(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "owls.md").write_text("Owls hunt at night and swallow their prey whole.")
    (tmp_path / "docs" / "cats.md").write_text("Cats purr when they are content.")
    built = Index.create(tmp_path / "ix", embeddings="hashing")
    built.update([str(tmp_path / "docs")])
    return built


def test_save_local_copies_a_folder_index_that_opens_and_answers_alike(index, tmp_path):
    index.save_local(tmp_path / "copy")
    copy = Index.open(tmp_path / "copy")
    assert copy.sources() == index.sources()
    assert [d.id for d, _ in copy.search("owls at night", k=2)] == [d.id for d, _ in index.search("owls at night", k=2)]


def test_save_local_refuses_a_folder_that_holds_files_and_leaves_them(index, tmp_path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "mine.txt").write_text("keep me")
    with pytest.raises(ValidationError, match="needs a new or empty folder"):
        index.save_local(tmp_path / "busy")
    assert [p.name for p in (tmp_path / "busy").iterdir()] == ["mine.txt"]


def test_an_operation_a_backend_lacks_names_the_backend(index):
    index.backend.capabilities = frozenset()  # as a database backend declares it
    with pytest.raises(UnsupportedOperationError, match="save_local: the folder index at .* lives in the database"):
        index.save_local("elsewhere")


def test_a_misspelt_retriever_keyword_is_refused_naming_it_and_the_accepted_ones(index):
    with pytest.raises(ValidationError, match=r"unknown key\(s\) 'lamda_mult'; accepted: fetch_k, filter, k, "
                                              r"lambda_mult"):
        index.as_retriever(search_type="mmr", search_kwargs={"k": 3, "fetch_k": 50, "lamda_mult": 0.2})


def test_a_retriever_takes_the_search_kwargs_of_its_search_type(index):
    retriever = index.as_retriever(search_type="mmr", search_kwargs={"k": 1, "fetch_k": 5, "lambda_mult": 0.9})
    assert [Path(d.metadata["source"]).name for d in retriever.invoke("owls hunt at night")] == ["owls.md"]
    assert (retriever.request.fetch_k, retriever.request.lambda_mult) == (5, 0.9)


@pytest.mark.parametrize("fields, shown", [
    ({"k": 0}, "k must be a positive int, got 0"),
    ({"k": True}, "k must be a positive int, got True"),
    ({"k": MAX_K + 1}, f"k must be at most {MAX_K}"),
    ({"search_type": "fuzzy"}, "search type 'fuzzy' is not one of hybrid, similarity, mmr, threshold, bm25"),
    ({"search_type": "threshold"}, "needs threshold=X"),
    ({"search_type": "threshold", "threshold": -0.1}, "threshold must be a number between 0 and 1, got -0.1"),
    ({"threshold": 0.5}, "threshold applies to search type 'threshold' only, not 'hybrid'"),
    ({"fetch_k": 10}, "fetch_k applies to search types similarity, threshold and mmr, not 'hybrid'"),
    ({"search_type": "mmr", "k": 5, "fetch_k": 3}, "fetch_k (3) must be at least k (5)"),
    ({"search_type": "mmr", "lambda_mult": 1.5}, "lambda_mult must be a number between 0 and 1, got 1.5"),
    ({"search_type": "similarity", "lambda_mult": 0.5}, "lambda_mult applies to search type 'mmr' only"),
])
def test_a_bad_search_request_names_the_value_and_what_was_expected(fields, shown):
    with pytest.raises(ValidationError, match=shown.replace("(", r"\(").replace(")", r"\)")):
        SearchRequest("owls", **fields)


def test_a_query_that_is_not_text_is_refused():
    with pytest.raises(ValidationError, match="query must be a string, got bytes"):
        SearchRequest(b"owls")


def test_a_search_request_takes_numpy_integers_and_langchains_search_type_names():
    request = SearchRequest("owls", k=np.int64(3), search_type="similarity_score_threshold", threshold=0.2)
    assert (request.k, type(request.k), request.search_type) == (3, int, SearchType.SIMILARITY_SCORE_THRESHOLD)


def test_a_search_request_cannot_be_changed_after_it_is_checked():
    request = SearchRequest("owls")
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.k = 0  # type: ignore[misc]


def test_a_request_refused_by_the_index_changes_nothing_stored(index):
    before = index.sources()
    for bad in ({"k": 0}, {"search_type": "threshold", "threshold": -1}):
        with pytest.raises(ValidationError):
            index.search("owls", **bad)
    assert index.sources() == before and Index.open(index.path).sources() == before
