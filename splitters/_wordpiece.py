"""Token ids, offsets and texts for a BERT WordPiece tokenizer, exactly as ``tokenizers`` gives them, faster.

The ``tokenizers`` library encodes a whole text per call, building alignment data for
every character; decoding a window of ids is another call. Both are exact but cost about
a microsecond per token. What makes a shortcut exact here:

- A BERT tokenizer never joins text across a space, tab, newline or carriage return: its
  normaliser maps them to spaces (and changes nothing else across them) and its
  pre-tokeniser splits there. A text's ids are therefore its *segments'* ids (runs
  between those four characters) one after another, and segments repeat a lot: they are
  cached.
- A segment of printable ASCII without ``[`` (which could start a special token such as
  ``[MASK]``) is only lowercased, cut before and after each punctuation character, and
  each word is handed to the WordPiece model: that is done here with one regex, and the
  model is asked once per distinct word. Other segments are encoded by ``tokenizers``.
- The WordPiece decoder writes each token on its own (``##`` removed, or a space before
  it, then its clean-up), so a window's text is the first token's text followed by the
  others' "continuing" texts: two tables over the vocabulary, read once from the decoder.

Tests compare ids, offsets and texts with ``tokenizers``' own on real and generated text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import chain
from typing import Any

__all__ = ["WordPieceTokens"]

_SEGMENT = re.compile(r"[^\t\n\r ]+")
# Printable ASCII but "[": handled here (lowercase, punctuation, WordPiece) exactly.
_SIMPLE_SEGMENT = re.compile(r"[!-Z\\-~]+").fullmatch
# After lowercasing: runs of letters and digits, or one ASCII punctuation character.
_ASCII_WORD = re.compile(r"[a-z0-9]+|[!-/:-@\[-`{-~]")


class _Cache(dict):  # type: ignore[type-arg]
    """``compute(key)`` remembered per key; emptied when it holds ``max_entries`` keys."""

    __slots__ = ("compute", "max_entries")

    def __init__(self, compute: Callable[[str], Any], max_entries: int = 1 << 17) -> None:
        super().__init__()
        self.compute = compute
        self.max_entries = max_entries

    def __missing__(self, key: str) -> Any:
        value = self.compute(key)
        if len(self) >= self.max_entries:
            self.clear()
        self[key] = value
        return value


class WordPieceTokens:
    """Encode (without special tokens) and decode windows with a BERT ``tokenizers.Tokenizer``.

    The tokenizer must be BERT's pipeline (BertNormalizer with lowercasing,
    BertPreTokenizer, a WordPiece model and decoder) with truncation and padding off.
    Each cache (segments' ids, segments' offsets, words' pieces) holds up to 131,072
    entries and is emptied when full: all of SciFact (96,201 distinct segments) fits,
    in about 40 MB with the decoding tables.

    >>> from splitters.sentence_transformers import minilm_tokenizer
    >>> tokens = WordPieceTokens(minilm_tokenizer())
    >>> tokens.decode(tokens.encode("Unaffable cats"))
    'unaffable cats'
    """

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self._wordpiece = tokenizer.model.tokenize
        self._segment_ids = _Cache(self._ids_of_segment)
        self._segment_starts = _Cache(self._starts_of_segment)
        self._word_tokens = _Cache(self._tokens_of_word)
        self._texts: tuple[list[str], list[str]] | None = None

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``, without ``[CLS]``/``[SEP]``."""
        return list(chain.from_iterable(map(self._segment_ids.__getitem__, _SEGMENT.findall(text))))

    def encode_with_starts(self, text: str) -> tuple[list[int], list[int]]:
        """The ids of ``text`` and the character offset where each token begins."""
        ids: list[int] = []
        starts: list[int] = []
        segment_ids = self._segment_ids
        segment_starts = self._segment_starts
        for match in _SEGMENT.finditer(text):
            segment = match.group()
            ids.extend(segment_ids[segment])
            offset = match.start()
            starts.extend([offset + start for start in segment_starts[segment]])
        return ids, starts

    def decode(self, ids: list[int]) -> str:
        """The decoder's text for ``ids`` (special tokens kept), as ``tokenizer.decode``."""
        if not ids:
            return ""
        first, rest = self._decoded_texts()
        return first[ids[0]] + "".join(map(rest.__getitem__, ids[1:]))

    def _decoded_texts(self) -> tuple[list[str], list[str]]:
        """Per id: its text first in a sequence, and its text after another token."""
        if self._texts is None:
            tokenizer = self.tokenizer
            size = tokenizer.get_vocab_size(with_added_tokens=True)
            first = tokenizer.decode_batch([[i] for i in range(size)], skip_special_tokens=False)
            anchor = tokenizer.token_to_id("a")
            width = len(first[anchor])
            pairs = tokenizer.decode_batch([[anchor, i] for i in range(size)], skip_special_tokens=False)
            self._texts = first, [pair[width:] for pair in pairs]
        return self._texts

    def _tokens_of_word(self, word: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The WordPiece ids of ``word`` and where each begins in it."""
        tokens = self._wordpiece(word)
        return tuple(token.id for token in tokens), tuple(token.offsets[0] for token in tokens)

    def _ids_of_segment(self, segment: str) -> tuple[int, ...]:
        if _SIMPLE_SEGMENT(segment):
            words = _ASCII_WORD.findall(segment.lower())
            return tuple(chain.from_iterable(self._word_tokens[word][0] for word in words))
        return tuple(self.tokenizer.encode(segment, add_special_tokens=False).ids)

    def _starts_of_segment(self, segment: str) -> tuple[int, ...]:
        if _SIMPLE_SEGMENT(segment):
            return tuple(
                match.start() + start
                for match in _ASCII_WORD.finditer(segment.lower())
                for start in self._word_tokens[match.group()][1]
            )
        encoding = self.tokenizer.encode(segment, add_special_tokens=False)
        return tuple(start for start, _ in encoding.offsets)
