"""What only a shared index in Milvus does (see test_shared_index.py for what both engines
do), against the session's real Milvus 2.3.5 server."""

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from rag.errors import ValidationError

pytest.importorskip("pymilvus")
from rag.index import Index  # noqa: E402
from tests.rag.shared_index_support import ROOT, Engine, names, rag  # noqa: E402


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory, monkeypatch):
    """The BM25 cache of this test's processes (this one and the CLI's) in its own folder."""
    folder = tmp_path_factory.mktemp("cache")  # outside tmp_path, which tests index
    monkeypatch.setenv("RAG_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def collection(milvus_uri):
    name = f"ix_{uuid.uuid4().hex[:10]}"
    yield name
    Engine("milvus", milvus_uri).drop(name)


@pytest.fixture
def index(milvus_uri, collection):
    opened = Index.open_or_create(milvus_uri, collection=collection, embeddings="hashing")
    yield opened
    opened.close()


def test_the_uri_may_come_from_milvus_uri(milvus_uri, collection, tmp_path):
    (tmp_path / "fish.md").write_text("Goldfish swim in ponds.")
    indexed = rag("index", str(tmp_path / "fish.md"), "--store", "milvus", "--collection", collection,
                  "--embeddings", "hashing", env={"MILVUS_URI": milvus_uri, "RAG_STORE_URI": ""})
    assert indexed.returncode == 0, indexed.stderr
    assert f"(collection {collection})" in indexed.stdout


def test_a_collection_name_milvus_cannot_hold_is_refused_by_name(milvus_uri):
    with pytest.raises(ValidationError, match="--collection 'my-docs' cannot name a Milvus collection"):
        Index.open_or_create(milvus_uri, collection="my-docs")


def test_a_server_that_refuses_the_connection_is_one_line_of_error(milvus_uri):
    result = rag("search", "anything", "--store-uri", f"{milvus_uri}/no_such_db")  # the URI's path names a database
    assert result.returncode == 1
    assert result.stderr == f"rag: error: cannot connect to Milvus at {milvus_uri}/no_such_db: database not found" \
                            "[database=no_such_db]\n"


def test_an_https_uri_of_a_plain_server_is_one_line_of_error(milvus_uri):
    secure = milvus_uri.replace("http://", "https://")  # gRPC's core logs each failed TLS handshake
    result = rag("search", "anything", "--store-uri", secure)
    assert result.returncode == 1
    assert result.stderr == f"rag: error: cannot connect to Milvus at {secure}: no Milvus server answered within 5 s\n"


def test_hybrid_search_fuses_a_rare_term_that_dense_search_misses(index, tmp_path):
    for n in range(25):  # short notes: each close to the query's common word for dense search
        (tmp_path / f"note-{n:02d}.md").write_text(f"kettle note {n}")
    # A long note holding the rare term once among many other words: far from the query for
    # dense search, first for BM25 (the rare term's idf).
    (tmp_path / "manual.md").write_text("kettle " + " ".join(f"filler{i}" for i in range(300)) + " descaler7x")
    index.update([str(tmp_path)])
    assert "manual.md" not in names(index.search("kettle descaler7x", k=20, search_type="similarity"))
    assert names(index.search("kettle descaler7x", k=1, search_type="bm25")) == ["manual.md"]
    assert "manual.md" in names(index.search("kettle descaler7x", k=20, search_type="hybrid"))


def test_a_search_sees_another_writers_update_through_the_write_stamp(index, milvus_uri, collection, tmp_path):
    (tmp_path / "owls.md").write_text("Owls hunt at night.")
    index.update([str(tmp_path)])
    reader = Index.open(milvus_uri, collection=collection)
    assert names(reader.search("goldfish", search_type="bm25")) == []  # the reader's BM25 is built now
    (tmp_path / "fish.md").write_text("Goldfish swim in ponds.")
    index.update([str(tmp_path)])
    assert names(reader.search("goldfish", search_type="bm25")) == ["fish.md"]
    (tmp_path / "owls.md").unlink()
    index.update([str(tmp_path)])
    assert names(reader.search("owls", search_type="bm25")) == []
    reader.close()


def test_a_raw_milvus_expression_filters_dense_search_only(index, tmp_path):
    (tmp_path / "owls.md").write_text("Owls hunt at night.")
    index.update([str(tmp_path)])
    assert names(index.search("owls", search_type="similarity", filter='metadata["source"] != ""')) == ["owls.md"]
    with pytest.raises(ValidationError, match="a raw Milvus expression filters dense searches only"):
        index.search("owls", search_type="bm25", filter='metadata["source"] != ""')


def test_chunks_a_concurrent_run_left_beyond_the_record_go_with_the_sources_next_change(index, tmp_path):
    from rag.index.chunk_ids import chunk_ids

    page = tmp_path / "page.md"
    page.write_text("Owls hunt at night.")
    index.update([str(tmp_path)])
    # What a concurrent run that read a longer version of the page, and lost the race for
    # the record, leaves behind: chunks 1 and 2 of the page, named by no record.
    index.backend.store.add_texts(["Owls nest in barns.", "Owls swallow prey whole."], [{"source": str(page)}] * 2,
                          ids=chunk_ids(str(page), 3)[1:])
    page.write_text("Owls hunt at dusk.")
    index.update([str(tmp_path)])
    assert [d.page_content for d, _ in index.search("owls", k=10, search_type="similarity")] == ["Owls hunt at dusk."]


def scanning_forbidden(index, monkeypatch):
    def scan(*args, **kwargs):
        raise AssertionError("read the chunk texts from Milvus")

    monkeypatch.setattr(index.backend.store, "scan", scan)


def test_a_new_process_reads_bm25_from_the_local_cache_while_the_stamp_is_unchanged(index, milvus_uri, collection,
                                                                                   tmp_path, monkeypatch):
    (tmp_path / "owls.md").write_text("Owls hunt at night.")
    (tmp_path / "fish.md").write_text("Goldfish swim in ponds.")
    index.update([str(tmp_path)])
    first = Index.open(milvus_uri, collection=collection)
    built = names(first.search("goldfish owls", search_type="bm25"))
    first.close()
    second = Index.open(milvus_uri, collection=collection)
    scanning_forbidden(second, monkeypatch)
    assert names(second.search("goldfish owls", search_type="bm25")) == built
    assert sorted(built) == ["fish.md", "owls.md"]
    second.close()


def test_the_cache_of_an_older_stamp_is_not_used(index, milvus_uri, collection, tmp_path):
    (tmp_path / "owls.md").write_text("Owls hunt at night.")
    index.update([str(tmp_path)])
    first = Index.open(milvus_uri, collection=collection)
    assert names(first.search("goldfish", search_type="bm25")) == []
    first.close()
    (tmp_path / "fish.md").write_text("Goldfish swim in ponds.")
    index.update([str(tmp_path)])
    second = Index.open(milvus_uri, collection=collection)
    assert names(second.search("goldfish", search_type="bm25")) == ["fish.md"]
    second.close()


def test_a_damaged_cache_is_rebuilt_from_milvus(index, milvus_uri, collection, tmp_path, own_cache):
    (tmp_path / "owls.md").write_text("Owls hunt at night.")
    index.update([str(tmp_path)])
    first = Index.open(milvus_uri, collection=collection)
    first.search("owls", search_type="bm25")
    first.close()
    [kept] = own_cache.glob("milvus-bm25/*/tf.npy")
    kept.write_bytes(b"not an array")
    second = Index.open(milvus_uri, collection=collection)
    assert names(second.search("owls", search_type="bm25")) == ["owls.md"]
    second.close()


def test_a_side_collection_another_process_made_but_has_not_indexed_yet_is_indexed_and_used(milvus_uri, collection,
                                                                                          tmp_path):
    from pymilvus import Collection, CollectionSchema, DataType, FieldSchema, connections

    from rag.index.engine_milvus import SIDE_SUFFIX

    # What a concurrent `rag index` leaves between creating the side collection and its index.
    connections.connect(alias="half-made", uri=milvus_uri)
    Collection(collection + SIDE_SUFFIX, CollectionSchema([
        FieldSchema("key", DataType.VARCHAR, is_primary=True, max_length=64),
        FieldSchema("kind", DataType.VARCHAR, max_length=16),
        FieldSchema("body", DataType.JSON),
        FieldSchema("vector", DataType.FLOAT_VECTOR, dim=2)]), using="half-made")
    connections.disconnect("half-made")
    (tmp_path / "owls.md").write_text("Owls hunt at night.")
    index = Index.open_or_create(milvus_uri, collection=collection, embeddings="hashing")
    assert index.update([str(tmp_path)]).added == 1
    assert names(index.search("owls", search_type="bm25")) == ["owls.md"]
    index.close()


def test_a_writer_that_dies_between_its_chunks_and_its_stamp_leaves_no_cached_bm25_without_them(
        index, milvus_uri, collection, tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "owls.md").write_text("Owls hunt at night.")
    index.update([str(tmp_path / "old")])
    first = Index.open(milvus_uri, collection=collection)
    assert names(first.search("goldfish owls", search_type="bm25")) == ["owls.md"]  # cached at this stamp
    first.close()
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "fish.md").write_text("Goldfish swim in ponds.")
    killed = subprocess.run([sys.executable, "-c", (  # dies after writing the chunks, before the stamp and record
        "import os, sys\nfrom rag.index import Index\n"
        "index = Index.open(sys.argv[1], collection=sys.argv[2])\n"
        "index.backend.engine._flush = lambda: os._exit(9)\nindex.update([sys.argv[3]])\n"),
        milvus_uri, collection, str(tmp_path / "new")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert killed.returncode == 9, killed.stderr
    later = Index.open(milvus_uri, collection=collection)
    later.backend.engine._row("stamp", "Strong")  # past the time tick in which another process's stamp may not show yet
    assert sorted(names(later.search("goldfish owls", search_type="bm25"))) == ["fish.md", "owls.md"]
    later.close()


def test_the_process_that_created_the_index_marks_its_later_updates_stamps_too(milvus_uri, collection, tmp_path):
    for name, text in (("old", "Owls hunt at night."), ("new", "Goldfish swim in ponds.")):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.md").write_text(text)
    writer = subprocess.Popen([sys.executable, "-c", (  # creates the index, then dies in its second update
        "import os, sys\nfrom rag.index import Index\n"
        "index = Index.open_or_create(sys.argv[1], collection=sys.argv[2], embeddings='hashing')\n"
        "index.update([sys.argv[3]])\nprint('ready', flush=True)\nsys.stdin.readline()\n"
        "index.backend.engine._flush = lambda: os._exit(9)\nindex.update([sys.argv[4]])\n"),
        milvus_uri, collection, str(tmp_path / "old"), str(tmp_path / "new")], cwd=ROOT, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert writer.stdout.readline() == "ready\n", writer.stderr.read()
    from rag.index.engine_milvus import MilvusEngine

    settled = MilvusEngine(milvus_uri, collection=collection)
    settled._row("config", "Strong")  # past the time tick in which another process's writes may not show yet
    settled.close()
    reader = Index.open(milvus_uri, collection=collection)
    assert names(reader.search("goldfish owls", search_type="bm25")) == ["old.md"]  # cached at this stamp
    reader.close()
    writer.communicate("go\n", timeout=120)
    assert writer.returncode == 9
    later = Index.open(milvus_uri, collection=collection)
    later.backend.engine._row("stamp", "Strong")
    assert sorted(names(later.search("goldfish owls", search_type="bm25"))) == ["new.md", "old.md"]
    later.close()
