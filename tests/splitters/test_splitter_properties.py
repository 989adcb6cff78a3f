"""Properties every chunking must have: true offsets, order, coverage, size bounds."""

from __future__ import annotations

import logging

from hypothesis import given, settings
from hypothesis import strategies as st

from splitters import CharacterTextSplitter, RecursiveCharacterTextSplitter

texts = st.one_of(
    st.text(alphabet="ab \n\t.", max_size=300),
    st.lists(st.sampled_from(["ab", " ", "\n", "\n\n", "ab ab", "x" * 12, "  "]), max_size=80).map(
        "".join
    ),
)


@st.composite
def sizes(draw: st.DrawFn) -> tuple[int, int]:
    chunk_size = draw(st.integers(1, 50))
    return chunk_size, draw(st.integers(0, chunk_size))


def _documents(splitter, text):
    return splitter.create_documents([text])


@settings(deadline=None, max_examples=100)
@given(text=texts, size=sizes(), keep=st.sampled_from([True, "start", "end"]), strip=st.booleans())
def test_start_index_points_at_the_chunk_in_the_source(text, size, keep, strip):
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=size[0], chunk_overlap=size[1], keep_separator=keep,
        strip_whitespace=strip, add_start_index=True,
    )
    for document in _documents(splitter, text):
        start = document.metadata["start_index"]
        assert text[start : start + len(document.page_content)] == document.page_content


@settings(deadline=None, max_examples=100)
@given(text=texts, size=sizes(), keep=st.sampled_from([True, "start", "end"]))
def test_start_indices_never_go_backwards(text, size, keep):
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=size[0], chunk_overlap=size[1], keep_separator=keep, add_start_index=True
    )
    starts = [document.metadata["start_index"] for document in _documents(splitter, text)]
    assert starts == sorted(starts)


@settings(deadline=None, max_examples=100)
@given(text=texts, size=sizes(), keep=st.sampled_from([True, "start", "end"]))
def test_chunks_cover_every_non_whitespace_character(text, size, keep):
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=size[0], chunk_overlap=size[1], keep_separator=keep, add_start_index=True
    )
    covered = set()
    for document in _documents(splitter, text):
        start = document.metadata["start_index"]
        covered.update(range(start, start + len(document.page_content)))
    assert {i for i, char in enumerate(text) if not char.isspace()} <= covered


@settings(deadline=None, max_examples=100)
@given(text=texts, size=sizes(), keep=st.sampled_from([True, False, "start", "end"]))
def test_recursive_chunks_fit_chunk_size_when_characters_can_be_cut(text, size, keep):
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=size[0], chunk_overlap=size[1], keep_separator=keep
    )
    assert all(len(chunk) <= size[0] for chunk in splitter.split_text(text))


@settings(deadline=None, max_examples=100)
@given(text=texts, size=sizes())
def test_a_chunk_over_size_is_one_piece_no_separator_splits(text, size):
    separators = ["\n\n", "\n", " "]
    splitter = RecursiveCharacterTextSplitter(
        separators=separators, chunk_size=size[0], chunk_overlap=size[1], keep_separator=False
    )
    for chunk in splitter.split_text(text):
        if len(chunk) > size[0]:
            assert not any(separator in chunk for separator in separators)


@settings(deadline=None, max_examples=100)
@given(text=texts, size=sizes(), separator=st.sampled_from([" ", "\n", "ab"]))
def test_character_start_index_is_where_the_chunk_begins(text, size, separator):
    # With separators dropped, a chunk need not be a substring, but it begins at its start.
    splitter = CharacterTextSplitter(
        separator=separator, chunk_size=size[0], chunk_overlap=size[1], add_start_index=True
    )
    starts = []
    for document in _documents(splitter, text):
        start = document.metadata["start_index"]
        assert text[start] == document.page_content[0]
        starts.append(start)
    assert starts == sorted(starts)


def test_repeated_text_gets_distinct_true_offsets():
    # LangChain's str.find puts both chunks at 0.
    splitter = RecursiveCharacterTextSplitter(chunk_size=4, chunk_overlap=3, add_start_index=True)
    documents = splitter.create_documents(["ab ab"])
    assert [(d.page_content, d.metadata["start_index"]) for d in documents] == [("ab", 0), ("ab", 3)]


def test_repeated_paragraphs_get_their_own_offsets():
    text = "same words here\n\nsame words here\n\nsame words here"
    splitter = RecursiveCharacterTextSplitter(chunk_size=16, chunk_overlap=0, add_start_index=True)
    starts = [d.metadata["start_index"] for d in splitter.create_documents([text])]
    assert starts == [0, 17, 34]


def test_oversized_piece_is_kept_whole_with_a_warning(caplog):
    splitter = CharacterTextSplitter(separator=" ", chunk_size=5, chunk_overlap=0)
    with caplog.at_level(logging.WARNING, logger="splitters"):
        chunks = splitter.split_text("tiny enormousword end")
    assert chunks == ["tiny", "enormousword", "end"]
    assert "Created a chunk of size 12, which is longer than the specified 5" in caplog.text
