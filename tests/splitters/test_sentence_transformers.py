"""SentenceTransformersTokenTextSplitter on all-MiniLM-L6-v2: LangChain's token windows, exact offsets.

The reference is ``langchain_text_splitters.base.split_text_on_tokens`` with a ``Tokenizer``
that encodes with ``tokenizers`` (special tokens stripped, as LangChain's class strips them)
and decodes with its ``decode(ids, skip_special_tokens=False)`` (transformers' default).
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("tokenizers")
lc_base = pytest.importorskip("langchain_text_splitters.base")

from rag.errors import MissingDependencyError  # noqa: E402
from splitters import SentenceTransformersTokenTextSplitter  # noqa: E402
from splitters._wordpiece import WordPieceTokens  # noqa: E402
from splitters.sentence_transformers import minilm_tokenizer, token_windows  # noqa: E402

# Characters that exercise every step of BERT's pipeline: case, accents (precomposed and
# combining), CJK, punctuation (ASCII and not), control and format characters it removes,
# whitespace it maps or splits on, characters it does not know, and special-token text.
ALPHABET = (
    "abcXYZ019 \t\n\r.,;:!?'\"()[]-_/#@%&*+=<>`~^{}|\\"
    "éÉñüß\u0301\u0308東京中文ΣΟΔΟΣİ\u00a0\u2028\u200b\x00\x0b\x0c\x1f\x7f\x85\ufffd🚀😀—–…«»"
)
FRAGMENTS = ["[MASK]", "[CLS]", "[UNK]", "[mask]", "x[SEP]y", "unaffable", "don't", "naïve café",
             " ", "\n\n", "Hello", "WORLD", "p<0.001", "x" * 101, "3.14"]
texts = st.one_of(
    st.text(alphabet=ALPHABET, max_size=120),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(alphabet=ALPHABET, max_size=8)), max_size=25).map("".join),
)


@pytest.fixture(scope="module")
def tokenizer():
    return minilm_tokenizer()


@pytest.fixture(scope="module")
def tokens(tokenizer):
    """One WordPieceTokens for the module: its caches fill as examples come."""
    return WordPieceTokens(tokenizer)


def reference_chunks(tokenizer, text: str, tokens_per_chunk: int, chunk_overlap: int) -> list[str]:
    wrapped = lc_base.Tokenizer(
        chunk_overlap=chunk_overlap,
        tokens_per_chunk=tokens_per_chunk,
        decode=lambda ids: tokenizer.decode(ids, skip_special_tokens=False),
        encode=lambda text: tokenizer.encode(text).ids[1:-1],
    )
    return lc_base.split_text_on_tokens(text=text, tokenizer=wrapped)


@st.composite
def windows(draw: st.DrawFn) -> tuple[int, int]:
    tokens_per_chunk = draw(st.integers(1, 24))
    return tokens_per_chunk, draw(st.integers(0, tokens_per_chunk - 1))


@settings(deadline=None, max_examples=50)
@given(text=texts, window=windows())
def test_chunks_equal_langchains_split_text_on_tokens(tokenizer, text, window):
    tokens_per_chunk, chunk_overlap = window
    splitter = SentenceTransformersTokenTextSplitter(
        tokens_per_chunk=tokens_per_chunk, chunk_overlap=chunk_overlap
    )
    assert splitter.split_text(text) == reference_chunks(tokenizer, text, tokens_per_chunk, chunk_overlap)


@pytest.mark.parametrize("window", [(254, 50), (64, 16), (7, 0)])
def test_real_text_chunks_equal_langchains_split_text_on_tokens(tokenizer, real_texts, window):
    splitter = SentenceTransformersTokenTextSplitter(tokens_per_chunk=window[0], chunk_overlap=window[1])
    for text in real_texts:
        assert splitter.split_text(text) == reference_chunks(tokenizer, text, *window)


@settings(deadline=None, max_examples=50)
@given(text=texts)
def test_token_ids_and_offsets_equal_tokenizers(tokenizer, tokens, text):
    encoding = tokenizer.encode(text, add_special_tokens=False)
    assert tokens.encode(text) == encoding.ids
    assert tokens.encode_with_starts(text) == (encoding.ids, [start for start, _ in encoding.offsets])


def test_real_text_ids_and_offsets_equal_tokenizers(tokenizer, real_texts):
    tokens = WordPieceTokens(tokenizer)  # caches empty: every segment computed
    for text in real_texts:
        encoding = tokenizer.encode(text, add_special_tokens=False)
        assert tokens.encode_with_starts(text) == (encoding.ids, [start for start, _ in encoding.offsets])


@settings(deadline=None, max_examples=50)
@given(data=st.data())
def test_decoded_ids_equal_tokenizers_decode(tokenizer, tokens, data):
    size = tokenizer.get_vocab_size(with_added_tokens=True)
    ids = data.draw(st.lists(st.integers(0, size - 1), max_size=40))
    assert tokens.decode(ids) == tokenizer.decode(ids, skip_special_tokens=False)


def test_windows_are_split_text_on_tokens_windows():
    assert list(token_windows(10, 4, 1)) == [0, 3, 6]
    assert list(token_windows(4, 4, 2)) == [0]
    assert list(token_windows(0, 4, 2)) == []


def test_start_index_is_where_the_chunks_first_token_begins():
    splitter = SentenceTransformersTokenTextSplitter(
        tokens_per_chunk=2, chunk_overlap=1, add_start_index=True
    )
    documents = splitter.create_documents(["Héllo  big\tWORLD"])
    assert [(d.page_content, d.metadata["start_index"]) for d in documents] == [
        ("hello big", 0), ("big world", 7),
    ]


@settings(deadline=None, max_examples=50)
@given(text=texts, window=windows())
def test_start_index_is_the_first_tokens_offset(tokenizer, text, window):
    starts = [start for start, _ in tokenizer.encode(text, add_special_tokens=False).offsets]
    splitter = SentenceTransformersTokenTextSplitter(
        tokens_per_chunk=window[0], chunk_overlap=window[1]
    )
    chunks, chunk_starts = splitter.split_text_with_starts(text)
    assert chunks == splitter.split_text(text)
    assert chunk_starts == [starts[first] for first in token_windows(len(starts), *window)][: len(chunks)]


def test_count_tokens_includes_cls_and_sep(tokenizer):
    splitter = SentenceTransformersTokenTextSplitter()
    assert splitter.count_tokens(text="hello world") == 4
    assert splitter.count_tokens(text="Unaffable, naïve") == len(tokenizer.encode("Unaffable, naïve").ids)


def test_defaults_follow_langchain():
    splitter = SentenceTransformersTokenTextSplitter()
    assert splitter._chunk_overlap == 50
    assert splitter.maximum_tokens_per_chunk == 256
    assert splitter.model_name == "sentence-transformers/all-MiniLM-L6-v2"


def test_the_short_model_name_is_accepted():
    assert SentenceTransformersTokenTextSplitter(model_name="all-MiniLM-L6-v2").model_name == "all-MiniLM-L6-v2"


def test_tokenizer_is_the_local_models_with_truncation_and_padding_off():
    tokenizer = SentenceTransformersTokenTextSplitter().tokenizer
    assert tokenizer.truncation is None and tokenizer.padding is None


def test_empty_and_whitespace_text_give_no_chunks():
    splitter = SentenceTransformersTokenTextSplitter()
    assert splitter.split_text("") == [] and splitter.split_text(" \n\t ") == []


def test_default_tokens_per_chunk_leaves_room_for_cls_and_sep():
    """LangChain's default is the model's max_seq_length (256 here), which the model then
    truncates by two tokens once [CLS] and [SEP] are added; 254 fits whole."""
    assert SentenceTransformersTokenTextSplitter().tokens_per_chunk == 254


def test_tokens_per_chunk_above_the_model_limit_is_refused_with_langchains_message():
    with pytest.raises(ValueError, match=r"is: 256\. Argument tokens_per_chunk=257 > maximum token limit\."):
        SentenceTransformersTokenTextSplitter(tokens_per_chunk=257)


def test_overlap_not_below_tokens_per_chunk_is_refused_at_construction():
    """LangChain raises the same ValueError, but only on the first split_text."""
    with pytest.raises(ValueError, match="tokens_per_chunk must be greater than chunk_overlap"):
        SentenceTransformersTokenTextSplitter(tokens_per_chunk=10, chunk_overlap=10)


def test_other_models_are_refused():
    """LangChain downloads any sentence-transformers model (default all-mpnet-base-v2);
    only the local model's tokenizer is available here."""
    with pytest.raises(ValueError, match="model_name 'sentence-transformers/all-mpnet-base-v2' is not available offline"):
        SentenceTransformersTokenTextSplitter(model_name="sentence-transformers/all-mpnet-base-v2")


def test_model_kwargs_are_refused():
    """LangChain passes them to SentenceTransformer(...); no such model is loaded here."""
    with pytest.raises(ValueError, match="model_kwargs are not supported"):
        SentenceTransformersTokenTextSplitter(model_kwargs={"device": "cpu"})


def test_start_index_is_exact_where_langchain_reports_minus_one():
    """Chunks are lowercased tokenizer text, so LangChain's str.find of the chunk in the
    source fails; ours is the offset of the chunk's first token."""
    ours = SentenceTransformersTokenTextSplitter(tokens_per_chunk=2, chunk_overlap=0, add_start_index=True)

    class LangChainOffsets(lc_base.TextSplitter):
        def split_text(self, text):
            return ours.split_text(text)

    text = "Hello World Again"
    reference = LangChainOffsets(chunk_overlap=0, add_start_index=True).create_documents([text])
    assert [d.metadata["start_index"] for d in reference] == [-1, -1]
    assert [d.metadata["start_index"] for d in ours.create_documents([text])] == [0, 12]


def test_missing_tokenizers_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "ragpath\[local\]"'):
        SentenceTransformersTokenTextSplitter()
