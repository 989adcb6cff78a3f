"""HTMLSemanticPreservingSplitter: header sections, preserved elements and media, as LangChain's."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.errors import MissingDependencyError
from splitters import HTMLSemanticPreservingSplitter

HEADERS = [("h1", "Header 1"), ("h2", "Header 2"), ("h3", "Header 3")]

ARTICLE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Retrieval notes</title>
  <style>body { font-family: serif; }</style>
  <script>window.analytics = {"id": 1};</script>
</head>
<body>
  <nav><a href="/">Home</a> &raquo; <a href="/notes/">Notes</a></nav>
  <h1>Retrieval-augmented generation</h1>
  <p>A <em>retriever</em> finds passages; a <strong>reader</strong> answers &amp; cites them.
     See <a href="https://example.org/rag">the survey</a> for details.</p>
  <section id="index">
    <h2>Indexing</h2>
    <p>Documents are split into chunks of about 1,000 characters.</p>
    <figure><img src="pipeline.png" alt="Pipeline"><figcaption>The pipeline.</figcaption></figure>
    <table>
      <tr><th>Store</th><th>Latency (ms)</th></tr>
      <tr><td>FAISS</td><td>1.2</td></tr>
      <tr><td>In-memory</td><td>3.4</td></tr>
    </table>
    <ul>
      <li>Split</li>
      <li>Embed <code>text</code></li>
      <li>Store</li>
    </ul>
  </section>
  <section id="query">
    <h2>Querying</h2>
    <p>The query is embedded; the nearest chunks are returned.</p>
    <pre><code>store.similarity_search("what is RAG?", k=4)
    # indented comment</code></pre>
    <video src="demo.mp4" controls><source src="demo.webm"></video>
    <audio src="talk.mp3"></audio>
    <h3>Filters</h3>
    <p>Metadata filters narrow the search<br>before scoring.<!-- TODO: examples --></p>
    <iframe src="https://example.org/embed"></iframe>
  </section>
  <footer><p>&copy; 2024 Notes. <a href="/license">License</a></p></footer>
</body>
</html>
"""


def _pairs(documents):
    return [(document.page_content, document.metadata) for document in documents]


def test_sections_carry_the_latest_header_only():
    html = "<h1>A</h1><p>one</p><h2>B</h2><p>two</p>"
    documents = HTMLSemanticPreservingSplitter(HEADERS).split_text(html)
    assert _pairs(documents) == [("one", {"Header 1": "A"}), ("two", {"Header 2": "B"})]


def test_long_sections_are_cut_to_max_chunk_size():
    html = "<h1>A</h1><p>" + "word " * 50 + "</p>"
    documents = HTMLSemanticPreservingSplitter(HEADERS, max_chunk_size=30).split_text(html)
    assert all(len(d.page_content) <= 30 for d in documents)
    assert " ".join(d.page_content for d in documents) == " ".join(["word"] * 50)


def test_preserved_elements_stay_whole_beyond_max_chunk_size():
    html = "<p>intro</p><table><tr><td>" + "cell " * 20 + "</td></tr></table>"
    splitter = HTMLSemanticPreservingSplitter(HEADERS, max_chunk_size=20, elements_to_preserve=["table"])
    contents = [d.page_content for d in splitter.split_text(html)]
    assert any(("cell " * 20).strip() in content for content in contents)


def test_links_and_media_become_markdown():
    html = '<p><a href="u">site</a> <img src="i.png"> <video src="v.mp4"></video></p>'
    splitter = HTMLSemanticPreservingSplitter(
        HEADERS, preserve_links=True, preserve_images=True, preserve_videos=True
    )
    assert splitter.split_text(html)[0].page_content == "![image:i.png](i.png) ![video:v.mp4](v.mp4) [site](u)"


def test_custom_handler_receives_a_beautiful_soup_tag():
    """Handlers written for LangChain take a bs4 Tag, so they get one; it holds a copy of
    the element (we do not build the page in bs4), so its parent and siblings are absent."""
    seen = []

    def iframe(tag):
        seen.append(type(tag).__name__)
        return f"[iframe:{tag.get('src', '')}]"

    splitter = HTMLSemanticPreservingSplitter(HEADERS, custom_handlers={"iframe": iframe})
    assert splitter.split_text('<iframe src="f"></iframe>')[0].page_content == "[iframe:f]"
    assert seen == ["Tag"]


