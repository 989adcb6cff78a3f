"""What "fresh" means for an index in a database (issue 35, item 2): every search reads the
database, so a server serves a `rag index` run's changes with no reload. PostgreSQL shows a
commit to every connection at once: the first request after the run finds it (asked once,
not polled). Milvus shows another process's writes within its consistency window (about
200 ms): a request finds them once that has passed (polled, bounded). Against the session's
real servers and a real server on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from rag.index import Index  # noqa: E402
from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.freshness import IndexWatcher  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402

from tests.rag.serve.index_server import CATS, DOGS  # noqa: E402
from tests.rag.shared_index_support import Engine  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
BIRDS = "# Birds\n\nParrots mimic human speech. Penguins cannot fly but swim well.\n"
PATIENCE_SECONDS = 30.0
# engine -> (the session fixture giving its URI, the module its client needs)
ENGINES = {"pgvector": ("postgres_uri", "psycopg"), "milvus": ("milvus_uri", "pymilvus")}


@pytest.fixture(params=sorted(ENGINES))
def shared(request, tmp_path, monkeypatch):
    """``(index opened as rag serve opens it, docs folder, URI, collection, engine)``."""
    fixture, module = ENGINES[request.param]
    pytest.importorskip(module)
    uri = request.getfixturevalue(fixture)
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path / "cache"))  # this process's and its children's
    collection = f"fresh_{uuid.uuid4().hex[:10]}"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cats.md").write_text(CATS)
    (docs / "dogs.md").write_text(DOGS)
    Index.create(uri, collection=collection, embeddings="hashing").update([str(docs)])
    index = Index.open(uri, collection=collection)
    yield index, docs, uri, collection, request.param
    index.close()
    Engine(request.param, uri).drop(collection)


def rag_index(docs: Path, uri: str, collection: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, "-m", "rag", "index", str(docs), "--store-uri", uri, "--collection",
                             collection], capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr


def found(url: str, query: str) -> set[str]:
    reply = httpx.post(f"{url}/search", json={"query": query, "k": 10, "search_type": "bm25"})
    assert reply.status_code == 200, reply.text
    return {Path(hit["source"]).name for hit in reply.json()["results"]}


def served(url: str) -> bool:
    return "birds.md" in found(url, "parrots penguins") and "dogs.md" not in found(url, "dogs bark wolves")


def test_a_commit_by_another_process_is_served_without_a_reload(shared):
    index, docs, uri, collection, engine = shared
    # No watcher at all: what is fresh here owes nothing to a reload.
    with serve_in_thread(index_app(index, refresh_seconds=None)) as url:
        assert "birds.md" not in found(url, "parrots penguins")
        (docs / "birds.md").write_text(BIRDS)
        (docs / "dogs.md").unlink()
        rag_index(docs, uri, collection)
        if engine == "pgvector":
            assert served(url)  # the very next request
        else:
            deadline = time.monotonic() + PATIENCE_SECONDS
            while not served(url):
                assert time.monotonic() < deadline, "Milvus never showed the other process's commit"
                time.sleep(0.05)


def test_the_watcher_leaves_a_database_index_alone(shared):
    index = shared[0]
    watcher = IndexWatcher(index)
    assert watcher.check() is False and watcher.failure is None and watcher.reloads == 0
