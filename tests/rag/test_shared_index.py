"""A shared index in a database engine (rag index/search/ask --store pgvector|milvus
--store-uri URI): the behaviours both engines share, each against the session's real
server (PostgreSQL + pgvector, Milvus 2.3.5). What only one engine does is in
test_shared_index_postgres.py and test_shared_index_milvus.py."""

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from rag.errors import EmbeddingMismatchError, IndexNotFoundError, ValidationError
from rag.index import Index
from tests.rag.shared_index_support import ROOT, Engine, names, rag

#: Engine name -> (the extra's module, the URI fixture).
ENGINES = {"pgvector": ("psycopg", "postgres_uri"), "milvus": ("pymilvus", "milvus_uri")}


@pytest.fixture(params=list(ENGINES))
def engine(request):
    module, uri_fixture = ENGINES[request.param]
    pytest.importorskip(module)
    return Engine(request.param, request.getfixturevalue(uri_fixture))


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory, monkeypatch):
    """The caches of this test's processes (this one and the CLI's) in its own folder."""
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))  # outside tmp_path, which tests index


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "cats.md").write_text("Cats purr when they are content.\n\nThey sleep most of the day.")
    (folder / "fish.md").write_text("Goldfish swim in ponds and glass bowls.")
    (folder / "owls.md").write_text("Owls hunt at night; their feathers make no sound.")
    return folder


@pytest.fixture
def collection(engine):
    """A fresh index name (valid for both engines), dropped afterwards."""
    name = f"ix_{uuid.uuid4().hex[:10]}"
    yield name
    engine.drop(name)


@pytest.fixture
def index(engine, collection):
    opened = Index.open_or_create(engine.uri, collection=collection, embeddings="hashing")
    yield opened
    opened.close()


def test_a_second_machine_searches_asks_and_reads_the_config_with_only_the_uri(engine, collection, docs):
    indexed = rag("index", str(docs), "--store", engine.store, "--store-uri", engine.uri, "--collection", collection,
                  "--embeddings", "hashing", "--chunk-size", "500", "--chunk-overlap", "50", "--json")
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["added"] == 3
    found = rag("search", "where do goldfish swim", "--store-uri", engine.uri, "--collection", collection, "--json")
    assert found.returncode == 0, found.stderr
    assert Path(json.loads(found.stdout)[0]["source"]).name == "fish.md"
    asked = rag("ask", "Where do goldfish swim?", "--store-uri", engine.uri, "--collection", collection, "--json")
    assert asked.returncode == 0, asked.stderr
    assert "ponds" in json.loads(asked.stdout)["answer"]
    info = rag("info", "--store-uri", engine.uri, "--collection", collection, "--json")
    assert info.returncode == 0, info.stderr
    facts = json.loads(info.stdout)
    assert (facts["embeddings"], facts["chunk_size"], facts["chunk_overlap"], facts["sources"]) == ("hashing", 500, 50, 3)


def test_the_uri_may_come_from_the_environment(engine, collection, docs):
    indexed = rag("index", str(docs / "fish.md"), "--store", engine.store, "--collection", collection,
                  "--embeddings", "hashing", env={"RAG_STORE_URI": engine.uri})
    assert indexed.returncode == 0, indexed.stderr
    assert f"(collection {collection})" in indexed.stdout


def test_search_and_ask_find_the_shared_index_in_the_environment_too(engine, collection, docs):
    indexed = rag("index", str(docs / "fish.md"), "--store", engine.store, "--collection", collection,
                  "--embeddings", "hashing", env={"RAG_STORE_URI": engine.uri})
    assert indexed.returncode == 0, indexed.stderr
    found = rag("search", "where do goldfish swim", "--collection", collection, "--json",
                env={"RAG_STORE_URI": engine.uri})
    assert found.returncode == 0, found.stderr
    assert Path(json.loads(found.stdout)[0]["source"]).name == "fish.md"


def test_an_index_folder_given_wins_over_the_shared_index_in_the_environment(tmp_path):
    result = rag("search", "anything", "--index", str(tmp_path / "none"), env={"RAG_STORE_URI": "http://127.0.0.1:9"})
    assert result.returncode == 1
    assert "no index at" in result.stderr and "Milvus" not in result.stderr


@pytest.mark.parametrize("store, server", [("pgvector", "PostgreSQL"), ("milvus", "Milvus")])
def test_a_shared_store_without_a_uri_is_refused(store, server):
    result = rag("index", "README.md", "--store", store, env={"RAG_STORE_URI": "", "MILVUS_URI": ""})
    assert result.returncode == 1
    assert f"--store {store} keeps the index in {server}: give --store-uri URI" in result.stderr


