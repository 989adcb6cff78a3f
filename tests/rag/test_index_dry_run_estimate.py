"""rag index --dry-run estimates from the files themselves: a sample loaded and split as an
update would, with a stated margin (exact when every file was sampled)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rag.cli import app
from rag.index import Index
from rag.index import dryrun


def _site(folder: Path, pages: int, seed: int = 35) -> Path:
    """HTML pages heavy with markup (a nav block, attributes) around texts of varied length."""
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    words = "herons wade in shallow water while owls hunt at night and otters play".split()
    for n in range(pages):
        paragraphs = "".join(f'<p class="body-text para-{k}">{" ".join(rng.choices(words, k=rng.randint(20, 120)))}</p>'
                             for k in range(rng.randint(1, 25)))
        nav = "".join(f'<li><a class="nav-link" href="page{k}.html">Page {k}</a></li>' for k in range(40))
        (folder / f"page{n:03}.html").write_text(
            f"<html><head><title>Page {n}</title><style>.x{{color:red}}</style></head><body>"
            f"<nav><ul>{nav}</ul></nav><main>{paragraphs}</main></body></html>")
    return folder


def _actual_chunks(tmp_path: Path, folder: Path) -> int:
    return Index.create(tmp_path / "actual", embeddings="hashing").update([str(folder)]).total_chunks


def test_a_small_folder_is_counted_exactly(tmp_path):
    site = _site(tmp_path / "site", pages=5)
    plan = Index.create(tmp_path / "ix", embeddings="hashing").dry_run([str(site)])
    assert (plan.sampled_files, plan.chunks_margin) == (5, 0)
    assert plan.chunks == _actual_chunks(tmp_path, site)


def test_a_large_folder_is_estimated_from_a_sample_within_the_stated_margin(tmp_path):
    site = _site(tmp_path / "site", pages=120)
    plan = Index.create(tmp_path / "ix", embeddings="hashing").dry_run([str(site)])
    actual = _actual_chunks(tmp_path, site)
    assert plan.sampled_files == dryrun.SAMPLE_FILES_PER_TYPE < plan.files == 120
    assert plan.chunks_margin is not None and abs(plan.chunks - actual) <= plan.chunks_margin
    # bytes / (chunk_size - chunk_overlap), the former estimate, was far off for markup
    former = sum(-(-p.stat().st_size // 800) for p in site.iterdir())
    assert abs(former - actual) > 3 * abs(plan.chunks - actual)


def test_one_sample_of_many_gives_no_margin(tmp_path, monkeypatch):
    site = _site(tmp_path / "site", pages=4)
    monkeypatch.setattr(dryrun, "SAMPLE_FILES_PER_TYPE", 1)
    plan = Index.create(tmp_path / "ix", embeddings="hashing").dry_run([str(site)])
    assert plan.sampled_files == 1 and plan.chunks_margin is None and plan.to_json()["chunks_margin"] is None


def test_the_sample_stays_within_its_byte_budget_yet_measures_every_type(tmp_path, monkeypatch):
    site = _site(tmp_path / "site", pages=6)
    (site / "notes.md").write_text("Owls hunt at night. " * 200)
    monkeypatch.setattr(dryrun, "SAMPLE_BYTES", 1)
    plan = Index.create(tmp_path / "ix", embeddings="hashing").dry_run([str(site)])
    assert {t.suffix: t.sampled for t in plan.types} == {".html": 1, ".md": 1}


@pytest.fixture
def _quiet(monkeypatch):
    monkeypatch.setattr(app, "apply_process_defaults", lambda: None)


def test_the_command_says_how_good_the_estimate_is(tmp_path, capsys, _quiet, monkeypatch):
    monkeypatch.setattr(dryrun, "SAMPLE_FILES_PER_TYPE", 8)
    site = _site(tmp_path / "site", pages=30)
    assert app.main(["index", str(site), "--index", str(tmp_path / "ix"), "--embeddings", "hashing", "--dry-run"]) == 0
    assert "estimated from 8 of 30 file(s) loaded and split" in capsys.readouterr().out
    small = _site(tmp_path / "small", pages=2)
    assert app.main(["index", str(small), "--index", str(tmp_path / "ix"), "--embeddings", "hashing", "--dry-run"]) == 0
    assert "counted exactly: all 2 file(s)" in capsys.readouterr().out


def test_a_dry_run_of_an_empty_folder_says_so(tmp_path, capsys, _quiet):
    (tmp_path / "empty").mkdir()
    assert app.main(["index", str(tmp_path / "empty"), "--index", str(tmp_path / "ix"), "--embeddings", "hashing",
                     "--dry-run"]) == 0
    assert "Nothing to index" in capsys.readouterr().out