def test_normalize_text_lowercases_and_drops_punctuation():
    splitter = HTMLSemanticPreservingSplitter(HEADERS, normalize_text=True)
    assert splitter.split_text("<p>Hello, World!</p>")[0].page_content == "hello world"


def test_denylist_removes_elements_but_never_headers():
    splitter = HTMLSemanticPreservingSplitter(HEADERS, denylist_tags=["nav", "h1"])
    documents = splitter.split_text("<nav>menu</nav><h1>T</h1><p>body</p>")
    assert _pairs(documents) == [("body", {"Header 1": "T"})]


def test_external_and_parent_metadata():
    from rag.documents import Document

    splitter = HTMLSemanticPreservingSplitter(
        HEADERS, external_metadata={"site": "x"}, preserve_parent_metadata=True
    )
    (chunk,) = splitter.transform_documents([Document("<h1>T</h1><p>b</p>", {"source": "s"})])
    assert chunk.metadata == {"source": "s", "Header 1": "T", "site": "x"}


def test_rejects_malformed_header_pairs():
    with pytest.raises(ValueError, match=r"\(tag, name\) pairs.*'h1'"):
        HTMLSemanticPreservingSplitter(["h1"])


def test_non_string_text_is_a_type_error():
    with pytest.raises(TypeError):
        HTMLSemanticPreservingSplitter(HEADERS).split_text(b"<p>x</p>")


def test_missing_stopwords_name_the_download_command(monkeypatch, tmp_path):
    """LangChain calls nltk.download("stopwords") in __init__ (a network request each
    time); we only read nltk's data on disk and say how to fetch it when it is missing."""
    nltk = pytest.importorskip("nltk")
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    with pytest.raises(MissingDependencyError, match="python -m nltk.downloader stopwords"):
        HTMLSemanticPreservingSplitter(HEADERS, stopword_removal=True)


lc_html = pytest.importorskip("langchain_text_splitters.html")


