"""One extraction engine for HTML files and fetched pages: main content only (generators'
chrome and permalink marks dropped), the same text and metadata from a file and a crawl."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from web_test_site import Response, Site, _web_site_server, site  # noqa: F401  (fixtures)

from loaders import ReadableHTMLLoader, RecursiveUrlLoader, WebBaseLoader
from loaders._extract import html_to_text, readable_text, scan_page
from loaders.html import HTML_SUFFIXES
from loaders.selection import select_files
from loaders.testing import LoaderConformance

# A page as Sphinx (Python's pydoctheme) writes it: sidebar, related bars, footer, ¶ marks.
SPHINX_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8" />
<meta name="description" content="Creating virtual environments" />
<title>venv — Creation of virtual environments</title>
<script src="_static/jquery.js"></script></head>
<body>
<div class="related" role="navigation" aria-label="related navigation"><h3>Navigation</h3>
<ul><li><a href="genindex.html">index</a></li><li><a href="zipapp.html">next</a> |</li>
<li><a href="index.html">Python</a> &#187;</li></ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper">
<div class="body" role="main">
<section id="venv"><h1>venv — Creation of virtual environments<a class="headerlink"
 href="#venv" title="Permalink to this heading">¶</a></h1>
<p>The <code>venv</code> module supports creating lightweight virtual environments.</p>
<section id="creating"><h2>Creating virtual environments<a class="headerlink"
 href="#creating">¶</a></h2><pre>python3 -m venv /path/to/env</pre></section>
</section></div></div></div>
<div class="sphinxsidebar"><div class="sphinxsidebarwrapper">
<h4>Previous topic</h4><p><a href="ensurepip.html">ensurepip</a></p>
<h4>Next topic</h4><p><a href="zipapp.html">zipapp</a></p>
<div role="note"><h3>This Page</h3><ul><li><a href="bugs.html">Report a Bug</a></li>
<li><a href="_sources/venv.rst.txt">Show Source</a></li></ul></div></div></div></div>
<div class="related" role="navigation"><ul><li><a href="py-modindex.html">modules</a></li></ul></div>
<div class="footer">&copy; Copyright 2001-2023. <a href="bugs.html">Found a bug</a>?</div>
</body></html>"""

SPHINX_TEXT = (
    "venv — Creation of virtual environments\n\n"
    "The venv module supports creating lightweight virtual environments.\n\n"
    "Creating virtual environments\n\n"
    "python3 -m venv /path/to/env"
)

# DocBook XSL chunked output (PostgreSQL's manual): "Prev Up Home Next" tables.
DOCBOOK_PAGE = """<html><head><title>SELECT</title></head><body>
<div class="navheader"><table summary="Navigation header"><tr><th colspan="5">SELECT</th></tr>
<tr><td><a accesskey="p" href="a.html">Prev</a> </td><td><a href="up.html">Up</a></td>
<th>SQL Commands</th><td><a href="index.html">Home</a></td><td><a href="b.html">Next</a></td>
</tr></table><hr /></div>
<div class="refentry"><h2>SELECT</h2><p>SELECT — retrieve rows from a table or view</p></div>
<div class="navfooter"><hr /><table summary="Navigation footer"><tr><td><a href="a.html">Prev</a>
</td><td><a href="up.html">Up</a></td><td><a href="b.html">Next</a></td></tr></table></div>
</body></html>"""

# AsciiDoc (git's manual pages): the title lives in div#header, the date in div#footer.
ASCIIDOC_PAGE = """<html><head><title>git-add(1)</title></head><body class="manpage">
<div id="header"><h1>git-add(1) Manual Page</h1><h2>NAME</h2><p>git-add - Add file contents</p></div>
<div id="content"><h2>SYNOPSIS</h2><p>git add</p></div>
<div id="footnotes"><hr /></div>
<div id="footer"><div id="footer-text">Last updated 2024-05-31 00:35:55 UTC</div></div>
</body></html>"""


def write(tmp_path: Path, markup: str, name: str = "page.html") -> Path:
    path = tmp_path / name
    path.write_text(markup, encoding="utf-8")
    return path


