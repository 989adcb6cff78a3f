"""What only a shared index in PostgreSQL does (see test_shared_index.py for what both
engines do), against the session's real PostgreSQL + pgvector server."""

import uuid
from pathlib import Path

import pytest

from rag.errors import ValidationError

pytest.importorskip("psycopg")
from rag.index import Index  # noqa: E402


@pytest.fixture
def index(postgres_uri, tmp_path):
    opened = Index.open_or_create(postgres_uri, collection=f"index-{uuid.uuid4().hex[:10]}", embeddings="hashing")
    yield opened
    opened.backend.store.delete_collection()
    opened.close()


def test_full_text_search_finds_stemmed_words_and_honours_filters(index, tmp_path):
    (tmp_path / "cats.md").write_text("Cats purr when they are content.")
    (tmp_path / "owls.md").write_text("Owls hunt at night; their feathers make no sound.")
    index.update([str(tmp_path)])
    found = index.search("hunting owl", search_type="bm25")
    assert [Path(d.metadata["source"]).name for d, _ in found] == ["owls.md"]
    cats = str(tmp_path / "cats.md")
    assert index.search("owls purr", search_type="bm25", filter={"source": cats})[0][0].metadata["source"] == cats


def test_a_folder_index_cannot_use_the_pgvector_store(tmp_path):
    from rag.index import Index

    with pytest.raises(ValidationError, match="keeps the whole index in a database: open it by URI"):
        Index.create(tmp_path / "ix", embeddings="hashing", store="pgvector")


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
        patched.setattr(index.backend.store, "delete", lost_connection)
        with pytest.raises(ConnectionError):
            index.update([str(folder)])
    index.update([str(folder)])  # the next run finishes what the cut-short one began
    assert [doc.page_content for doc, _ in index.search("owls", k=10, search_type="similarity")] == [
        "Owls hunt at night."]


def test_a_first_update_that_fails_leaves_an_index_that_searches_empty_and_the_next_update_fills(
        index, tmp_path, monkeypatch):
    (tmp_path / "owls.md").write_text("Owls hunt at night; their feathers make no sound.")

    def lost_connection(source, record):
        raise ConnectionError("connection lost while recording the source")

    with monkeypatch.context() as patched:
        patched.setattr(index.backend.engine, "save_record", lost_connection)
        with pytest.raises(ConnectionError):
            index.update([str(tmp_path)])
    # The first commit's transaction (the chunks' table with it) was rolled back.
    assert index.search("owls", search_type="similarity") == []
    assert index.search("owls", search_type="bm25") == []
    index.update([str(tmp_path)])
    assert [Path(d.metadata["source"]).name for d, _ in index.search("owls", k=1)] == ["owls.md"]
