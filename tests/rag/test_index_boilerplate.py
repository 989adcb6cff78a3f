"""Boilerplate by repetition: blocks on many pages of one site are left out of chunks,
found over the indexed set itself, and an incremental update keeps every page's chunks
those the current set gives."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loaders._page_scan import scan_page
from rag import Document
from rag.errors import ValidationError
from rag.index import Index
from rag.index.boilerplate import BoilerplateRule, find_boilerplate, page_block_keys, remove_boilerplate, strip_blocks

FOOTER = "<p>Copyright Example Corp, all rights reserved.</p>"


def html_page(number: int, extra: str = "") -> str:
    return (f"<html><title>P{number}</title><body><h1>Page {number}</h1>"
            f"<p>Content about topic number {number} and its details.</p>{extra}{FOOTER}</body></html>")


def document(html: str, source: str) -> Document:
    scan = scan_page(html)
    return Document(scan.text or "", {"source": source, **scan.structure()})


def site(pages: int, folder: str = "/site", extra=lambda n: "") -> list[Document]:
    return [document(html_page(n, extra(n)), f"{folder}/p{n}.html") for n in range(pages)]


# -- the rule, over documents ------------------------------------------------------------


def test_a_block_on_every_page_of_a_site_is_left_out():
    stripped = remove_boilerplate(site(5))
    assert all("Copyright" not in page.page_content for page in stripped)
    assert stripped[0].page_content == "Page 0\n\nContent about topic number 0 and its details."


def test_a_block_must_be_on_more_than_min_pages_pages():
    # On 3 of 3 pages: not more than 3, so not boilerplate (too little evidence).
    assert find_boilerplate(site(3)) == {}
    assert find_boilerplate(site(4)) != {}


def test_a_block_must_be_on_more_than_the_share_of_a_sites_pages():
    # A note on 5 of 30 pages (17 %) stays; on 7 of 30 (23 %) it goes.
    for on, expected in ((5, True), (7, False)):
        pages = remove_boilerplate(site(30, extra=lambda n: "<p>A shared note.</p>" if n < on else ""))
        assert ("A shared note." in pages[0].page_content) is expected


def test_a_repeated_block_between_a_pages_own_blocks_stays():
    # "See also" on every page, but inside the content: a label in its place, not chrome.
    pages = remove_boilerplate(site(6, extra=lambda n: f"<p>See also</p><p>The page {n} references.</p>"))
    assert all("See also" in page.page_content for page in pages)
    assert all("Copyright" not in page.page_content for page in pages)


def test_repeated_blocks_at_a_pages_start_and_end_go_headings_passed_over():
    pages = remove_boilerplate([document(f"<ul><li>Home</li><li>Docs</li></ul><h1>Page {n}</h1><p>Own {n}.</p>"
                                         f"<h2>Footer</h2><p>Part of the suite</p>", f"/s/{n}.html") for n in range(5)])
    assert [page.page_content for page in pages][:1] == ["Page 0\n\nOwn 0.\n\nFooter"]


def test_a_navigation_bar_ending_in_each_pages_own_title_is_one_repeated_block():
    bar = "<ul><li>index</li><li>modules | next | previous</li><li>Otter 3.1 Documentation » Library » {n}</li></ul>"
    pages = remove_boilerplate([document(bar.format(n=f"Page {n}") + f"<h1>Page {n}</h1><p>Own {n}.</p>", f"/s/{n}.html")
                                for n in range(5)])
    assert [page.page_content for page in pages][:1] == ["Page 0\n\nOwn 0."]


def test_repeated_code_is_never_removed():
    pages = remove_boilerplate(site(6, extra=lambda n: "<pre>pip install otter</pre>"))
    assert all("pip install otter" in page.page_content for page in pages)


def test_headings_and_blocks_inside_tables_are_never_removed():
    table = "<table><tr><th><p>Description</p></th></tr><tr><td>row {n}</td></tr></table>"
    pages = remove_boilerplate(site(6, extra=lambda n: "<h2>Options</h2>" + table.format(n=n)))
    assert all("Options" in page.page_content and "Description" in page.page_content for page in pages)


def test_each_folder_is_its_own_site():
    pages = site(5, "/a") + site(2, "/b")
    stripped = remove_boilerplate(pages)
    assert all("Copyright" not in page.page_content for page in stripped[:5])
    assert all("Copyright" in page.page_content for page in stripped[5:])


def test_documents_without_blocks_are_never_changed():
    plain = [Document("Intro\n\nCopyright Example Corp.", {"source": f"/t/{n}.txt"}) for n in range(10)]
    assert remove_boilerplate(plain) == plain


def test_a_page_that_is_only_boilerplate_keeps_its_text():
    only = document(f"<body>{FOOTER}</body>", "/site/empty.html")
    keys = page_block_keys(only)
    assert strip_blocks(only, keys).page_content == only.page_content


def test_the_rule_refuses_values_outside_their_range_naming_them():
    with pytest.raises(ValidationError, match="min_share must be a fraction in \\[0, 1\\), got 1.5"):
        BoilerplateRule(min_share=1.5)
    with pytest.raises(ValidationError, match="min_pages must be an integer >= 1, got 0"):
        BoilerplateRule(min_pages=0)
    with pytest.raises(ValidationError, match="opening_characters must be an integer >= 1, got -5"):
        BoilerplateRule(opening_characters=-5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["<p>shared one</p>", "<ul><li>nav a</li><li>nav b</li></ul>", "<h2>Usage</h2>",
                                 "<pre>code  x</pre>", "<div>loose shared</div>"]), max_size=6),
       st.integers(4, 8))
def test_stripping_moves_headings_and_blocks_to_the_same_text(shared, pages):
    documents = [document(f"<h1>Title {n}</h1><p>own text {n}</p>{''.join(shared)}<p>tail {n}</p>", f"/s/{n}.html")
                 for n in range(pages)]
    for before, after in zip(documents, remove_boilerplate(documents)):
        kept = {(kind, before.page_content[s:e]) for s, e, kind in before.metadata["blocks"]}
        assert {(kind, after.page_content[s:e]) for s, e, kind in after.metadata["blocks"]} <= kept
        for offset, title, _ in after.metadata.get("headings", []):
            assert after.page_content[offset:].startswith(title)
        assert f"own text {before.metadata['source'][3]}" in after.page_content


# -- the index: incremental updates ------------------------------------------------------

OLD = time.time() - 100  # files older than the update's same-second guard (see SAME_SECOND)


def write(folder: Path, number: int, extra: str = "") -> None:
    path = folder / f"p{number}.html"
    path.write_text(html_page(number, extra))
    os.utime(path, (OLD, OLD))


def chunk_texts(index: Index) -> dict[str, str]:
    return {Path(source).name: "\n".join(chunk.page_content for chunk in index.get_by_ids(ids))
            for source, ids in index.sources().items()}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    for number in range(6):
        write(root, number, "<p>A shared note.</p>" if number < 2 else "")
    return root


def test_indexed_chunks_leave_out_the_sites_repeated_footer(folder, tmp_path):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(folder)])
    texts = chunk_texts(index)
    assert len(texts) == 6 and not any("Copyright" in text for text in texts.values())
    assert "A shared note." in texts["p0.html"]  # on 2 of 6 pages: kept


def test_an_unchanged_reindex_reads_nothing_and_changes_no_chunk(folder, tmp_path):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(folder)])
    before = chunk_texts(index)
    summary = index.update([str(folder)])
    assert (summary.documents, summary.chunks, summary.unchanged) == (0, 0, 6)
    assert chunk_texts(index) == before


def test_pages_added_that_make_a_block_boilerplate_rechunk_the_untouched_pages_holding_it(folder, tmp_path):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(folder)])
    for number in range(6, 10):
        write(folder, number, "<p>A shared note.</p>")  # now on 6 of 10 pages
    summary = index.update([str(folder)])
    assert (summary.added, summary.updated, summary.unchanged) == (4, 2, 4)
    assert not any("A shared note." in text for text in chunk_texts(index).values())


def test_pages_deleted_so_that_a_block_is_no_longer_boilerplate_bring_it_back(folder, tmp_path):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(folder)])
    for number in range(3, 6):
        (folder / f"p{number}.html").unlink()  # the footer is now on 3 pages: too few
    summary = index.update([str(folder)])
    assert (summary.deleted, summary.updated) == (3, 3)
    assert all("Copyright" in text for text in chunk_texts(index).values())


def test_the_same_pages_indexed_from_scratch_give_the_same_chunks_as_updated(folder, tmp_path):
    updated = Index.create(tmp_path / "ix1", embeddings="hashing")
    updated.update([str(folder)])
    for number in range(6, 10):
        write(folder, number, "<p>A shared note.</p>")
    updated.update([str(folder)])
    fresh = Index.create(tmp_path / "ix2", embeddings="hashing")
    fresh.update([str(folder)])
    assert chunk_texts(updated) == chunk_texts(fresh)


def test_chunks_carry_the_blocks_of_their_text(folder, tmp_path):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(folder)])
    chunk = index.get_by_ids(index.sources()[str((folder / "p3.html").resolve())])[0]
    assert [(kind, chunk.page_content[s:e]) for s, e, kind in chunk.metadata["blocks"]] == [
        ("heading", "Page 3"), ("paragraph", "Content about topic number 3 and its details.")]


def test_a_first_index_reads_each_page_once(folder, tmp_path, monkeypatch):
    from loaders import DirectoryLoader

    reads: list[Path] = []
    real_load = DirectoryLoader.load_path
    monkeypatch.setattr(DirectoryLoader, "load_path", lambda self, path: reads.append(path) or real_load(self, path))
    Index.create(tmp_path / "ix", embeddings="hashing").update([str(folder)])
    assert sorted(path.name for path in reads) == sorted(f"p{n}.html" for n in range(6))


def test_past_the_kept_text_budget_pages_are_read_again_with_the_same_chunks(folder, tmp_path, monkeypatch):
    import rag.index.site_pages

    kept = Index.create(tmp_path / "ix1", embeddings="hashing")
    kept.update([str(folder)])
    monkeypatch.setattr(rag.index.site_pages, "KEPT_CHARACTERS", 0)
    reread = Index.create(tmp_path / "ix2", embeddings="hashing")
    reread.update([str(folder)])
    assert chunk_texts(kept) == chunk_texts(reread)


def test_a_crawled_sites_repeated_footer_is_left_out_of_its_chunks(tmp_path):
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    root = tmp_path / "www"
    root.mkdir()
    links = "".join(f'<a href="p{n}.html">page {n}</a> ' for n in range(5))
    (root / "index.html").write_text(html_page(99, f"<p>{links}</p>"))
    for number in range(5):
        (root / f"p{number}.html").write_text(html_page(number))

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep the test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        index = Index.create(tmp_path / "ix", embeddings="hashing")
        index.update([f"http://127.0.0.1:{server.server_address[1]}/index.html"], crawl=1)
        texts = chunk_texts(index)
    finally:
        server.shutdown()
        server.server_close()
    assert len(texts) == 6 and not any("Copyright" in text for text in texts.values())
    assert "Content about topic number 3" in texts["p3.html"]