@pytest.mark.parametrize("uri, server", [("postgresql://ann:hunter2@127.0.0.1:1/kb", "PostgreSQL"),
                                         ("http://ann:hunter2@127.0.0.1:9", "Milvus")])
def test_an_unreachable_uri_is_one_line_without_the_password(uri, server):
    result = rag("search", "anything", "--store-uri", uri)
    assert result.returncode == 1
    assert result.stderr.startswith(f"rag: error: cannot connect to {server} at {uri.replace('hunter2', '***')}")
    assert "hunter2" not in result.stderr and result.stderr.count("\n") == 1


def test_a_uri_of_the_other_engine_is_refused():
    result = rag("index", "README.md", "--store", "milvus", "--store-uri", "postgresql://ann:hunter2@db/kb")
    assert result.returncode == 1
    assert "--store milvus cannot use the URI 'postgresql://ann:***@db/kb': it names a PostgreSQL server" in result.stderr


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
    assert names(index.search("owls hunt", k=4, search_type="bm25")) == []
    assert [d.page_content for d, _ in index.search("goldfish", k=4, search_type="bm25")] == ["Goldfish swim in garden ponds."]


def test_every_search_type_answers_and_bm25_honours_filters(index, docs):
    index.update([str(docs)])
    for search_type in ("hybrid", "similarity", "mmr", "bm25"):
        assert names(index.search("owls hunt at night", k=2, search_type=search_type))[0] == "owls.md", search_type
    relevant = index.search("owls hunt at night", k=3, search_type="threshold", threshold=0.3)
    assert relevant and all(score >= 0.3 for _, score in relevant)
    cats = str(docs / "cats.md")
    assert names(index.search("owls purr", search_type="bm25", filter={"source": cats})) == ["cats.md"]


def test_mmr_scores_are_the_chunks_relevance_as_a_similarity_search_gives_it(index, docs):
    index.update([str(docs)])
    relevance = {d.id: score for d, score in index.search("owls hunt at night", k=3, search_type="similarity")}
    picked = index.search("owls hunt at night", k=3, search_type="mmr", lambda_mult=1.0)
    assert [d.id for d, _ in picked] == list(relevance)  # relevance only: the similarity order
    assert [score for _, score in picked] == pytest.approx(list(relevance.values()), abs=1e-5)
    assert all(0.0 <= score <= 1.0 for _, score in picked)


def test_the_config_and_model_live_in_the_engine(index, engine, collection, docs):
    index.update([str(docs)])
    with pytest.raises(EmbeddingMismatchError, match="built with --embeddings hashing, not local"):
        Index.open(engine.uri, collection=collection, embeddings="local")
    with pytest.raises(ValidationError, match=r"chunk_size/chunk_overlap 500/200 differ from the index's 1000/200"):
        Index.open(engine.uri, collection=collection).update([str(docs / "fish.md")], chunk_size=500)
    reopened = Index.open(engine.uri, collection=collection)
    assert reopened.config == index.config and reopened.config.store == engine.store
    reopened.close()


def test_opening_a_missing_shared_index_says_how_to_create_it(engine):
    with pytest.raises(IndexNotFoundError, match="rag index SOURCE --store-uri URI --collection nothing"):
        Index.open(engine.uri, collection="nothing")


def test_two_rag_index_runs_on_one_shared_index_lose_nothing(engine, collection, tmp_path):
    roots = []
    for name in ("left", "right"):
        folder = tmp_path / name
        folder.mkdir()
        for n in range(15):
            (folder / f"{name}-{n}.md").write_text(f"{name} note {n}: " + " ".join(f"word{n}x{i}" for i in range(40)))
        roots.append(folder)
    runs = [subprocess.Popen([sys.executable, "-m", "rag", "index", str(folder), "--store", engine.store, "--store-uri",
                              engine.uri, "--collection", collection, "--embeddings", "hashing", "--json"],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for folder in roots]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err for _, err in outputs]
    index = Index.open(engine.uri, collection=collection)
    assert index.info().sources == 30 and len(index) == 30
    assert {Path(r).name for r in index.info().roots} == {"left", "right"}
    assert {name.split("-")[0] for name in names(index.search("word7x3", k=2, search_type="bm25"))} == {"left", "right"}
    index.close()


def test_an_answer_follows_a_retrieved_contents_list_to_its_section(engine, collection, tmp_path):
    from tests.rag.test_answer_contents import CABINET_QUESTION, cabinet_pages

    index = Index.create(engine.uri, collection=collection, embeddings="hashing", chunk_size=400, chunk_overlap=0)
    try:
        index.update([str(cabinet_pages(tmp_path / "docs"))])
        assert index.search(CABINET_QUESTION, k=1)[0][0].id.endswith("-00000")  # the contents list
        assert "cabinet-tool --eject widget-7" in index.ask(CABINET_QUESTION, k=1, openings=0).answer
        assert "cabinet-tool" not in index.ask(CABINET_QUESTION, k=1, openings=0, contents=0).answer
    finally:
        index.close()


