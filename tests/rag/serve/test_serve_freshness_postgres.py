"""What "fresh" means for an index in PostgreSQL (issue 35, item 2): every search reads the
database, so a server serves a `rag index` run's changes from its first request after
that run's commit, with no reload and no wait (the test asks once, it does not poll).
Against the session's real PostgreSQL + pgvector server and a real server on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

pytest.importorskip("psycopg")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from rag.index import Index  # noqa: E402
from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402

from tests.rag.serve.index_server import CATS, DOGS  # noqa: E402
from tests.rag.shared_index_support import Engine  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
BIRDS = "# Birds\n\nParrots mimic human speech. Penguins cannot fly but swim well.\n"


@pytest.fixture
def shared(postgres_uri, tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path / "cache"))
    collection = f"fresh_{uuid.uuid4().hex[:10]}"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cats.md").write_text(CATS)
    (docs / "dogs.md").write_text(DOGS)
    Index.create(postgres_uri, collection=collection, embeddings="hashing").update([str(docs)])
    index = Index.open(postgres_uri, collection=collection)
    yield index, docs, collection
    index.close()
    Engine("pgvector", postgres_uri).drop(collection)


def rag_index(docs: Path, uri: str, collection: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, "-m", "rag", "index", str(docs), "--store-uri", uri, "--collection",
                             collection], capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr


def found(url: str, query: str) -> set[str]:
    reply = httpx.post(f"{url}/search", json={"query": query, "k": 10, "search_type": "bm25"})
    assert reply.status_code == 200, reply.text
    return {Path(hit["source"]).name for hit in reply.json()["results"]}


def test_a_commit_by_another_process_is_served_by_the_next_request(shared, postgres_uri):
    index, docs, collection = shared
    # No watcher at all: what is fresh here owes nothing to a reload.
    with serve_in_thread(index_app(index, refresh_seconds=None)) as url:
        assert "birds.md" not in found(url, "parrots penguins")
        (docs / "birds.md").write_text(BIRDS)
        (docs / "dogs.md").unlink()
        rag_index(docs, postgres_uri, collection)
        assert "birds.md" in found(url, "parrots penguins")
        assert "dogs.md" not in found(url, "dogs bark wolves")


def test_the_watcher_leaves_a_database_index_alone(shared):
    index, _, _ = shared
    from rag.serve.freshness import IndexWatcher

    watcher = IndexWatcher(index)
    assert watcher.check() is False and watcher.failure is None and watcher.reloads == 0
