"""An index of a folder holds what the user means: content pages, not generated output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rag.index import Index

PAGE = ('<html><head><title>{title}</title></head><body><div class="related"><a href="x">Next topic</a></div>'
        '<div class="body"><h1>{title}<a class="headerlink" href="#t">¶</a></h1><p>{text}</p></div>'
        '<div class="sphinxsidebar"><h3>Previous topic</h3><a href="_sources/x.rst.txt">Show Source</a>'
        '<a href="y">Report a Bug</a></div></body></html>')


@pytest.fixture
def sphinx_site(tmp_path: Path) -> Path:
    site = tmp_path / "html"
    for relative in ("library", "_sources/library", "_static"):
        (site / relative).mkdir(parents=True)
    (site / "index.html").write_text(PAGE.format(title="Welcome", text="The documentation of the otter library."))
    (site / "library" / "os.html").write_text(PAGE.format(title="os", text="Miscellaneous operating system interfaces."))
    (site / "_sources" / "library" / "os.rst.txt").write_text("os\n==\n\nMiscellaneous operating system interfaces.\n")
    (site / "_static" / "basic.css").write_text("body { margin: 0 }")
    outside = tmp_path / "jquery.js"
    outside.write_text("/* jquery */")
    (site / "_static" / "jquery.js").symlink_to(outside)
    (site / "searchindex.js").write_text("Search.setIndex({})")
    (site / "genindex-A.html").write_text(PAGE.format(title="Index A", text="os module, 1"))
    (site / "search.html").write_text(PAGE.format(title="Search", text="Search the docs"))
    (site / "py-modindex.html").write_text(PAGE.format(title="Module index", text="os"))
    (site / "objects.inv").write_bytes(b"# Sphinx inventory version 2\n\x78\x9c")
    return site


def test_only_the_content_pages_of_a_sphinx_site_are_indexed(sphinx_site, tmp_path):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    summary = index.update([str(sphinx_site)])
    assert sorted(Path(s).name for s in index.sources()) == ["index.html", "os.html"]
    assert summary.skipped_files and all(reason for _, reason in summary.skipped_files)


def test_indexed_pages_carry_no_navigation_or_permalink_marks(sphinx_site, tmp_path):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(sphinx_site)])
    texts = [chunk.page_content for chunk, _ in index.search("operating system otter", k=10, search_type="bm25")]
    assert texts and not any(mark in text for text in texts
                             for mark in ("Next topic", "Previous topic", "Show Source", "Report a Bug", "¶"))


def test_exclude_patterns_leave_files_out_and_say_why(sphinx_site, tmp_path):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    summary = index.update([str(sphinx_site)], exclude=["library/"])
    assert [Path(s).name for s in index.sources()] == ["index.html"]
    assert any("--exclude" in reason for _, reason in summary.skipped_files)


def test_a_dry_run_lists_the_work_per_type_and_writes_nothing(sphinx_site, tmp_path):
    result = subprocess.run([sys.executable, "-m", "rag", "index", str(sphinx_site), "--index", str(tmp_path / "ix"),
                             "--embeddings", "hashing", "--dry-run", "--json"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    assert [(row["suffix"], row["files"]) for row in plan["types"]] == [(".html", 2)]
    assert plan["chunks"] >= 2 and plan["rate"] > 0 and plan["skipped"]
    assert not (tmp_path / "ix").exists()


def test_a_dry_run_counts_files_the_index_holds_unchanged_apart(sphinx_site, tmp_path):
    old = time.time() - 10  # older than the same-second window, so the stat can be trusted
    for path in sphinx_site.rglob("*.html"):
        os.utime(path, (old, old))
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(sphinx_site)])
    page = next(Path(source) for source in index.sources() if not source.endswith("index.html"))
    page.write_text(page.read_text() + "<p>An edit.</p>")
    plan = Index.open(tmp_path / "ix").dry_run([str(sphinx_site)])
    assert plan.files == 1 and plan.unchanged == 1 and plan.unchanged_bytes > 0


def test_a_dry_run_with_new_chunk_settings_counts_every_file_as_work(sphinx_site, tmp_path):
    old = time.time() - 10
    for path in sphinx_site.rglob("*.html"):
        os.utime(path, (old, old))
    index = Index.create(tmp_path / "ix", embeddings="hashing", chunk_size=1000, chunk_overlap=0)
    index.update([str(sphinx_site)])
    same = Index.open(tmp_path / "ix").dry_run([str(sphinx_site)])
    rechunked = Index.open(tmp_path / "ix").dry_run([str(sphinx_site)], chunk_size=300)
    assert same.files == 0 and same.unchanged == 2
    assert rechunked.files == 2 and rechunked.unchanged == 0 and rechunked.chunks > 0
