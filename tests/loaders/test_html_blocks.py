"""The structural blocks of an HTML page, as the readable-text engine lays them out:
``[start, end, kind]`` spans into the text, for files and fetched pages alike."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from loaders import ReadableHTMLLoader
from loaders._page_scan import scan_page

PGDOC = Path(__file__).parents[1] / "rag" / "data" / "pgdoc"


def spans(html: str) -> list[tuple[str, str]]:
    scan = scan_page(html)
    return [(kind, scan.text[start:end]) for start, end, kind in scan.blocks]


def test_each_kind_of_block_is_recorded_with_its_text():
    assert spans("<h2>Usage</h2><p>Run <b>it</b>.</p><pre>make\n  all</pre><blockquote>Said.</blockquote>"
                 "<dl><dt>-q</dt><dd>quiet</dd></dl>") == [
        ("heading", "Usage"), ("paragraph", "Run it."), ("code", "make\n  all"), ("quote", "Said."),
        ("definitions", "-q\nquiet")]


def test_a_list_comes_before_its_items_and_an_item_holds_its_nested_blocks():
    assert spans("<ul><li>one</li><li>two<p>more</p></li></ul>") == [
        ("list", "one\ntwo\n\nmore"), ("item", "one"), ("item", "two\n\nmore"), ("paragraph", "more")]


def test_a_tables_span_includes_its_caption_and_ragged_rows():
    html = "<table><caption>Sizes</caption><tr><th>a</th><th>b</th></tr><tr><td>1</td></tr><tr></tr></table>"
    assert spans(html) == [("table", "Sizes\na | b\n1")]


def test_text_outside_any_block_element_is_in_no_block():
    scan = scan_page("<div>Loose text</div><p>Para</p>")
    assert scan.text == "Loose text\n\nPara"
    assert scan.blocks == [[12, 16, "paragraph"]]


def test_a_page_with_no_block_elements_has_no_blocks_key(tmp_path):
    page = tmp_path / "p.html"
    page.write_text("<div>Just a div.</div>")
    document = ReadableHTMLLoader(page).load()[0]
    assert document.page_content == "Just a div." and "blocks" not in document.metadata


def test_empty_blocks_and_blocks_in_navigation_are_left_out():
    assert spans("<nav><ul><li>Home</li></ul></nav><p> </p><ul></ul><p>Body</p>") == [("paragraph", "Body")]


def test_a_page_that_is_all_chrome_keeps_its_blocks_with_its_text():
    assert spans("<nav><ul><li>Home</li><li>Docs</li></ul></nav>") == [
        ("list", "Home\nDocs"), ("item", "Home"), ("item", "Docs")]


def test_an_unclosed_paragraph_runs_to_where_the_parser_closes_it():
    # html.parser (as its tree builders) does not close a <p> at the next <p>: the first
    # holds the second, and both end with the page.
    assert spans("<p>one<p>two") == [("paragraph", "one\n\ntwo"), ("paragraph", "two")]


def test_a_docbook_pages_program_listings_are_code_blocks():
    document = ReadableHTMLLoader(PGDOC / "ddl-alter.html").load()[0]
    code = [document.page_content[s:e] for s, e, kind in document.metadata["blocks"] if kind == "code"]
    assert "ALTER TABLE products ADD COLUMN description text;" in code


def test_a_50_mb_single_paragraph_is_one_block(tmp_path):
    page = tmp_path / "big.html"
    page.write_text("<p>" + "word " * 10_000_000 + "</p>")
    document = ReadableHTMLLoader(page).load()[0]
    assert document.metadata["blocks"] == [[0, len(document.page_content), "paragraph"]]


tags = st.sampled_from(["p", "h2", "pre", "li", "ul", "table", "td", "tr", "blockquote", "dl", "dd", "div", "b",
                        "nav"])
words = st.text(alphabet="ab \n", max_size=8)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.tuples(st.just("open"), tags), st.tuples(st.just("close"), tags),
                          st.tuples(st.just("text"), words)), max_size=25))
def test_every_block_lies_in_the_text_and_begins_and_ends_on_text(events):
    html = "".join(f"<{value}>" if what == "open" else f"</{value}>" if what == "close" else value
                   for what, value in events)
    scan = scan_page(html)
    for start, end, kind in scan.blocks:
        assert 0 <= start < end <= len(scan.text)
        inner = scan.text[start:end]
        # Some text, and whole lines: never a line break at either end (a <pre>'s leading
        # spaces are its text, in its block and in the blocks around it).
        assert inner.strip() and not inner.startswith("\n") and not inner.endswith("\n")
        assert start == 0 or scan.text[start - 1] == "\n"
    assert [b[0] for b in scan.blocks] == sorted(b[0] for b in scan.blocks)
