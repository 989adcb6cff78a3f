"""A shared index in PostgreSQL (rag index/search/ask --store pgvector --store-uri URI),
against the session's real PostgreSQL + pgvector server."""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from rag.errors import EmbeddingMismatchError, IndexNotFoundError, ValidationError

pytest.importorskip("psycopg")
from rag.index.shared import SharedIndex  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "cats.md").write_text("Cats purr when they are content.\n\nThey sleep most of the day.")
    (folder / "fish.md").write_text("Goldfish swim in ponds and glass bowls.")
    (folder / "owls.md").write_text("Owls hunt at night; their feathers make no sound.")
    return folder


@pytest.fixture
def collection():
    return f"index-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def index(postgres_uri, collection):
    opened = SharedIndex.open_or_create(postgres_uri, collection=collection, embeddings="hashing")
    yield opened
    opened.store.delete_collection()
    opened.close()


def rag(*args, env=None):
    return subprocess.run([sys.executable, "-m", "rag", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def test_a_second_machine_searches_and_asks_with_only_the_uri(postgres_uri, collection, docs):
    indexed = rag("index", str(docs), "--store", "pgvector", "--store-uri", postgres_uri, "--collection", collection,
                  "--embeddings", "hashing", "--json")
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["added"] == 3
    found = rag("search", "where do goldfish swim", "--store-uri", postgres_uri, "--collection", collection, "--json")
    assert found.returncode == 0, found.stderr
    assert Path(json.loads(found.stdout)[0]["source"]).name == "fish.md"
    asked = rag("ask", "Where do goldfish swim?", "--store-uri", postgres_uri, "--collection", collection, "--json")
    assert asked.returncode == 0, asked.stderr
    assert "ponds" in json.loads(asked.stdout)["answer"]
    SharedIndex.open(postgres_uri, collection=collection).store.delete_collection()


def test_the_uri_may_come_from_the_environment(postgres_uri, collection, docs):
    indexed = rag("index", str(docs), "--store", "pgvector", "--collection", collection, "--embeddings", "hashing",
                  env={"RAG_STORE_URI": postgres_uri})
    assert indexed.returncode == 0, indexed.stderr
    SharedIndex.open(postgres_uri, collection=collection).store.delete_collection()


def test_store_pgvector_without_a_uri_is_refused():
    result = rag("index", "README.md", "--store", "pgvector", env={"RAG_STORE_URI": ""})
    assert result.returncode == 1
    assert "--store pgvector keeps the index in PostgreSQL: give --store-uri URI" in result.stderr


def test_an_unreachable_uri_is_one_line_without_the_password():
    result = rag("search", "anything", "--store-uri", "postgresql://ann:hunter2@127.0.0.1:1/kb")
    assert result.returncode == 1
    assert result.stderr.startswith("rag: error: cannot connect to PostgreSQL at postgresql://ann:***@127.0.0.1:1/kb")
    assert "hunter2" not in result.stderr and result.stderr.count("\n") == 1


def test_the_record_makes_updates_incremental(index, docs):
    assert index.update([str(docs)]).added == 3
    again = index.update([str(docs)])
    assert (again.unchanged, again.chunks) == (3, 0)
    (docs / "fish.md").write_text("Goldfish swim in garden ponds.")
    (docs / "owls.md").unlink()
    changed = index.update([str(docs)])
    assert (changed.updated, changed.deleted, changed.total_chunks) == (1, 1, 2)
    assert {Path(s).name for s in index.info().to_json()["roots"]} == {"docs"}
    assert index.info().sources == 2


def test_every_search_type_answers(index, docs):
    index.update([str(docs)])
    for search_type in ("hybrid", "similarity", "mmr", "bm25"):
        found = index.search("owls hunt at night", k=2, search_type=search_type)
        assert Path(found[0][0].metadata["source"]).name == "owls.md", search_type
    relevant = index.search("owls hunt at night", k=3, search_type="threshold", threshold=0.3)
    assert relevant and all(score >= 0.3 for _, score in relevant)


def test_full_text_search_finds_stemmed_words_and_honours_filters(index, docs):
    index.update([str(docs)])
    found = index.search("hunting owl", search_type="bm25")
    assert [Path(d.metadata["source"]).name for d, _ in found] == ["owls.md"]
    cats = str(docs / "cats.md")
    assert index.search("owls purr", search_type="bm25", filter={"source": cats})[0][0].metadata["source"] == cats


def test_the_config_and_model_live_in_the_database(index, postgres_uri, collection, docs):
    index.update([str(docs)])
    with pytest.raises(EmbeddingMismatchError, match="built with --embeddings hashing, not local"):
        SharedIndex.open(postgres_uri, collection=collection, embeddings="local")
    with pytest.raises(ValidationError, match="chunks by 1000/200"):
        SharedIndex.open_or_create(postgres_uri, collection=collection, chunk_size=500)
    reopened = SharedIndex.open(postgres_uri, collection=collection)
    assert reopened.config == index.config
    reopened.close()


def test_opening_a_missing_shared_index_says_how_to_create_it(postgres_uri):
    with pytest.raises(IndexNotFoundError, match="rag index SOURCE --store pgvector --store-uri URI --collection nothing"):
        SharedIndex.open(postgres_uri, collection="nothing")


def test_a_folder_index_cannot_use_the_pgvector_store(tmp_path):
    from rag.index import Index

    with pytest.raises(ValidationError, match="keeps the whole index in a database: open it by URI"):
        Index.create(tmp_path / "ix", embeddings="hashing", store="pgvector")


def test_two_rag_index_runs_on_one_shared_index_lose_nothing(postgres_uri, collection, tmp_path):
    roots = []
    for name in ("left", "right"):
        folder = tmp_path / name
        folder.mkdir()
        for n in range(15):
            (folder / f"{name}-{n}.md").write_text(f"{name} note {n}: " + " ".join(f"word{n}x{i}" for i in range(40)))
        roots.append(folder)
    runs = [subprocess.Popen([sys.executable, "-m", "rag", "index", str(folder), "--store", "pgvector", "--store-uri",
                              postgres_uri, "--collection", collection, "--embeddings", "hashing", "--json"],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for folder in roots]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err for _, err in outputs]
    index = SharedIndex.open(postgres_uri, collection=collection)
    assert index.info().sources == 30 and len(index) == 30
    assert {Path(r).name for r in index.info().roots} == {"left", "right"}
    assert Path(index.search("word7x3", k=1, search_type="bm25")[0][0].metadata["source"]).name in ("left-7.md", "right-7.md")
    index.store.delete_collection()
    index.close()


def test_an_update_cut_short_after_a_source_shrank_leaves_no_orphan_chunks(index, tmp_path, monkeypatch):
    folder = tmp_path / "long"
    folder.mkdir()
    page = folder / "page.md"
    page.write_text("\n\n".join(f"Paragraph {n} about owls and their silent feathers. " * 12 for n in range(6)))
    index.update([str(folder)])
    page.write_text("Owls hunt at night.")

    def lost_connection(ids):
        raise ConnectionError("connection lost while deleting the old chunks")

    with monkeypatch.context() as patched:
        patched.setattr(index.store, "delete", lost_connection)
        with pytest.raises(ConnectionError):
            index.update([str(folder)])
    index.update([str(folder)])  # the next run finishes what the cut-short one began
    assert [doc.page_content for doc, _ in index.search("owls", k=10, search_type="similarity")] == [
        "Owls hunt at night."]
