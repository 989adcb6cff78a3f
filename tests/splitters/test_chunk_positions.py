"""A document's headings become each chunk's section, anchor and inner headings."""

from hypothesis import given, settings
from hypothesis import strategies as st

from rag import Document
from splitters import RecursiveCharacterTextSplitter
from splitters._headings import chunk_position

TEXT = "Intro\n\nAlpha words here.\n\nUsage\n\n" + "Beta words there. " * 20
HEADINGS = [[0, "Intro", "intro"], [TEXT.index("Usage"), "Usage", None]]


def split(**kwargs):
    splitter = RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=40, **kwargs)
    return splitter.split_documents([Document(TEXT, {"source": "p.html", "headings": HEADINGS})])


def test_each_chunk_gets_the_section_and_anchor_it_starts_in():
    chunks = split(add_start_index=True)
    for chunk in chunks:
        usage = chunk.metadata["start_index"] >= HEADINGS[1][0]
        assert chunk.metadata["section"] == ("Usage" if usage else "Intro")
        assert ("anchor" in chunk.metadata) == (not usage)


def test_the_pages_list_of_headings_is_not_copied_into_chunks():
    chunks = split(add_start_index=True)
    inner = [chunk.metadata.get("headings") for chunk in chunks]
    assert sum(1 for h in inner if h) == 1  # only the chunk holding "Usage" lists it
    holder = next(chunk for chunk in chunks if chunk.metadata.get("headings"))
    offset, title, anchor = holder.metadata["headings"][0]
    assert holder.page_content[offset:offset + 5] == "Usage" and anchor is None


def test_positions_do_not_need_add_start_index():
    assert all("section" in chunk.metadata and "start_index" not in chunk.metadata for chunk in split())


def test_a_chunk_before_the_first_heading_has_no_section():
    assert chunk_position([[100, "Later", "l"]], 0, 50) == {}


def test_malformed_headings_give_no_position_rather_than_an_error():
    assert chunk_position("not a list", 0, 10) == {}
    assert chunk_position([[0, "Ok", None], ["x", 1, 2]], 5, 10) == {"section": "Ok"}


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 500), min_size=1, max_size=8, unique=True), st.integers(0, 500), st.integers(1, 200))
def test_inner_headings_are_those_within_the_chunk_and_the_section_precedes_it(offsets, start, length):
    headings = [[o, f"h{o}", None] for o in sorted(offsets)]
    position = chunk_position(headings, start, length)
    before = [o for o in offsets if o <= start]
    assert position.get("section") == (f"h{max(before)}" if before else None)
    inside = sorted(o for o in offsets if start < o < start + length)
    assert [h[0] + start for h in position.get("headings", [])] == inside
