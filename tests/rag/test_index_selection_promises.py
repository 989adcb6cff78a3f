"""Indexing keeps its promises: a --glob that leaves out files the index holds never
deletes them silently (refused, unless --prune), --exclude deletes as before, and an
empty folder says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.cli import app
from rag.errors import ValidationError
from rag.index import Index


@pytest.fixture
def html_index(tmp_path: Path) -> tuple[Path, Path]:
    files = tmp_path / "files"
    files.mkdir()
    for n in range(5):
        (files / f"page{n}.html").write_text(f"<html><body><p>Page {n} about herons and owls.</p></body></html>")
    Index.create(tmp_path / "ix", embeddings="hashing").update([str(files)])
    return files, tmp_path / "ix"


@pytest.fixture(autouse=True)
def _no_process_defaults(monkeypatch):
    monkeypatch.setattr(app, "apply_process_defaults", lambda: None)


def test_a_glob_matching_none_of_what_a_root_holds_is_refused_naming_the_count(html_index, capsys):
    files, ix = html_index
    manifest = (ix / "manifest.json").read_bytes()
    assert app.main(["index", str(files), "--index", str(ix), "--glob", "**/*.md"]) == 1
    err = capsys.readouterr().err
    assert "5 file(s)" in err and "--prune" in err and err.count("\n") == 1
    assert (ix / "manifest.json").read_bytes() == manifest and len(Index.open(ix).sources()) == 5


def test_a_glob_leaving_out_some_held_files_is_refused_too(html_index):
    files, ix = html_index
    with pytest.raises(ValidationError, match=r"does not match 4 file\(s\)"):
        Index.open(ix).update([str(files)], glob="page0.*")


def test_prune_deletes_what_the_glob_leaves_out(html_index, capsys):
    files, ix = html_index
    (files / "notes.md").write_text("Notes on herons.")
    assert app.main(["index", str(files), "--index", str(ix), "--glob", "**/*.md", "--prune", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["added"], summary["deleted"]) == (1, 5)
    assert [Path(s).name for s in Index.open(ix).sources()] == ["notes.md"]


def test_a_glob_still_matching_every_held_file_needs_no_prune(html_index):
    files, ix = html_index
    (files / "page0.html").unlink()  # gone from the disk: deleted, as always
    summary = Index.open(ix).update([str(files)], glob="*.html")
    assert (summary.deleted, summary.unchanged) == (1, 4)


def test_exclude_still_deletes_what_it_leaves_out(html_index):
    files, ix = html_index
    summary = Index.open(ix).update([str(files)], exclude=["page1.html", "page2.html"])
    assert summary.deleted == 2 and len(Index.open(ix).sources()) == 3


def test_an_empty_folder_says_so(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert app.main(["index", str(tmp_path / "empty"), "--index", str(tmp_path / "ix"),
                     "--embeddings", "hashing"]) == 0
    out = capsys.readouterr().out
    assert f"Nothing to index in {(tmp_path / 'empty').resolve()}" in out


def test_the_summary_names_empty_roots_for_scripts(tmp_path):
    (tmp_path / "empty").mkdir()
    summary = Index.create(tmp_path / "ix", embeddings="hashing").update([str(tmp_path / "empty")])
    assert summary.to_json()["empty_roots"] == [str((tmp_path / "empty").resolve())]
