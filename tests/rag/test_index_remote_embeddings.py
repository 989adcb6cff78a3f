"""An index folder from someone else: a manifest naming an embeddings server (openai:MODEL)
never makes rag send a query or a document there unless the person running rag named it.
A real HTTP server on 127.0.0.1 stands in for the API and counts what reaches it."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from rag.cli import app
from rag.errors import EmbeddingsNotAllowedError
from rag.index import Index
from rag.index.manifest import with_checksum
from rag.index.remote import allowed_by_environment

SPEC = "openai:someone-elses-model"


class _FakeEmbeddingsAPI:
    """An OpenAI-compatible /v1/embeddings answering vectors of ``dimension``; ``requests``
    counts every request of any kind that reached it."""

    def __init__(self, dimension: int) -> None:
        api = self
        self.requests: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 -- http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                api.requests.append(self.path)
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                payload = json.dumps({"object": "list", "model": body["model"], "usage": {},
                                      "data": [{"object": "embedding", "index": n, "embedding": [1.0] * dimension}
                                               for n in range(len(texts))]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:  # noqa: N802
                api.requests.append(self.path)
                self.send_error(404)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)


@pytest.fixture
def foreign_index(tmp_path: Path, corpus: Path) -> Path:
    """An index folder whose manifest (checksum and all) says it was built with SPEC."""
    Index.create(tmp_path / "ix", embeddings="hashing").update([str(corpus)])
    manifest = tmp_path / "ix" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["config"]["embedding_spec"] = SPEC
    data["embedding"]["model_id"] = "openai/someone-elses-model"
    manifest.write_text(json.dumps(with_checksum(data)))
    return tmp_path / "ix"


@pytest.fixture
def api(foreign_index: Path, monkeypatch) -> Iterator[_FakeEmbeddingsAPI]:
    dimension = json.loads((foreign_index / "manifest.json").read_text())["embedding"]["dimension"]
    server = _FakeEmbeddingsAPI(dimension)
    server.thread.start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-own-key")
    monkeypatch.delenv("RAG_ALLOW_EMBEDDINGS", raising=False)
    monkeypatch.setattr(app, "apply_process_defaults", lambda: None)
    yield server
    server.server.shutdown()
    server.server.server_close()


def test_rag_search_on_a_foreign_index_sends_nothing_and_says_how_to_allow_it(foreign_index, api, capsys):
    assert app.main(["search", "cats", "--index", str(foreign_index)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rag: error: ") and err.count("\n") == 1
    assert SPEC in err and api.url in err and f"--embeddings {SPEC}" in err and "RAG_ALLOW_EMBEDDINGS" in err
    assert api.requests == []


def test_the_refusal_names_the_server_without_the_password_in_its_url(foreign_index, api, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_BASE_URL", api.url.replace("http://", "http://ann:hunter2@"))
    assert app.main(["search", "cats", "--index", str(foreign_index)]) == 1
    err = capsys.readouterr().err
    assert "hunter2" not in err and "ann:***@" in err
    assert api.requests == []


def test_updating_a_foreign_index_sends_no_document_and_writes_nothing(foreign_index, api, corpus, capsys):
    before = (foreign_index / "manifest.json").read_bytes()
    (corpus / "secret.md").write_text("A document that must not leave this machine.")
    assert app.main(["index", str(corpus), "--index", str(foreign_index)]) == 1
    assert "RAG_ALLOW_EMBEDDINGS" in capsys.readouterr().err
    assert api.requests == [] and (foreign_index / "manifest.json").read_bytes() == before


def test_what_embeds_nothing_still_works_on_a_foreign_index(foreign_index, api, capsys):
    assert app.main(["search", "cats", "--type", "bm25", "--index", str(foreign_index)]) == 0
    assert app.main(["info", "--index", str(foreign_index)]) == 0
    assert SPEC in capsys.readouterr().out
    assert api.requests == []


def test_the_library_refuses_too_with_its_own_error(foreign_index, api):
    with pytest.raises(EmbeddingsNotAllowedError, match="nothing was sent"):
        Index.open(foreign_index).search("cats")
    assert api.requests == []


def test_naming_the_server_on_the_command_line_allows_it(foreign_index, api, capsys):
    assert app.main(["search", "cats", "--index", str(foreign_index), "--embeddings", SPEC]) == 0
    assert api.requests == ["/v1/embeddings"]  # the stand-in would have seen a query: the refusals above are real


def test_naming_the_service_in_the_environment_allows_it(foreign_index, api, monkeypatch):
    monkeypatch.setenv("RAG_ALLOW_EMBEDDINGS", "hashing, openai")
    Index.open(foreign_index).search("cats", search_type="similarity")
    assert api.requests == ["/v1/embeddings"]


@pytest.mark.parametrize("value, allowed", [
    ("", False), ("openai:other-model", False), (SPEC, True), ("openai", True), ("*", True), (" x , openai ", True),
    ("openaix", False),
])
def test_the_environment_lists_specs_services_or_a_star(value, allowed):
    assert allowed_by_environment(SPEC, {"RAG_ALLOW_EMBEDDINGS": value}) is allowed


def test_a_local_model_needs_no_permission(tmp_path, corpus, monkeypatch):
    monkeypatch.delenv("RAG_ALLOW_EMBEDDINGS", raising=False)
    Index.create(tmp_path / "ix", embeddings="hashing").update([str(corpus)])
    assert Index.open(tmp_path / "ix").search("cats", k=1)


def test_rag_serve_on_a_foreign_index_refuses_to_start(foreign_index, api, capsys):
    assert app.main(["serve", "--index", str(foreign_index), "--port", "0"]) == 1
    assert "RAG_ALLOW_EMBEDDINGS" in capsys.readouterr().err and api.requests == []
