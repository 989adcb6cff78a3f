"""Headings of an HTML page, as the readable-text engine lays them out: where each begins in
the text, its title, and the anchor a link can point to."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from loaders import ReadableHTMLLoader
from loaders._page_scan import scan_page

PGDOC = Path(__file__).parents[1] / "rag" / "data" / "pgdoc"


def test_a_docbook_page_gives_each_heading_with_its_sections_id():
    document = ReadableHTMLLoader(PGDOC / "ddl-alter.html").load()[0]
    headings = [(title, anchor) for _, title, anchor in document.metadata["headings"]]
    assert headings[:4] == [("5.6. Modifying Tables", "DDL-ALTER"),
                            ("5.6.1. Adding a Column", "DDL-ALTER-ADDING-A-COLUMN"),
                            ("Tip", "DDL-ALTER-ADDING-A-COLUMN"),  # an admonition's heading, in its section
                            ("5.6.2. Removing a Column", "DDL-ALTER-REMOVING-A-COLUMN")]


def test_each_offset_is_where_the_headings_line_begins_in_the_text():
    document = ReadableHTMLLoader(PGDOC / "ddl-alter.html").load()[0]
    text = document.page_content
    for offset, title, _ in document.metadata["headings"]:
        assert " ".join(text[offset:offset + len(title) + 5].split()).startswith(title)
        assert offset == 0 or text[offset - 1] == "\n"


def test_a_headings_own_id_wins_over_its_sections_and_an_inner_anchor_names_it():
    scan = scan_page('<section id="outer"><h1 id="own">One</h1><p>a</p><h2><a name="inner"></a>Two</h2>'
                     '<p>b</p><h3>Three</h3><p>c</p></section>')
    assert scan.headings == [[0, "One", "own"], [8, "Two", "inner"], [16, "Three", "outer"]]


def test_a_heading_without_any_id_around_it_has_no_anchor():
    assert scan_page("<h2>Alone</h2><p>text</p>").headings == [[0, "Alone", None]]


def test_empty_headings_permalink_marks_and_navigation_headings_are_left_out():
    scan = scan_page('<nav><h2>Menu</h2></nav><main id="m"><h1>Title<a class="headerlink" href="#m">¶</a></h1>'
                     '<h2 id="e"> </h2><p>Body</p></main>')
    assert scan.text == "Title\n\nBody"
    assert scan.headings == [[0, "Title", "m"]]


def test_a_page_without_headings_has_no_headings_key(tmp_path):
    page = tmp_path / "p.html"
    page.write_text("<p>Just a paragraph.</p>")
    assert "headings" not in ReadableHTMLLoader(page).load()[0].metadata


words = st.text(alphabet="abcdefgh ", min_size=1, max_size=12).filter(lambda t: t.strip())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["h1", "h2", "h3", "p", "pre", "li"]), words), min_size=1, max_size=12))
def test_every_heading_offset_points_at_its_title_in_the_text(blocks):
    markup = "".join(f"<{tag}>{text}</{tag}>" for tag, text in blocks)
    scan = scan_page(markup)
    expected = [" ".join(text.split()) for tag, text in blocks if tag.startswith("h")]
    assert [title for _, title, _ in scan.headings] == expected
    for offset, title, _ in scan.headings:
        assert scan.text[offset:offset + len(title)] == title
