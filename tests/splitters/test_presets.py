"""MarkdownTextSplitter, PythonCodeTextSplitter, LatexTextSplitter: LangChain's chunks, true offsets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import splitters
from splitters import (
    LatexTextSplitter,
    MarkdownTextSplitter,
    PythonCodeTextSplitter,
    RecursiveCharacterTextSplitter,
)

lc = pytest.importorskip("langchain_text_splitters")

PAIRS = {
    "markdown": (MarkdownTextSplitter, lc.MarkdownTextSplitter),
    "python": (PythonCodeTextSplitter, lc.PythonCodeTextSplitter),
    "latex": (LatexTextSplitter, lc.LatexTextSplitter),
}
KEEP_MODES = [True, False, "start", "end"]

# Fragments holding each preset's separators, as literals and as the regexes would match.
FRAGMENTS = {
    "markdown": ["\n# ", "\n### ", "```\n", "\n***\n", "\n----\n", "\n___\n", "\n#{1,6} ",
                 "\n\\*\\*\\*+\n", "\n---+\n", "word ", "longerword ", "\n", "\n\n", " ", "x"],
    "python": ["\nclass ", "\ndef ", "\n\tdef ", "    return x\n", "name = 1\n", "\n", "\n\n",
               " ", "x", "(a, b):"],
    "latex": ["\n\\chapter{", "\n\\section{", "\n\\subsection{", "\n\\begin{itemize}",
              "\n\\begin{verbatim}", "\n\\\\section{", "$$", "$", "E=mc^2", "word ", "}", " ",
              "\n", "x"],
}


def documents(kind: str) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(FRAGMENTS[kind]), max_size=60).map("".join)


@st.composite
def sizes(draw: st.DrawFn) -> tuple[int, int]:
    chunk_size = draw(st.integers(1, 60))
    return chunk_size, draw(st.integers(0, chunk_size))


@pytest.mark.parametrize("kind", sorted(PAIRS))
@settings(deadline=None, max_examples=50)
@given(data=st.data(), size=sizes(), keep=st.sampled_from(KEEP_MODES), regex=st.booleans())
def test_preset_chunks_equal_langchain(kind, data, size, keep, regex):
    text = data.draw(documents(kind))
    ours, reference = PAIRS[kind]
    kwargs = dict(
        chunk_size=size[0], chunk_overlap=size[1], keep_separator=keep, is_separator_regex=regex
    )
    assert ours(**kwargs).split_text(text) == reference(**kwargs).split_text(text)


@pytest.mark.parametrize("kind", sorted(PAIRS))
@pytest.mark.parametrize("size", [(1000, 200), (100, 20)])
def test_preset_chunks_of_real_text_equal_langchain(real_texts, kind, size):
    ours, reference = PAIRS[kind]
    ours, reference = ours(chunk_size=size[0], chunk_overlap=size[1]), reference(
        chunk_size=size[0], chunk_overlap=size[1]
    )
    for text in real_texts[:60]:
        markdown = "# " + text.replace("\n\n", "\n\n## Abstract\n\n", 1)
        assert ours.split_text(markdown) == reference.split_text(markdown)


@pytest.mark.parametrize("kind", sorted(PAIRS))
@settings(deadline=None, max_examples=50)
@given(data=st.data(), size=sizes(), keep=st.sampled_from([True, "start", "end"]))
def test_preset_start_index_points_at_the_chunk_in_the_source(kind, data, size, keep):
    text = data.draw(documents(kind))
    splitter = PAIRS[kind][0](
        chunk_size=size[0], chunk_overlap=size[1], keep_separator=keep, add_start_index=True
    )
    for document in splitter.create_documents([text]):
        start = document.metadata["start_index"]
        assert text[start : start + len(document.page_content)] == document.page_content


def test_markdown_headings_do_not_cut_by_default_as_in_langchain():
    splitter = MarkdownTextSplitter(chunk_size=20, chunk_overlap=0)
    assert splitter.split_text("Intro line\n## Two\nbody two") == ["Intro line\n## Two", "body two"]


def test_markdown_headings_cut_with_regex_separators():
    splitter = MarkdownTextSplitter(chunk_size=20, chunk_overlap=0, is_separator_regex=True)
    assert splitter.split_text("Intro line\n## Two\nbody two") == ["Intro line", "## Two\nbody two"]


def test_python_splitter_cuts_before_definitions():
    code = "class A:\n    x = 1\n\ndef f():\n    return 2\n"
    chunks = PythonCodeTextSplitter(chunk_size=25, chunk_overlap=0).split_text(code)
    assert chunks == ["class A:\n    x = 1", "def f():\n    return 2"]


def test_presets_are_the_language_separators():
    assert MarkdownTextSplitter()._separators == RecursiveCharacterTextSplitter.get_separators_for_language("markdown")
    assert LatexTextSplitter()._separators == RecursiveCharacterTextSplitter.get_separators_for_language("latex")
    assert PythonCodeTextSplitter()._separators == RecursiveCharacterTextSplitter.get_separators_for_language("python")


def test_separators_cannot_be_given_to_a_preset_splitter():
    with pytest.raises(TypeError, match="separators"):
        PythonCodeTextSplitter(separators=["\n"])


def test_repeated_chunks_get_their_own_start_index_where_langchain_repeats_the_first():
    """LangChain searches from the previous chunk's end minus the overlap, so with an overlap
    longer than the chunk it finds the first "ab" twice; ours tracks offsets while splitting."""
    kwargs = dict(chunk_size=4, chunk_overlap=3, add_start_index=True)
    ours = MarkdownTextSplitter(**kwargs).create_documents(["ab ab"])
    reference = lc.MarkdownTextSplitter(**kwargs).create_documents(["ab ab"])
    assert [d.metadata["start_index"] for d in ours] == [0, 3]
    assert [d.metadata["start_index"] for d in reference] == [0, 0]


def test_the_new_splitters_are_exported_from_the_package():
    for name in [
        "MarkdownTextSplitter", "PythonCodeTextSplitter", "LatexTextSplitter",
        "JSFrameworkTextSplitter", "RecursiveJsonSplitter", "SentenceTransformersTokenTextSplitter",
    ]:
        assert name in splitters.__all__ and getattr(splitters, name).__name__ == name
