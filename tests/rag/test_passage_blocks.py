"""A passage merged from overlapping chunks carries the blocks of its text, as its
document had them (a block cut between two chunks is one span again)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from loaders._page_scan import scan_page
from rag import Document
from rag.index.passages import merge_sources
from splitters import RecursiveCharacterTextSplitter

PAGE = ("<h1>Guide</h1><p>" + "Long paragraph words here. " * 12 + "</p><ul>" +
        "".join(f"<li>item number {n} of the list</li>" for n in range(8)) + "</ul><pre>make\nmake install</pre>")


def chunked(html: str, chunk_size: int, overlap: int) -> tuple[Document, list[Document]]:
    scan = scan_page(html)
    page = Document(scan.text or "", {"source": "p.html", "blocks": scan.blocks})
    splitter = RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=overlap, add_start_index=True)
    return page, splitter.split_documents([page])


def merged(html: str, chunk_size: int, overlap: int) -> tuple[Document, Document]:
    page, chunks = chunked(html, chunk_size, overlap)
    [passage] = merge_sources(chunks)
    return page, passage


def overlapping(chunks: list[Document]) -> bool:
    return all(later.metadata["start_index"] < earlier.metadata["start_index"] + len(earlier.page_content)
               for earlier, later in zip(chunks, chunks[1:]))


def test_a_passage_of_all_of_a_pages_chunks_has_the_pages_blocks():
    page, passage = merged(PAGE, 120, 40)
    assert passage.page_content == page.page_content
    assert passage.metadata["blocks"] == page.metadata["blocks"]


def test_a_single_chunk_keeps_its_own_blocks():
    page = Document("One.\n\nTwo.", {"source": "p", "start_index": 0, "blocks": [[0, 4, "paragraph"]]})
    assert merge_sources([page])[0].metadata["blocks"] == [[0, 4, "paragraph"]]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["<p>alpha beta gamma delta</p>", "<ul><li>one two</li><li>three four five</li></ul>",
                                 "<h2>Title here</h2>", "<pre>code line\nnext line</pre>", "<p>x</p>",
                                 "<ul><li>outer<ul><li>inner a</li><li>inner b</li></ul></li></ul>",
                                 "<table><tr><td>a b c d e f g h</td></tr><tr><td>i j k</td></tr></table>"]),
                min_size=1, max_size=14),
       st.integers(20, 80), st.integers(1, 40))
def test_overlapping_chunks_joined_give_back_the_documents_blocks(parts, chunk_size, overlap):
    page, chunks = chunked("".join(parts), chunk_size, min(overlap, chunk_size // 2))
    if overlapping(chunks):
        [passage] = merge_sources(chunks)
        assert passage.page_content == page.page_content
        assert passage.metadata.get("blocks", []) == page.metadata["blocks"]


def test_a_block_cut_where_chunks_do_not_overlap_stays_two_spans():
    # The splitter dropped the blank line between the chunks: whether the block before
    # it continues after it cannot be told from the chunks, so neither span is stretched.
    page, passage = merged("<ul><li>outer<ul><li>inner a</li><li>inner b</li></ul></li></ul>", 20, 4)
    assert passage.page_content == page.page_content
    assert [0, 5, "list"] in passage.metadata["blocks"] and [7, 22, "list"] in passage.metadata["blocks"]