def test_rag_chat_holds_a_conversation_over_an_index_in_a_database(engine, collection, docs):
    import os

    indexed = rag("index", str(docs), "--store-uri", engine.uri, "--collection", collection, "--embeddings", "hashing")
    assert indexed.returncode == 0, indexed.stderr
    chatted = subprocess.run([sys.executable, "-m", "rag", "chat", "--store-uri", engine.uri, "--collection", collection,
                              "--session", "pond"], input="Where do goldfish swim?\nWhen do owls hunt?\n", cwd=ROOT,
                             capture_output=True, text=True, timeout=300)
    assert chatted.returncode == 0, chatted.stderr
    first, second = chatted.stdout.split("> When do owls hunt?")
    assert "ponds" in first and "night" in second
    kept = list((Path(os.environ["RAG_CACHE_DIR"]) / "chats").glob("*/pond.jsonl"))
    assert len(kept) == 1 and len(kept[0].read_text().splitlines()) == 4  # two questions, two answers


def test_rag_index_dry_run_on_a_database_index_lists_only_what_changed_and_writes_nothing(engine, collection, docs):
    _written_a_minute_ago(docs)
    assert rag("index", str(docs), "--store-uri", engine.uri, "--collection", collection,
               "--embeddings", "hashing").returncode == 0
    (docs / "fish.md").write_text("Goldfish swim in ponds, bowls and garden fountains.")
    (docs / "newt.md").write_text("Newts live near water.")
    planned = rag("index", str(docs), "--store-uri", engine.uri, "--collection", collection, "--dry-run", "--json")
    assert planned.returncode == 0, planned.stderr
    plan = json.loads(planned.stdout)
    assert (plan["files"], plan["unchanged"]) == (2, 2), plan
    info = json.loads(rag("info", "--store-uri", engine.uri, "--collection", collection, "--json").stdout)
    assert info["sources"] == 3


def test_rag_index_embeds_in_worker_processes_for_a_database_index(engine, collection, docs):
    indexed = rag("index", str(docs), "--store-uri", engine.uri, "--collection", collection, "--embeddings", "hashing",
                  "--workers", "2", "--json")
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["added"] == 3
    found = rag("search", "where do goldfish swim", "--store-uri", engine.uri, "--collection", collection, "--json")
    assert Path(json.loads(found.stdout)[0]["source"]).name == "fish.md"


def _written_a_minute_ago(folder):
    """Files last modified well before the update that reads them: the next update may
    trust their stat (a file modified in the second of its read is read again)."""
    import os
    import time

    for path in folder.iterdir():
        os.utime(path, (time.time() - 60, time.time() - 60))


def test_rag_serve_answers_searches_and_questions_from_an_index_in_a_database(engine, collection, docs):
    import re

    import httpx

    pytest.importorskip("uvicorn")
    assert rag("index", str(docs), "--store-uri", engine.uri, "--collection", collection,
               "--embeddings", "hashing").returncode == 0
    server = subprocess.Popen([sys.executable, "-m", "rag", "serve", "--port", "0", "--store-uri", engine.uri,
                               "--collection", collection], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    try:
        url = None
        for line in server.stdout:  # the announcement comes once the socket is bound
            found = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
            if found:
                url = found.group(1)
                break
        assert url is not None, "rag serve did not start"
        found = httpx.post(f"{url}/search", json={"query": "where do goldfish swim", "k": 1}, timeout=60).json()
        assert Path(found["results"][0]["source"]).name == "fish.md"
        asked = httpx.post(f"{url}/ask/invoke", json={"input": {"input": "Where do goldfish swim?"}}, timeout=60)
        assert asked.status_code == 200 and "ponds" in asked.json()["output"]["answer"]
    finally:
        server.terminate()
        server.communicate(timeout=30)


def test_a_commit_changes_the_record_this_process_sees_only_while_its_searches_wait(index, docs, monkeypatch):
    """info() and sources() read the record under the read lock: a commit that changed it
    after releasing the write lock would change a dict they may be iterating."""
    from contextlib import contextmanager

    writing = index._rw.writing
    at_release = []

    @contextmanager
    def exclusive():
        with writing():
            yield
            at_release.append(dict(index.backend.record))

    monkeypatch.setattr(index._rw, "writing", exclusive)
    commit, after_commit = index.backend.commit, []

    def commit_then_look(*args, **kwargs):
        commit(*args, **kwargs)
        after_commit.append(dict(index.backend.record))

    monkeypatch.setattr(index.backend, "commit", commit_then_look)
    index.update([str(docs)])
    assert len(after_commit) == len(at_release) >= 1
    assert after_commit == at_release
