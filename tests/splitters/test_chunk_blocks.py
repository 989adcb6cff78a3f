"""A document's blocks (``[start, end, kind]`` spans a loader recorded) become the blocks
inside each chunk: clipped to the chunk and re-based to its text."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from loaders import ReadableHTMLLoader
from rag import Document
from splitters import RecursiveCharacterTextSplitter
from splitters._headings import chunk_blocks

PGDOC = Path(__file__).parents[1] / "rag" / "data" / "pgdoc"

TEXT = "Title\n\n" + "First paragraph words. " * 8 + "\n\n- one\n- two\n\n" + "Last paragraph. " * 10
BLOCKS = [[0, 5, "heading"], [7, 7 + 23 * 8 - 1, "paragraph"]]
_list_start = TEXT.index("- one")
BLOCKS += [[_list_start, _list_start + 11, "list"], [_list_start, _list_start + 5, "item"],
           [_list_start + 6, _list_start + 11, "item"], [TEXT.index("Last"), len(TEXT) - 1, "paragraph"]]


def split(text=TEXT, blocks=BLOCKS, **kwargs):
    splitter = RecursiveCharacterTextSplitter(chunk_size=120, chunk_overlap=30, add_start_index=True, **kwargs)
    return splitter.split_documents([Document(text, {"source": "p.md", "blocks": blocks})])


def test_each_chunk_block_holds_the_part_of_the_documents_block_inside_the_chunk():
    for chunk in split():
        offset = chunk.metadata["start_index"]
        for start, end, kind in chunk.metadata["blocks"]:
            original = next(b for b in BLOCKS if b[2] == kind and b[0] <= offset + start and offset + end <= b[1])
            assert chunk.page_content[start:end] == TEXT[offset + start:offset + end]
            assert original[0] <= offset + start < offset + end <= original[1]


def test_a_paragraph_cut_by_a_chunk_boundary_is_clipped_to_the_chunk():
    chunks = split()
    cut = [chunk for chunk in chunks if any(kind == "paragraph" and end == len(chunk.page_content)
                                            for _, end, kind in chunk.metadata.get("blocks", []))]
    assert cut, "a paragraph longer than a chunk ends some chunk's blocks at its end"


def test_the_documents_list_of_blocks_is_not_copied_into_chunks():
    assert all(chunk.metadata.get("blocks") != BLOCKS for chunk in split())


def test_a_chunk_overlapping_no_block_has_no_blocks_key():
    text = "plain words " * 30
    chunks = split(text=text, blocks=[[0, 11, "paragraph"]])
    assert "blocks" in chunks[0].metadata
    assert all("blocks" not in chunk.metadata for chunk in chunks[1:])


def test_blocks_alone_give_chunks_their_blocks_without_add_start_index():
    splitter = RecursiveCharacterTextSplitter(chunk_size=120, chunk_overlap=30)
    chunks = splitter.split_documents([Document(TEXT, {"blocks": BLOCKS})])
    assert chunks[0].metadata["blocks"][0] == [0, 5, "heading"] and "start_index" not in chunks[0].metadata


def test_malformed_blocks_give_no_blocks_rather_than_an_error():
    for blocks in ("nonsense", [[1, "x", "paragraph"]], [[5, 2, "paragraph"]], [None], [[0, 3]]):
        assert all("blocks" not in chunk.metadata for chunk in split(blocks=blocks))


def test_a_real_pages_code_blocks_reach_its_chunks_with_the_same_text():
    document = ReadableHTMLLoader(PGDOC / "ddl-alter.html").load()[0]
    chunks = RecursiveCharacterTextSplitter(chunk_size=400, chunk_overlap=80, add_start_index=True) \
        .split_documents([document])
    code = [document.page_content[s:e] for s, e, kind in document.metadata["blocks"] if kind == "code"]
    seen = [chunk.page_content[s:e] for chunk in chunks for s, e, kind in chunk.metadata.get("blocks", [])
            if kind == "code"]
    assert code and all(any(piece in whole for whole in code) for piece in seen)
    assert set(code) <= set(seen) | {c for c in code if len(c) > 400}


spans = st.lists(st.tuples(st.integers(0, 200), st.integers(1, 80)), max_size=12).map(
    lambda pairs: sorted((start, start + length) for start, length in pairs))


@settings(max_examples=100, deadline=None)
@given(spans, st.lists(st.tuples(st.integers(0, 250), st.integers(1, 100)), min_size=1, max_size=10))
def test_a_chunk_gets_exactly_the_blocks_overlapping_it_clipped(block_spans, chunk_pairs):
    blocks = [[start, end, "paragraph"] for start, end in block_spans]
    chunks = sorted(chunk_pairs)
    for (start, length), inside in zip(chunks, chunk_blocks(blocks, chunks)):
        expected = sorted([max(s, start) - start, min(e, start + length) - start]
                          for s, e in block_spans if min(e, start + length) > max(s, start))
        assert sorted([s, e] for s, e, _ in inside) == expected


def test_one_paragraph_of_50_mb_gives_each_of_its_chunks_that_paragraph_clipped():
    length = 50_000_000
    spans_of_chunks = [(start, 1000) for start in range(0, length, 800)]  # 62,500 chunks, 200 overlap
    per_chunk = chunk_blocks([[0, length, "paragraph"]], spans_of_chunks)
    assert len(per_chunk) == len(spans_of_chunks)
    assert all(inside == [[0, min(1000, length - start), "paragraph"]]
               for (start, _), inside in zip(spans_of_chunks, per_chunk))