class TestReadableHTMLLoaderConformance(LoaderConformance):
    @pytest.fixture
    def loader(self, tmp_path: Path) -> ReadableHTMLLoader:
        return ReadableHTMLLoader(str(write(tmp_path, SPHINX_PAGE)))

    @pytest.fixture
    def missing_loader(self, tmp_path: Path) -> tuple[ReadableHTMLLoader, str]:
        path = str(tmp_path / "absent.html")
        return ReadableHTMLLoader(path), path


# -- what is content -------------------------------------------------------------------


def test_sphinx_sidebar_related_bars_footer_and_pilcrows_are_dropped() -> None:
    assert html_to_text(SPHINX_PAGE) == SPHINX_TEXT


def test_docbook_prev_up_next_tables_are_dropped() -> None:
    assert html_to_text(DOCBOOK_PAGE) == "SELECT\n\nSELECT — retrieve rows from a table or view"


def test_asciidoc_footer_is_dropped_and_its_header_with_the_title_kept() -> None:
    assert html_to_text(ASCIIDOC_PAGE) == (
        "git-add(1) Manual Page\n\nNAME\n\ngit-add - Add file contents\n\nSYNOPSIS\n\ngit add"
    )


@pytest.mark.parametrize(
    "crumbs",
    [
        '<ol class="breadcrumb"><li>Home</li><li>Docs</li></ol>',
        '<div aria-label="Breadcrumbs"><a href="/">Home</a> » Docs</div>',
        '<div role="navigation"><a href="/">Home</a></div>',
    ],
)
def test_breadcrumbs_and_navigation_roles_are_chrome(crumbs: str) -> None:
    assert html_to_text(f"{crumbs}<p>Body</p>") == "Body"


def test_a_footer_class_or_role_inside_an_article_is_content() -> None:
    markup = (
        '<article><p>Body</p><div class="footer">Posted by me</div>'
        '<div role="contentinfo">Tags: x</div></article><div role="contentinfo">(c) site</div>'
    )
    assert html_to_text(markup) == "Body\n\nPosted by me\n\nTags: x"


def test_an_in_page_link_that_is_only_a_permalink_sign_is_dropped() -> None:
    markup = (
        '<h2>Usage<a href="#usage">#</a></h2><h3>Notes <a href="#notes"> § </a></h3>'
        '<p>See <a href="#usage">usage</a> and <a href="other.html">¶</a></p>'
    )
    assert html_to_text(markup) == "Usage\n\nNotes\n\nSee usage and ¶"


def test_permalinks_are_dropped_even_when_chrome_is_kept() -> None:
    text = html_to_text(SPHINX_PAGE, drop_chrome=False)
    assert "¶" not in text and "Next topic" in text


def test_a_permalink_sign_in_prose_is_kept() -> None:
    assert html_to_text("<p>See ¶ 3 of the contract.</p>") == "See ¶ 3 of the contract."


@pytest.mark.parametrize("markup", [SPHINX_PAGE, DOCBOOK_PAGE, ASCIIDOC_PAGE])
@pytest.mark.parametrize("drop_chrome", [True, False])
def test_the_tree_walk_gives_the_text_and_metadata_of_the_stream(
    markup: str, drop_chrome: bool
) -> None:
    streamed = scan_page(markup, drop_chrome=drop_chrome)
    soup = BeautifulSoup(markup, "html.parser")
    assert readable_text(soup, drop_chrome=drop_chrome) == streamed.text
    assert scan_page(markup).metadata == streamed.metadata


# -- the file loader -------------------------------------------------------------------


def test_file_loader_gives_main_content_and_page_metadata(tmp_path: Path) -> None:
    path = write(tmp_path, SPHINX_PAGE)
    document = ReadableHTMLLoader(path).load()[0]
    assert document.page_content == SPHINX_TEXT
    assert document.metadata == {
        "source": str(path),
        "title": "venv — Creation of virtual environments",
        "description": "Creating virtual environments",
        "language": "en",
        "headings": [[0, "venv — Creation of virtual environments", "venv"],
                     [110, "Creating virtual environments", "creating"]],
        "blocks": [[0, 39, "heading"], [41, 108, "paragraph"], [110, 139, "heading"], [141, 169, "code"]],
    }