def _reference(html, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain marks the class beta
        splitter = lc_html.HTMLSemanticPreservingSplitter(HEADERS, **kwargs)
    return _pairs(splitter.split_text(html))


def _ours(html, **kwargs):
    return _pairs(HTMLSemanticPreservingSplitter(HEADERS, **kwargs).split_text(html))


def _nonempty(pairs):
    return [(content, metadata) for content, metadata in pairs if content]


def test_empty_sections_are_left_out():
    """LangChain emits a Document with "" content for a header followed only by whitespace
    (common in <section> markup); an empty chunk is useless to a retriever, so we skip it."""
    html = "<section><h1>A</h1>\n</section><section><h1>B</h1><p>x</p></section>"
    assert _reference(html) == [("", {"Header 1": "A"}), ("x", {"Header 1": "B"})]
    assert _ours(html) == [("x", {"Header 1": "B"})]


ARTICLE_OPTIONS = [
    {},
    dict(max_chunk_size=80, chunk_overlap=20),
    dict(max_chunk_size=50, elements_to_preserve=["table", "ul", "pre"], keep_separator="end"),
    dict(preserve_links=True, preserve_images=True, preserve_videos=True, preserve_audio=True),
    dict(normalize_text=True, max_chunk_size=40, separators=[" "]),
    dict(allowlist_tags=["p", "section", "table", "tr", "td", "a"], preserve_links=True),
    dict(denylist_tags=["nav", "footer", "script", "style", "h2"], external_metadata={"k": "v"}),
    dict(custom_handlers={"iframe": lambda tag: f"[iframe]({tag.get('src', '')})"}),
    dict(elements_to_preserve=["section"], preserve_links=True, max_chunk_size=10),
]


@pytest.mark.parametrize("options", ARTICLE_OPTIONS, ids=lambda options: ",".join(options) or "defaults")
def test_article_equals_langchain(options):
    assert _ours(ARTICLE, **options) == _nonempty(_reference(ARTICLE, **options))


def test_stopword_removal_equals_langchain(monkeypatch, tmp_path):
    nltk = pytest.importorskip("nltk")
    corpus = tmp_path / "corpora" / "stopwords"
    corpus.mkdir(parents=True)
    (corpus / "english").write_text("a\nthe\nof\nare\nis\n", encoding="utf-8")
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    monkeypatch.setattr(nltk, "download", lambda *args, **kwargs: True)  # LangChain's, offline
    options = dict(stopword_removal=True, normalize_text=True)
    assert _ours(ARTICLE, **options) == _nonempty(_reference(ARTICLE, **options))


def test_debian_manual_pages_equal_langchain():
    """Optional: real pages from postgresql-doc-15, when installed."""
    from pathlib import Path

    folder = Path("/usr/share/doc/postgresql-doc-15/html")
    pages = sorted(folder.glob("*.html"))[::40] if folder.is_dir() else []
    if not pages:
        pytest.skip("postgresql-doc-15 is not installed")
    options = dict(max_chunk_size=500, elements_to_preserve=["table", "pre"], preserve_links=True)
    for page in pages:
        html = page.read_text(encoding="utf-8", errors="replace")
        assert _ours(html, **options) == _nonempty(_reference(html, **options)), page.name


words = st.sampled_from(
    ["alpha", "Beta,", "gamma!", " ", "  ", "\n", "\t", "&amp;", "&lt;b&gt;", "&copy;", "&foo;",
     "&#65;", "&#x263a;", "PRESERVED_0", "x.y", "é"]
)
texts = st.lists(words, max_size=6).map("".join)
TAGS = ["div", "p", "span", "b", "section", "ul", "li", "table", "td", "pre", "h1", "h2", "h3",
        "a", "video", "audio", "iframe", "script"]


@st.composite
def attributes(draw: st.DrawFn, tag: str) -> str:
    if tag == "a" and draw(st.booleans()):
        return f' href="{draw(st.sampled_from(["u", "/x?a=1&amp;b=2", ""]))}"'
    if tag in ("video", "audio", "iframe") and draw(st.booleans()):
        return ' src="m.bin"'
    return ""


def _element(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    @st.composite
    def element(draw: st.DrawFn) -> str:
        tag = draw(st.sampled_from(TAGS))
        inner = "".join(draw(st.lists(children, max_size=4)))
        if tag == "script":
            inner = "var x = 1 < 2;"
        closing = draw(st.sampled_from([f"</{tag}>", f"</{tag}>", ""]))
        return f"<{tag}{draw(attributes(tag))}>{inner}{closing}"

    return element()


leaves = st.one_of(
    texts,
    st.sampled_from(['<img src="i.png">', "<br>", "<br/>", "</br>", "<!-- note -->", "</p>", "<hr>"]),
)
fragments = st.recursive(leaves, _element, max_leaves=25)


@settings(deadline=None, max_examples=50)
@given(
    parts=st.lists(fragments, max_size=6),
    wrap=st.booleans(),
    size=st.sampled_from([(1000, 0), (25, 5), (12, 0)]),
    preserve=st.sampled_from([[], ["table"], ["ul", "pre", "p"]]),
    media=st.booleans(),
    links=st.booleans(),
    normalize=st.booleans(),
    filters=st.sampled_from([{}, {"allowlist_tags": ["p", "div", "b", "a"]}, {"denylist_tags": ["span", "h2"]}]),
    keep=st.sampled_from([True, False, "end"]),
)
def test_generated_html_equals_langchain(parts, wrap, size, preserve, media, links, normalize, filters, keep):
    html = "".join(parts)
    if wrap:
        html = f"<html><body>{html}</body></html>"
    options = dict(
        max_chunk_size=size[0],
        chunk_overlap=size[1],
        elements_to_preserve=preserve,
        preserve_images=media,
        preserve_videos=media,
        preserve_audio=media,
        preserve_links=links,
        normalize_text=normalize,
        keep_separator=keep,
        **filters,
    )
    assert _ours(html, **options) == _nonempty(_reference(html, **options))
