"""Token counts as lengths, and :class:`TokenTextSplitter` (windows of tiktoken tokens)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, Literal

from rag.errors import ValidationError
from splitters._length import CachedLength
from splitters.base import TextSplitter, check_text, locate_chunks
from splitters.encodings import encoding_for_model, get_encoding

if TYPE_CHECKING:
    import tiktoken

__all__ = ["TiktokenLength", "TokenTextSplitter", "tiktoken_length"]

DEFAULT_ENCODING = "cl100k_base"

Special = Literal["all"] | Collection[str]


def _resolve_encoding(encoding_name: str, model_name: str | None) -> tiktoken.Encoding:
    if model_name is not None:
        return encoding_for_model(model_name)
    return get_encoding(encoding_name)


# Encodings whose pre-tokeniser always starts a new pre-token at a space that sits between two
# non-space characters (checked against their patterns; see TiktokenLength).
_SPACE_SPLIT_ENCODINGS = frozenset({"cl100k_base", "o200k_base"})

# A space next to other whitespace, where pre-tokens may straddle the space.
_SPACE_BESIDE_WHITESPACE = re.compile(r"\s | \s")


class TiktokenLength(CachedLength):
    """Token counts (cached) computed without encoding long texts twice.

    Two exact shortcuts, both resting on how tiktoken encodes: it cuts text into
    pre-tokens with a regex that has no lookbehind, then encodes each pre-token alone.

    - Word sums: in ``cl100k_base``/``o200k_base`` a space between two non-whitespace
      characters always begins a new pre-token (every alternative of their patterns either
      starts at such a space or stops before it). So a long text whose spaces all sit
      between non-whitespace characters has exactly the tokens of its pieces
      ``first, " w2", " w3", ...`` together, and those pieces are cached.
    - Suffixes: once the pre-tokens of a text and of its suffix end at the same position,
      everything after is identical; the suffix's count is the parent's minus the
      pre-tokens before that point plus its own.
    """

    __slots__ = ("encoding", "spaced", "_pretokens", "_piece_tokens", "_word_sums")

    def __init__(self, measure: Any, encoding: tiktoken.Encoding, *, suffixes: bool) -> None:
        super().__init__(measure)
        self.encoding = encoding
        self._pretokens = None
        self._piece_tokens = None
        self._word_sums = suffixes and encoding.name in _SPACE_SPLIT_ENCODINGS
        # Counts of " " + word, keyed by word (shared with the splitter's " " pieces).
        self.spaced = CachedLength(lambda word: measure(" " + word))
        encode_piece = getattr(encoding, "_encode_single_piece", None)
        pattern = getattr(encoding, "_pat_str", "")
        if suffixes and encode_piece is not None and "(?<" not in pattern:
            try:
                import regex  # tiktoken's own dependency; its syntax matches tiktoken's

                self._pretokens = regex.compile(pattern).finditer
                self._piece_tokens = CachedLength(lambda piece: len(encode_piece(piece)))
            except ImportError:  # pragma: no cover - tiktoken requires regex
                pass

    def compute(self, text: str) -> int:
        if self._word_sums and len(text) > self.max_key_chars:
            total = self._sum_of_words(text)
            if total is not None:
                return total
        return self.measure(text)

    def _sum_of_words(self, text: str) -> int | None:
        if " " not in text or text[0] == " " or text[-1] == " ":
            return None
        if _SPACE_BESIDE_WHITESPACE.search(text):
            return None
        words = text.split(" ")
        return self[words[0]] + sum(map(self.spaced.__getitem__, words[1:]))

    def suffix_length(
        self, parent: str, parent_length: int, offset: int, max_steps: int = 16
    ) -> int | None:
        """Tokens in ``parent[offset:]`` given ``parent`` has ``parent_length``; None if unsure."""
        if self._pretokens is None or (not parent.isascii() and _has_unassigned(parent)):
            return None
        piece_tokens = self._piece_tokens
        parent_matches = self._pretokens(parent)
        child_matches = self._pretokens(parent, offset)
        parent_end, child_end = 0, offset
        parent_tokens = child_tokens = 0
        for _ in range(max_steps):
            if parent_end == child_end and parent_end >= offset:
                return parent_length - parent_tokens + child_tokens
            # Matching from `offset` in the parent is matching the suffix alone: without
            # lookbehind nothing before `offset` is seen, and the string end is the same.
            if parent_end < child_end:
                match = next(parent_matches, None)
                if match is None:
                    return None
                parent_end = match.end()
                parent_tokens += piece_tokens[match.group()]
            else:
                match = next(child_matches, None)
                if match is None:
                    return None
                child_end = match.end()
                child_tokens += piece_tokens[match.group()]
        return None


def _has_unassigned(text: str) -> bool:
    """True when ``text`` holds a code point unassigned in Python's Unicode database.

    The pre-tokenizer (the ``regex`` module) may know such a character as a letter while
    the encoder does not, so their piece boundaries can differ around it: the suffix
    count is then not derived. Each distinct character is checked once (``set`` is C-fast).
    """
    return any(unicodedata.category(char) == "Cn" for char in set(text) if char > "\x7f")


def tiktoken_length(
    encoding_name: str = DEFAULT_ENCODING,
    model_name: str | None = None,
    allowed_special: Special | None = None,
    disallowed_special: Special = "all",
) -> CachedLength:
    """A length function counting tiktoken tokens, caching the counts of repeated pieces.

    Special-token handling is tiktoken's: with the default ``disallowed_special="all"`` a
    text containing e.g. ``<|endoftext|>`` raises ValueError, as in LangChain.

    >>> tiktoken_length()("hello world")
    2
    """
    encoding = _resolve_encoding(encoding_name, model_name)
    allowed = set() if allowed_special is None else allowed_special
    encode = encoding.encode

    def count_tokens(text: str) -> int:
        return len(encode(text, allowed_special=allowed, disallowed_special=disallowed_special))

    if not allowed and disallowed_special == "all":
        # The default settings: tiktoken's encode() rebuilds the special-token set and its
        # regex on every call, which costs more than encoding a word. Search once with a
        # prebuilt regex; text holding a special token goes through encode(), which raises
        # exactly as tiktoken does.
        import regex

        specials = regex.compile("|".join(regex.escape(token) for token in encoding.special_tokens_set))
        has_special = specials.search
        encode_ordinary = encoding.encode_ordinary
        general = count_tokens

        def count_tokens(text: str) -> int:
            if has_special(text):
                return general(text)
            return len(encode_ordinary(text))

    # Allowed special tokens cut the text before pre-tokenising: no suffix arithmetic then.
    return TiktokenLength(count_tokens, encoding, suffixes=not allowed)


class TokenTextSplitter(TextSplitter):
    """Split text into windows of ``chunk_size`` tiktoken tokens overlapping by ``chunk_overlap``.

    Each window of token ids is decoded back to text (a window that decodes to ``""`` is
    skipped); whitespace is not stripped. Chunks equal langchain-text-splitters 1.1.3's for
    the same encoding. Differences: the default encoding is ``cl100k_base`` (LangChain's
    ``gpt2`` cannot be loaded offline); ``chunk_overlap == chunk_size`` is refused here at
    construction rather than on first split; ``start_index`` is the offset of the window's
    first token.

    >>> TokenTextSplitter(chunk_size=2, chunk_overlap=0).split_text("hello big world")
    ['hello big', ' world']
    """

    def __init__(
        self,
        encoding_name: str = DEFAULT_ENCODING,
        model_name: str | None = None,
        allowed_special: Special | None = None,
        disallowed_special: Special = "all",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if self._chunk_size <= self._chunk_overlap:
            raise ValidationError(
                "tokens_per_chunk must be greater than chunk_overlap: got chunk_size "
                f"{self._chunk_size} and chunk_overlap {self._chunk_overlap}"
            )
        self._tokenizer = _resolve_encoding(encoding_name, model_name)
        self._allowed_special = set() if allowed_special is None else allowed_special
        self._disallowed_special = disallowed_special

    @classmethod
    def from_tiktoken_encoder(  # type: ignore[override]
        cls,
        encoding_name: str = DEFAULT_ENCODING,
        model_name: str | None = None,
        allowed_special: Special | None = None,
        disallowed_special: Special = "all",
        **kwargs: Any,
    ) -> TokenTextSplitter:
        """A token splitter on the given encoding (which also measures lengths)."""
        length_function = tiktoken_length(
            encoding_name, model_name, allowed_special, disallowed_special
        )
        return cls(
            encoding_name=encoding_name,
            model_name=model_name,
            allowed_special=allowed_special,
            disallowed_special=disallowed_special,
            length_function=length_function,
            **kwargs,
        )

    def _encode(self, text: str) -> list[int]:
        return self._tokenizer.encode(
            text,
            allowed_special=self._allowed_special,
            disallowed_special=self._disallowed_special,
        )

    def _windows(self, token_count: int) -> range:
        """Start indices of the token windows."""
        if token_count == 0:
            return range(0)
        step = self._chunk_size - self._chunk_overlap
        # The last window is the first one that reaches the end.
        last = max(0, -(-(token_count - self._chunk_size) // step)) * step
        return range(0, last + 1, step)

    def split_text(self, text: str) -> list[str]:
        return self.split_text_with_starts(text, with_starts=False)[0]

    def split_text_with_starts(
        self, text: str, *, with_starts: bool = True
    ) -> tuple[list[str], list[int]]:
        if with_starts and type(self).split_text is not TokenTextSplitter.split_text:
            # A subclass changed split_text: honour it, and locate its chunks.
            return TextSplitter.split_text_with_starts(self, text)
        check_text(text)
        ids = self._encode(text)
        decode = self._tokenizer.decode
        size = self._chunk_size
        chunks: list[str] = []
        first_tokens: list[int] = []
        for first in self._windows(len(ids)):
            chunk = decode(ids[first : first + size])
            if chunk:
                chunks.append(chunk)
                first_tokens.append(first)
        if not with_starts:
            return chunks, []
        decoded, offsets = self._tokenizer.decode_with_offsets(ids)
        if decoded != text:
            # Text tiktoken cannot round-trip (e.g. lone surrogates): search instead.
            return chunks, locate_chunks(text, chunks)
        return chunks, [offsets[first] for first in first_tokens]
