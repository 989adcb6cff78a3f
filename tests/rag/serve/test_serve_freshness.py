"""A running server follows `rag index` runs on its index (issue 35, item 2): new documents
are found and deleted ones stop being served, without a restart; a version that cannot be
read leaves the previous one served (and says why, once); searches keep being answered
while the index changes under them. A real server on 127.0.0.1 and real `rag index` runs.

No test here times anything: each waits (bounded) for an outcome; the delays are measured
by benchmarks/serve_freshness.py."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from rag.index import Index  # noqa: E402
from rag.serve import RemoteRunnable, serve_in_thread  # noqa: E402
from rag.serve.freshness import IndexWatcher  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402

from tests.rag.serve.index_server import build_index  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
BIRDS = "# Birds\n\nParrots mimic human speech. Penguins cannot fly but swim well.\n"
# Long enough for any reload on this machine; a test fails only if the outcome never comes.
PATIENCE_SECONDS = 60.0


def rag_index(docs: Path, index: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, "-m", "rag", "index", str(docs), "--index", str(index)],
                            capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr


def sources_found(url: str, query: str) -> set[str]:
    reply = httpx.post(f"{url}/search", json={"query": query, "k": 10, "search_type": "bm25"})
    assert reply.status_code == 200, reply.text
    return {Path(hit["source"]).name for hit in reply.json()["results"]}


def opened(folder: Path) -> Index:
    """A small real index, opened as rag serve opens one (read whole into memory)."""
    build_index(folder)
    return Index.open(folder / "index")


def eventually(condition, what: str) -> None:
    deadline = time.monotonic() + PATIENCE_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


@pytest.fixture
def served(tmp_path):
    index = opened(tmp_path)
    with serve_in_thread(index_app(index, refresh_seconds=0.1)) as url:
        yield url, tmp_path / "docs", tmp_path / "index"


def test_a_document_indexed_by_rag_index_is_found_without_a_restart(served):
    url, docs, index = served
    assert "birds.md" not in sources_found(url, "parrots penguins")
    (docs / "birds.md").write_text(BIRDS)
    rag_index(docs, index)
    eventually(lambda: "birds.md" in sources_found(url, "parrots penguins"), "birds.md served")


def test_a_document_deleted_by_rag_index_stops_being_served(served):
    url, docs, index = served
    assert "dogs.md" in sources_found(url, "dogs bark wolves")
    (docs / "dogs.md").unlink()
    rag_index(docs, index)
    eventually(lambda: "dogs.md" not in sources_found(url, "dogs bark wolves"), "dogs.md gone")


def test_the_ask_chain_and_the_openai_api_answer_from_the_new_version_too(served):
    url, docs, index = served
    (docs / "birds.md").write_text(BIRDS)
    rag_index(docs, index)
    eventually(lambda: "birds.md" in sources_found(url, "parrots"), "birds.md served")
    asked = RemoteRunnable(f"{url}/ask").invoke({"input": "Can penguins fly?"})
    assert any(doc.metadata["source"].endswith("birds.md") for doc in asked["context"])
    chat = httpx.post(f"{url}/v1/chat/completions", json={"messages": [{"role": "user", "content": "Can penguins fly?"}]})
    assert any(source["source"].endswith("birds.md") for source in chat.json()["sources"])


def test_a_version_that_cannot_be_read_leaves_the_previous_one_served_and_is_logged_once(tmp_path, caplog):
    index = opened(tmp_path)
    watcher = IndexWatcher(index, interval=0.1)
    (tmp_path / "docs" / "birds.md").write_text(BIRDS)
    Index.open(tmp_path / "index").update([str(tmp_path / "docs")])  # another writer commits a new version
    segments = sorted((tmp_path / "index" / "segments").iterdir(), key=lambda p: p.stat().st_mtime_ns)
    for part in segments[-1].iterdir():  # ... whose newest segment is then damaged
        part.write_bytes(b"\0" * 16)
    with caplog.at_level(logging.WARNING, logger="rag.serve"):
        assert [watcher.check() for _ in range(3)] == [False, False, False]
    assert watcher.failure is not None and len(caplog.records) == 1
    assert "still serving the version read before" in caplog.records[0].getMessage()
    assert {Path(doc.metadata["source"]).name for doc, _ in index.search("cats dogs", k=10)} == {"cats.md", "dogs.md"}


def test_a_repaired_index_is_taken_again_after_a_failure(tmp_path, caplog):
    index = opened(tmp_path)
    watcher = IndexWatcher(index, interval=0.1)
    manifest = tmp_path / "index" / "manifest.json"
    good = manifest.read_bytes()
    (tmp_path / "docs" / "birds.md").write_text(BIRDS)
    Index.open(tmp_path / "index").update([str(tmp_path / "docs")])
    newer = manifest.read_bytes()
    manifest.write_bytes(good)  # back to the first version: nothing new to read
    assert watcher.check() is False
    manifest.write_bytes(newer)
    assert watcher.check() is True and watcher.reloads == 1 and watcher.failure is None
    assert "birds.md" in {Path(doc.metadata["source"]).name for doc, _ in index.search("parrots", k=10)}


def test_searches_during_updates_are_all_answered_from_one_version_or_the_next(tmp_path):
    index = opened(tmp_path)
    docs = tmp_path / "docs"
    errors: list[str] = []
    seen: list[frozenset[str]] = []
    stop = threading.Event()

    def client(url: str) -> None:
        with httpx.Client(timeout=60) as http:
            while not stop.is_set():
                reply = http.post(f"{url}/search", json={"query": "cats dogs birds fish", "k": 10,
                                                         "search_type": "bm25"})
                if reply.status_code != 200:
                    errors.append(f"{reply.status_code}: {reply.text[:200]}")
                else:
                    seen.append(frozenset(Path(hit["source"]).name for hit in reply.json()["results"]))

    with serve_in_thread(index_app(index, refresh_seconds=0.1)) as url:
        threads = [threading.Thread(target=client, args=(url,)) for _ in range(8)]
        for thread in threads:
            thread.start()
        try:
            for number in range(4):  # each version holds cats, dogs and the fish files so far
                (docs / f"fish{number}.md").write_text(f"# Fish {number}\n\nFish number {number} swims.\n")
                rag_index(docs, tmp_path / "index")
            eventually(lambda: seen and "fish3.md" in seen[-1], "the last version served")
        finally:
            stop.set()
            for thread in threads:
                thread.join()
    assert errors == []
    versions = [{"cats.md", "dogs.md", *(f"fish{n}.md" for n in range(count))} for count in range(5)]
    assert all(found in versions for found in seen)  # never a mix, never a half-read version


def test_refresh_can_be_turned_off(tmp_path):
    app = index_app(opened(tmp_path), refresh_seconds=None)
    assert app.state.watcher is None


def test_the_watcher_stops_with_the_server(tmp_path):
    app = index_app(opened(tmp_path), refresh_seconds=0.1)
    with serve_in_thread(app) as url:
        httpx.get(f"{url}/v1/models")
        assert app.state.watcher.running
    assert not app.state.watcher.running


def test_a_damaged_manifest_leaves_the_previous_version_served_and_is_logged_once(tmp_path, caplog):
    index = opened(tmp_path)
    watcher = IndexWatcher(index, interval=0.1)
    manifest = tmp_path / "index" / "manifest.json"
    good = manifest.read_bytes()
    manifest.write_bytes(good[: len(good) // 2])  # cut short, as a bad disk or a hand edit leaves it
    with caplog.at_level(logging.WARNING, logger="rag.serve"):
        assert [watcher.check() for _ in range(3)] == [False, False, False]
        assert len(caplog.records) == 1 and "manifest.json" in caplog.records[0].getMessage()
        assert {Path(doc.metadata["source"]).name for doc, _ in index.search("cats dogs", k=10)} == {"cats.md",
                                                                                                   "dogs.md"}
        manifest.write_bytes(good)
        assert watcher.check() is False and watcher.failure is None
        assert "reads again" in caplog.records[-1].getMessage()


def test_searches_are_answered_from_the_old_version_while_the_new_one_is_read(tmp_path, monkeypatch):
    from rag.index.state import IndexState

    index = opened(tmp_path)
    (tmp_path / "docs" / "birds.md").write_text(BIRDS)
    Index.open(tmp_path / "index").update([str(tmp_path / "docs")])  # another writer commits
    reading, release = threading.Event(), threading.Event()
    load = IndexState.load.__func__

    def held_load(cls, *args, **kwargs):  # the watcher's read of the new version, held open by the test
        reading.set()
        release.wait(PATIENCE_SECONDS)
        return load(cls, *args, **kwargs)

    monkeypatch.setattr(IndexState, "load", classmethod(held_load))
    with serve_in_thread(index_app(index, refresh_seconds=0.1)) as url:
        try:
            assert reading.wait(PATIENCE_SECONDS)
            assert sources_found(url, "cats dogs parrots") == {"cats.md", "dogs.md"}  # answered, not queued
        finally:
            release.set()
        eventually(lambda: "birds.md" in sources_found(url, "parrots"), "birds.md served once read")


def test_the_watcher_starts_with_the_first_request_when_the_server_sends_no_lifespan_events(tmp_path):
    import uvicorn

    from rag.serve.background import _config

    app = index_app(opened(tmp_path), refresh_seconds=0.1)
    config = _config(app, "127.0.0.1", 0, "warning", 10.0)
    config.lifespan = "off"
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        eventually(lambda: server.started, "the server started")
        port = server.servers[0].sockets[0].getsockname()[1]
        assert not app.state.watcher.running
        httpx.get(f"http://127.0.0.1:{port}/v1/models")
        assert app.state.watcher.running
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        app.state.watcher.stop()