def test_file_loader_reads_the_meta_charset(tmp_path: Path) -> None:
    path = tmp_path / "latin.html"
    path.write_bytes('<meta charset="iso-8859-1"><title>Café</title><p>Crème</p>'.encode("latin-1"))
    document = ReadableHTMLLoader(path).load()[0]
    assert (document.page_content, document.metadata["title"]) == ("Crème", "Café")


def test_file_loader_can_keep_the_chrome(tmp_path: Path) -> None:
    text = ReadableHTMLLoader(write(tmp_path, SPHINX_PAGE), drop_chrome=False).load()[0]
    assert "Report a Bug" in text.page_content


def test_html_suffixes_are_the_html_document_suffixes() -> None:
    assert HTML_SUFFIXES == (".html", ".htm", ".xhtml")


# -- files and pages agree -------------------------------------------------------------


@pytest.mark.parametrize("markup", [SPHINX_PAGE, DOCBOOK_PAGE, ASCIIDOC_PAGE])
def test_a_file_and_the_same_page_crawled_or_fetched_give_the_same_document(
    markup: str, site: Site, tmp_path: Path  # noqa: F811
) -> None:
    url = site.add("/manual/page.html", Response(body=markup.encode("utf-8")))
    from_file = ReadableHTMLLoader(write(tmp_path, markup)).load()[0]
    fetched = WebBaseLoader(url).load()[0]
    crawled = RecursiveUrlLoader(url, max_depth=1).load()[0]
    assert fetched.page_content == crawled.page_content == from_file.page_content
    for key in ("title", "description", "language"):
        assert fetched.metadata.get(key) == crawled.metadata.get(key) == from_file.metadata.get(key)


def test_get_text_extraction_drops_the_same_chrome(site: Site) -> None:  # noqa: F811
    url = site.add("/manual/page.html", Response(body=SPHINX_PAGE.encode("utf-8")))
    document = WebBaseLoader(url, bs_get_text_kwargs={"separator": " "}).load()[0]
    for chrome in ("Next topic", "Report a Bug", "Show Source", "¶", "Copyright", "modules"):
        assert chrome not in document.page_content
    assert document.metadata["title"] == "venv — Creation of virtual environments"


# -- real manuals (Debian packages; skipped where they are not installed) ---------------

_MANUALS = {
    "postgresql-doc-15": Path("/usr/share/doc/postgresql-doc-15/html"),
    "git-doc": Path("/usr/share/doc/git-doc"),
}
_CHROME = ("Next topic", "Previous topic", "Report a Bug", "Show Source", "¶")
# DocBook's navigation tables as text ("Prev | Up | ... | Home | Next", or "Prev Up" as
# get_text joins the cells) and AsciiDoc's "Last updated 2024-05-31 00:35:55 UTC" footer.
_CHROME_LINES = re.compile(
    r"\bPrev[\s|\u00a0]*Up\b|\bPrev\b[^\n]*\|[^\n]*\bNext\b|Last updated\s+\d{4}-\d\d-\d\d"
)


@pytest.mark.parametrize("package", sorted(_MANUALS))
def test_no_page_of_an_installed_manual_keeps_its_chrome(package: str) -> None:
    folder = _MANUALS[package]
    if not folder.is_dir():
        pytest.skip(f"{package} is not installed (apt-get install {package})")
    pages = [path for path in select_files(folder).files if path.suffix in HTML_SUFFIXES]
    assert len(pages) > 100
    offending: dict[str, list[str]] = {}
    for path in pages:
        text = ReadableHTMLLoader(path).load()[0].page_content
        found = [mark for mark in _CHROME if mark in text]
        found += [match.group()] if (match := _CHROME_LINES.search(text)) else []
        if found or not text.strip():
            offending[path.name] = found or ["no text"]
    assert offending == {}
