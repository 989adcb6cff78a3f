"""A shared index in Milvus (rag index/search/ask --store milvus --store-uri URI), against
the session's real Milvus 2.3.5 server."""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from rag.errors import EmbeddingMismatchError, IndexNotFoundError, ValidationError

pytest.importorskip("pymilvus")
from rag.index.engine_milvus import SIDE_SUFFIX  # noqa: E402
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
def collection(milvus_uri):
    """A fresh index name; both of its collections are dropped afterwards."""
    from pymilvus import connections, utility

    name = f"ix_{uuid.uuid4().hex[:10]}"
    yield name
    alias = f"cleanup-{name}"
    connections.connect(alias=alias, uri=milvus_uri)
    for dropped in (name, name + SIDE_SUFFIX):
        if utility.has_collection(dropped, using=alias):
            utility.drop_collection(dropped, using=alias)
    connections.disconnect(alias)


@pytest.fixture
def index(milvus_uri, collection):
    opened = SharedIndex.open_or_create(milvus_uri, collection=collection, embeddings="hashing")
    yield opened
    opened.close()


def rag(*args, env=None):
    return subprocess.run([sys.executable, "-m", "rag", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def names(found):
    return [Path(document.metadata["source"]).name for document, _ in found]


def test_a_second_machine_searches_asks_and_reads_the_config_with_only_the_uri(milvus_uri, collection, docs):
    indexed = rag("index", str(docs), "--store", "milvus", "--store-uri", milvus_uri, "--collection", collection,
                  "--embeddings", "hashing", "--chunk-size", "500", "--chunk-overlap", "50", "--json")
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["added"] == 3
    found = rag("search", "where do goldfish swim", "--store-uri", milvus_uri, "--collection", collection, "--json")
    assert found.returncode == 0, found.stderr
    assert Path(json.loads(found.stdout)[0]["source"]).name == "fish.md"
    asked = rag("ask", "Where do goldfish swim?", "--store-uri", milvus_uri, "--collection", collection, "--json")
    assert asked.returncode == 0, asked.stderr
    assert "ponds" in json.loads(asked.stdout)["answer"]
    info = rag("info", "--store-uri", milvus_uri, "--collection", collection, "--json")
    assert info.returncode == 0, info.stderr
    facts = json.loads(info.stdout)
    assert (facts["embeddings"], facts["chunk_size"], facts["chunk_overlap"], facts["sources"]) == ("hashing", 500, 50, 3)


def test_the_uri_may_come_from_milvus_uri(milvus_uri, collection, docs):
    indexed = rag("index", str(docs / "fish.md"), "--store", "milvus", "--collection", collection,
                  "--embeddings", "hashing", env={"MILVUS_URI": milvus_uri, "RAG_STORE_URI": ""})
    assert indexed.returncode == 0, indexed.stderr
    assert f"(collection {collection})" in indexed.stdout


def test_store_milvus_without_a_uri_is_refused():
    result = rag("index", "README.md", "--store", "milvus", env={"RAG_STORE_URI": "", "MILVUS_URI": ""})
    assert result.returncode == 1
    assert "--store milvus keeps the index in Milvus: give --store-uri URI" in result.stderr


def test_an_unreachable_uri_is_one_line_without_the_password():
    result = rag("search", "anything", "--store-uri", "http://ann:hunter2@127.0.0.1:9")
    assert result.returncode == 1
    assert result.stderr.startswith("rag: error: cannot connect to Milvus at http://ann:***@127.0.0.1:9")
    assert "hunter2" not in result.stderr and result.stderr.count("\n") == 1


def test_a_collection_name_milvus_cannot_hold_is_refused_by_name(milvus_uri):
    with pytest.raises(ValidationError, match="--collection 'my-docs' cannot name a Milvus collection"):
        SharedIndex.open_or_create(milvus_uri, collection="my-docs")


def test_opening_a_missing_index_says_how_to_create_it(milvus_uri):
    with pytest.raises(IndexNotFoundError, match="rag index SOURCE --store milvus --store-uri URI --collection nothing"):
        SharedIndex.open(milvus_uri, collection="nothing")


def test_the_record_makes_updates_incremental(index, docs):
    assert index.update([str(docs)]).added == 3
    again = index.update([str(docs)])
    assert (again.unchanged, again.chunks) == (3, 0)
    (docs / "fish.md").write_text("Goldfish swim in garden ponds.")
    (docs / "owls.md").unlink()
    changed = index.update([str(docs)])
    assert (changed.updated, changed.deleted, changed.total_chunks) == (1, 1, 2)
    assert index.info().sources == 2
    assert names(index.search("owls hunt", k=4, search_type="bm25")) == []
    assert [d.page_content for d, _ in index.search("goldfish", k=4, search_type="bm25")] == ["Goldfish swim in garden ponds."]


def test_a_source_that_shrank_keeps_no_stale_chunks(index, tmp_path):
    folder = tmp_path / "long"
    folder.mkdir()
    page = folder / "page.md"
    page.write_text("\n\n".join(f"Paragraph {n} about owls and their silent feathers. " * 12 for n in range(6)))
    assert index.update([str(folder)]).chunks > 1
    page.write_text("Owls hunt at night.")
    index.update([str(folder)])
    assert len(index) == 1
    assert [d.page_content for d, _ in index.search("owls", k=10, search_type="bm25")] == ["Owls hunt at night."]


def test_hybrid_search_fuses_a_rare_term_that_dense_search_misses(index, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(25):  # short notes: each close to the query's common word for dense search
        (folder / f"note-{n:02d}.md").write_text(f"kettle note {n}")
    # A long note that holds the rare term once, among many other words: far from the query
    # for dense search, first for BM25 (the rare term's idf).
    (folder / "manual.md").write_text("kettle " + " ".join(f"filler{i}" for i in range(300)) + " descaler7x")
    index.update([str(folder)])
    assert "manual.md" not in names(index.search("kettle descaler7x", k=20, search_type="similarity"))
    assert names(index.search("kettle descaler7x", k=1, search_type="bm25")) == ["manual.md"]
    assert "manual.md" in names(index.search("kettle descaler7x", k=20, search_type="hybrid"))


def test_every_search_type_answers_and_bm25_honours_filters(index, docs):
    index.update([str(docs)])
    for search_type in ("hybrid", "similarity", "mmr", "bm25"):
        assert names(index.search("owls hunt at night", k=2, search_type=search_type))[0] == "owls.md", search_type
    relevant = index.search("owls hunt at night", k=3, search_type="threshold", threshold=0.3)
    assert relevant and all(score >= 0.3 for _, score in relevant)
    cats = str(docs / "cats.md")
    assert names(index.search("owls purr", search_type="bm25", filter={"source": cats})) == ["cats.md"]
    with pytest.raises(ValidationError, match="a raw Milvus expression filters dense searches only"):
        index.search("owls", search_type="bm25", filter='metadata["source"] != ""')


def test_a_search_sees_another_writers_update_through_the_write_stamp(index, milvus_uri, collection, docs):
    fish = (docs / "fish.md").read_text()
    (docs / "fish.md").unlink()
    index.update([str(docs)])
    reader = SharedIndex.open(milvus_uri, collection=collection)
    assert names(reader.search("goldfish", search_type="bm25")) == []  # the reader's BM25 is built now
    (docs / "fish.md").write_text(fish)
    index.update([str(docs)])
    assert names(reader.search("goldfish", search_type="bm25")) == ["fish.md"]
    (docs / "owls.md").unlink()
    index.update([str(docs)])
    assert names(reader.search("owls", search_type="bm25")) == []
    reader.close()


def test_the_config_and_model_live_in_milvus(index, milvus_uri, collection, docs):
    index.update([str(docs)])
    with pytest.raises(EmbeddingMismatchError, match="built with --embeddings hashing, not local"):
        SharedIndex.open(milvus_uri, collection=collection, embeddings="local")
    with pytest.raises(ValidationError, match="chunks by 1000/200"):
        SharedIndex.open_or_create(milvus_uri, collection=collection, chunk_size=500)
    reopened = SharedIndex.open(milvus_uri, collection=collection)
    assert reopened.config == index.config and reopened.config.store == "milvus"
    reopened.close()


def test_two_rag_index_runs_on_one_index_lose_nothing(milvus_uri, collection, tmp_path):
    roots = []
    for name in ("left", "right"):
        folder = tmp_path / name
        folder.mkdir()
        for n in range(15):
            (folder / f"{name}-{n}.md").write_text(f"{name} note {n}: " + " ".join(f"word{n}x{i}" for i in range(40)))
        roots.append(folder)
    runs = [subprocess.Popen([sys.executable, "-m", "rag", "index", str(folder), "--store", "milvus", "--store-uri",
                              milvus_uri, "--collection", collection, "--embeddings", "hashing", "--json"],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for folder in roots]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err for _, err in outputs]
    index = SharedIndex.open(milvus_uri, collection=collection)
    assert index.info().sources == 30 and len(index) == 30
    assert {Path(r).name for r in index.info().roots} == {"left", "right"}
    assert {Path(n).stem.split("-")[0] for n in names(index.search("word7x3", k=2, search_type="bm25"))} == {"left", "right"}
    index.close()
