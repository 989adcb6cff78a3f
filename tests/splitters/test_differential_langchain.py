"""Differential specification: our chunks equal langchain-text-splitters 1.1.3's.

Runs whenever the test extra is installed (it pins langchain-text-splitters); the
importorskip is only a guard for a bare environment.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

lc = pytest.importorskip("langchain_text_splitters")

from splitters import (  # noqa: E402
    CharacterTextSplitter,
    Language,
    RecursiveCharacterTextSplitter,
    get_separators_for_language,
)

KEEP_MODES = [True, False, "start", "end"]

# Small alphabets make separators, repeats and whitespace runs frequent.
prose = st.text(alphabet="ab \n\t.", max_size=300)
words = st.lists(
    st.sampled_from(["a", "bb", "ccc", " ", "\n", "\n\n", "  ", "\t", "x y", "\n\n\n"]),
    max_size=120,
).map("".join)
texts = st.one_of(prose, words)


@st.composite
def sizes(draw: st.DrawFn) -> tuple[int, int]:
    chunk_size = draw(st.integers(1, 60))
    return chunk_size, draw(st.integers(0, chunk_size))


@settings(deadline=None, max_examples=100)
@given(text=texts, size=sizes(), keep=st.sampled_from(KEEP_MODES), strip=st.booleans())
def test_recursive_chunks_equal_langchain(text, size, keep, strip):
    chunk_size, chunk_overlap = size
    kwargs = dict(
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        keep_separator=keep,
        strip_whitespace=strip,
    )
    ours = RecursiveCharacterTextSplitter(**kwargs).split_text(text)
    assert ours == lc.RecursiveCharacterTextSplitter(**kwargs).split_text(text)


@settings(deadline=None, max_examples=100)
@given(
    text=texts,
    size=sizes(),
    keep=st.sampled_from(KEEP_MODES),
    separator=st.sampled_from(["\n\n", "\n", " ", "a", "ab", ".", ""]),
)
def test_character_chunks_equal_langchain(text, size, keep, separator):
    chunk_size, chunk_overlap = size
    kwargs = dict(
        separator=separator,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        keep_separator=keep,
    )
    ours = CharacterTextSplitter(**kwargs).split_text(text)
    assert ours == lc.CharacterTextSplitter(**kwargs).split_text(text)


@settings(deadline=None, max_examples=60)
@given(
    text=texts,
    size=sizes(),
    keep=st.sampled_from(KEEP_MODES),
    separator=st.sampled_from(
        [r"\s+", r"\n+", r"(?=b)", r"(?<=\.)", r"a|\.", r"b*", r"(?=b)b", r"(?<!a)\n"]
    ),
)
def test_character_regex_chunks_equal_langchain(text, size, keep, separator):
    chunk_size, chunk_overlap = size
    kwargs = dict(
        separator=separator,
        is_separator_regex=True,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        keep_separator=keep,
    )
    ours = CharacterTextSplitter(**kwargs).split_text(text)
    assert ours == lc.CharacterTextSplitter(**kwargs).split_text(text)


@settings(deadline=None, max_examples=60)
@given(
    text=texts,
    size=sizes(),
    keep=st.sampled_from(KEEP_MODES),
    separators=st.lists(
        st.sampled_from(["\n\n", "\n", " ", "", "a", "ab", "..", "b", "aa", "aba", " \n "]), max_size=5
    ),
)
def test_recursive_custom_separators_equal_langchain(text, size, keep, separators):
    chunk_size, chunk_overlap = size
    kwargs = dict(
        separators=separators,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        keep_separator=keep,
    )
    ours = RecursiveCharacterTextSplitter(**kwargs).split_text(text)
    assert ours == lc.RecursiveCharacterTextSplitter(**kwargs).split_text(text)


def _code_sample(language: Language) -> str:
    """Text containing every separator of the preset (with regex quantifiers exercised)."""
    pieces = []
    for separator in get_separators_for_language(language):
        literal = (
            separator.replace("\\(", "(")
            .replace("\\\\", "\\")
            .replace("\\*", "*")
            .replace("#{1,6}", "##")
            .replace("=+", "===")
            .replace("-+", "---")
            .replace("\\*+", "***")
            .replace("---+", "----")
            .replace("___+", "____")
            .replace(".. *", ".. ")
        )
        pieces.append(f"{literal}body of {language.value} block with some words\n")
    return "preamble line\n" + "".join(pieces) * 3


@pytest.mark.parametrize("language", [lang for lang in Language if lang is not Language.PERL])
@pytest.mark.parametrize("keep", KEEP_MODES)
@pytest.mark.parametrize("size", [(40, 0), (80, 20), (200, 50)])
def test_language_preset_chunks_equal_langchain(language, keep, size):
    chunk_size, chunk_overlap = size
    text = _code_sample(language)
    kwargs = dict(chunk_size=chunk_size, chunk_overlap=chunk_overlap, keep_separator=keep)
    ours = RecursiveCharacterTextSplitter.from_language(language, **kwargs).split_text(text)
    reference = lc.RecursiveCharacterTextSplitter.from_language(
        lc.Language(language.value), **kwargs
    ).split_text(text)
    assert ours == reference


@settings(deadline=None, max_examples=60)
@given(
    text=st.text(alphabet="abc \n#{}()=:;\tdefclass", max_size=400),
    language=st.sampled_from([Language.PYTHON, Language.MARKDOWN, Language.JS, Language.RST]),
    size=sizes(),
    keep=st.sampled_from(KEEP_MODES),
)
def test_language_preset_generated_code_equal_langchain(text, language, size, keep):
    chunk_size, chunk_overlap = size
    kwargs = dict(chunk_size=chunk_size, chunk_overlap=chunk_overlap, keep_separator=keep)
    ours = RecursiveCharacterTextSplitter.from_language(language, **kwargs).split_text(text)
    reference = lc.RecursiveCharacterTextSplitter.from_language(
        lc.Language(language.value), **kwargs
    ).split_text(text)
    assert ours == reference


def test_language_presets_equal_langchain():
    for language in Language:
        if language is Language.PERL:
            continue
        assert get_separators_for_language(language) == (
            lc.RecursiveCharacterTextSplitter.get_separators_for_language(lc.Language(language.value))
        ), language


def test_language_values_equal_langchain():
    assert [language.value for language in Language] == [language.value for language in lc.Language]


@pytest.mark.parametrize("size", [(1000, 200), (200, 20), (50, 10)])
@pytest.mark.parametrize("keep", KEEP_MODES)
def test_real_text_chunks_equal_langchain(real_texts, size, keep):
    chunk_size, chunk_overlap = size
    kwargs = dict(chunk_size=chunk_size, chunk_overlap=chunk_overlap, keep_separator=keep)
    ours = RecursiveCharacterTextSplitter(**kwargs)
    reference = lc.RecursiveCharacterTextSplitter(**kwargs)
    for text in real_texts:
        assert ours.split_text(text) == reference.split_text(text)
