"""Splitting at separators: :class:`CharacterTextSplitter` and the recursive splitter."""

from __future__ import annotations

from collections.abc import Callable
from operator import sub
from typing import Any, Literal

from rag.errors import InvalidTypeError
from splitters._length import CachedLength
from splitters._merge import merge_windows, prefix_sums
from splitters._scan import scan_merge
from splitters._separators import Separator
from splitters.base import TextSplitter, check_text
from splitters.languages import Language, get_separators_for_language
from splitters.tokens import TiktokenLength

__all__ = ["CharacterTextSplitter", "RecursiveCharacterTextSplitter"]


class _SeparatorSplitter(TextSplitter):
    """Shared machinery: measure pieces, merge runs of them, record where chunks start."""

    def split_text(self, text: str) -> list[str]:
        return self._chunks_and_starts(text)[0]

    def split_text_with_starts(self, text: str) -> tuple[list[str], list[int]]:
        if type(self).split_text is not _SeparatorSplitter.split_text:
            # A subclass changed split_text: honour it, and locate its chunks.
            return TextSplitter.split_text_with_starts(self, text)
        return self._chunks_and_starts(text)

    def _chunks_and_starts(self, text: str) -> tuple[list[str], list[int]]:
        check_text(text)
        chunks: list[str] = []
        starts: list[int] = []
        if text:
            self._split_span(text, 0, len(text), chunks, starts)
        return chunks, starts

    def _split_span(
        self, text: str, start: int, end: int, chunks: list[str], starts: list[int]
    ) -> None:
        raise NotImplementedError

    def _measurer(self) -> Callable[[str], int] | None:
        """None for ``len`` (lengths come from offsets); else the fastest per-piece call."""
        measure = self._length_function
        if measure is len:
            return None
        if isinstance(measure, CachedLength):
            return measure.__getitem__
        return measure

    def _measure(
        self, text: str, piece_starts: list[int], piece_ends: list[int]
    ) -> tuple[list[int], list[str] | None]:
        measure = self._measurer()
        if measure is None:
            return list(map(sub, piece_ends, piece_starts)), None
        pieces = list(map(text.__getitem__, map(slice, piece_starts, piece_ends)))
        return list(map(measure, pieces)), pieces

    def _merge_range(
        self,
        text: str,
        piece_starts: list[int],
        piece_ends: list[int],
        lengths: list[int],
        pieces: list[str] | None,
        low: int,
        high: int,
        joiner: str | None,
        chunks: list[str],
        starts: list[int],
    ) -> None:
        """Merge pieces ``low..high-1`` into chunks.

        ``joiner`` None means the pieces are contiguous in ``text`` (separators kept), so a
        chunk is a slice of the source; otherwise chunks are the pieces joined by it.
        """
        separator_len = 0 if joiner is None else self._length_function(joiner)
        strip = self._strip_whitespace
        if joiner is not None and pieces is None:
            pieces = list(map(text.__getitem__, map(slice, piece_starts, piece_ends)))
        windows = merge_windows(
            prefix_sums(lengths[low:high], separator_len),
            separator_len,
            self._chunk_size,
            self._chunk_overlap,
        )
        for first, stop in windows:
            first += low
            stop += low
            if joiner is None:
                raw = text[piece_starts[first] : piece_ends[stop - 1]]
            else:
                raw = joiner.join(pieces[first:stop])  # type: ignore[index]
            lead = 0
            if strip:
                chunk = raw.strip()
                if not chunk:
                    continue
                if raw[0].isspace():
                    lead = len(raw) - len(raw.lstrip())
            else:
                chunk = raw
            chunks.append(chunk)
            if joiner is None or lead == 0:
                starts.append(piece_starts[first] + lead)
            else:
                starts.append(
                    _source_offset(lead, piece_starts, piece_ends, first, stop, len(joiner))
                )


def _source_offset(
    lead: int,
    piece_starts: list[int],
    piece_ends: list[int],
    first: int,
    stop: int,
    joiner_len: int,
) -> int:
    """Map offset ``lead`` in pieces ``first..stop-1`` joined by a joiner to the source."""
    position = 0
    for index in range(first, stop):
        piece_len = piece_ends[index] - piece_starts[index]
        if lead < position + piece_len:
            return piece_starts[index] + lead - position
        position += piece_len
        if lead < position + joiner_len:
            # Inside a re-inserted separator: it stood right after this piece.
            return piece_ends[index] + lead - position
        position += joiner_len
    return piece_starts[first]


class CharacterTextSplitter(_SeparatorSplitter):
    """Split at one separator, then merge the pieces into chunks of at most ``chunk_size``.

    ``separator`` (default ``"\\n\\n"``) is a literal string, or a regular expression when
    ``is_separator_regex``; it is dropped unless ``keep_separator`` is set (see
    :class:`TextSplitter`). A piece longer than ``chunk_size`` becomes its own chunk, with
    a logged warning. Chunks equal langchain-text-splitters 1.1.3's. Differences: a regex
    with capturing groups is refused (use ``(?:...)``); ``start_index`` is exact.

    As in LangChain, with ``keep_separator=False`` a regex separator's pattern text is what
    rejoins the pieces: keep the separator when splitting on a real regex.

    >>> CharacterTextSplitter(separator="\\n", chunk_size=10, chunk_overlap=0).split_text(
    ...     "one\\ntwo\\nthree four")
    ['one\\ntwo', 'three four']
    """

    def __init__(
        self,
        separator: str = "\n\n",
        is_separator_regex: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._separator = Separator(separator, bool(is_separator_regex))
        self._is_separator_regex = bool(is_separator_regex)
        # None: kept separators make pieces that tile the text, so chunks are slices. A
        # regex starting with a lookaround is taken (as LangChain does) to match nothing
        # worth putting back between pieces.
        self._joiner: str | None = None
        if not self._keep_mode:
            self._joiner = "" if self._separator.is_lookaround else separator

    def _split_span(
        self, text: str, start: int, end: int, chunks: list[str], starts: list[int]
    ) -> None:
        piece_starts, piece_ends = self._separator.cut(text, start, end, self._keep_mode)
        lengths, pieces = self._measure(text, piece_starts, piece_ends)
        self._merge_range(
            text, piece_starts, piece_ends, lengths, pieces, 0, len(lengths),
            self._joiner, chunks, starts,
        )


class RecursiveCharacterTextSplitter(_SeparatorSplitter):
    """Split at the coarsest separator present, recursing into pieces still too long.

    ``separators`` (default ``["\\n\\n", "\\n", " ", ""]``) are tried in order: the first one
    found in the text cuts it; pieces shorter than ``chunk_size`` are merged into chunks,
    longer ones are split again with the separators after it (``""`` cuts single
    characters). ``keep_separator`` defaults to True (separators start the next piece).
    Chunks equal langchain-text-splitters 1.1.3's for the same arguments, in every
    ``keep_separator`` mode and language preset; ``start_index`` is exact, and a separator
    regex with capturing groups is refused (LangChain mis-pairs or crashes on them).

    >>> splitter = RecursiveCharacterTextSplitter(chunk_size=11, chunk_overlap=5)
    >>> splitter.split_text("alpha beta gamma delta")
    ['alpha beta', 'beta gamma', 'delta']
    """

    def __init__(
        self,
        separators: list[str] | None = None,
        keep_separator: bool | Literal["start", "end"] = True,
        is_separator_regex: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(keep_separator=keep_separator, **kwargs)
        if separators is not None and (
            isinstance(separators, str) or not all(isinstance(s, str) for s in separators)
        ):
            raise InvalidTypeError(f"separators must be a list of str, got {separators!r:.80}")
        # An empty list means the default, as in LangChain.
        self._separators = list(separators or ["\n\n", "\n", " ", ""])
        self._is_separator_regex = bool(is_separator_regex)
        self._compiled = tuple(Separator(s, self._is_separator_regex) for s in self._separators)
        # Per (separator, keep mode): cached lengths of separator+part (or part+separator).
        self._with_separator_lengths: dict[tuple[str, str], CachedLength] = {}

    @classmethod
    def from_language(cls, language: Language | str, **kwargs: Any) -> RecursiveCharacterTextSplitter:
        """A splitter using the separator preset of ``language`` (regular expressions).

        >>> splitter = RecursiveCharacterTextSplitter.from_language(
        ...     Language.PYTHON, chunk_size=50, chunk_overlap=0)
        """
        separators = get_separators_for_language(language)
        return cls(separators=separators, is_separator_regex=True, **kwargs)

    @staticmethod
    def get_separators_for_language(language: Language | str) -> list[str]:
        """The separator preset of ``language``; see :func:`splitters.get_separators_for_language`."""
        return get_separators_for_language(language)

    def _split_span(
        self, text: str, start: int, end: int, chunks: list[str], starts: list[int],
        first_separator: int = 0, span_length: int | None = None,
    ) -> None:
        separators = self._compiled
        count = len(separators)
        chosen = separators[-1]
        remaining = count  # index of the first separator left for pieces still too long
        for index in range(first_separator, count):
            separator = separators[index]
            if separator.is_empty:
                chosen = separator
                break
            if separator.occurs_in(text, start, end):
                chosen = separator
                remaining = index + 1
                break
        keep = self._keep_mode
        if keep and self._length_function is len and chosen.can_scan(text, start, end):

            def too_long(piece_start: int, piece_end: int) -> None:
                self._split_piece(text, piece_start, piece_end, chunks, starts, remaining)

            scan_merge(
                text, start, end, chosen.pattern, keep, self._chunk_size,
                self._chunk_overlap, self._strip_whitespace, chunks, starts, too_long,
            )
            return
        if keep and chosen.literal and isinstance(self._length_function, CachedLength):
            # Token counts: look pieces up by the text between separators, so the common
            # " word" pieces need neither slicing nor concatenation.
            parts = text[start:end].split(chosen.literal)
            piece_starts, piece_ends = chosen.cut(text, start, end, keep, parts)
            tail_length = None
            if span_length is not None and piece_starts:
                tail_length = self._tail_length(text, start, end, piece_starts[-1], span_length)
            lengths = self._measure_parts(chosen.literal, keep, parts, tail_length)
            pieces = None
        else:
            piece_starts, piece_ends = chosen.cut(text, start, end, keep)
            lengths, pieces = self._measure(text, piece_starts, piece_ends)
        if not piece_starts:
            return
        joiner = None if keep else chosen.pattern
        chunk_size = self._chunk_size
        if max(lengths) < chunk_size:
            self._merge_range(
                text, piece_starts, piece_ends, lengths, pieces, 0, len(lengths), joiner,
                chunks, starts,
            )
            return
        low = 0
        for index, length in enumerate(lengths):
            if length < chunk_size:
                continue
            if low < index:
                self._merge_range(
                    text, piece_starts, piece_ends, lengths, pieces, low, index, joiner,
                    chunks, starts,
                )
            self._split_piece(
                text, piece_starts[index], piece_ends[index], chunks, starts, remaining, length
            )
            low = index + 1
        if low < len(lengths):
            self._merge_range(
                text, piece_starts, piece_ends, lengths, pieces, low, len(lengths), joiner,
                chunks, starts,
            )

    def _tail_length(
        self, text: str, start: int, end: int, tail_start: int, span_length: int
    ) -> int | None:
        """The token count of the span's last piece from the span's own, when derivable."""
        measure = self._length_function
        if not isinstance(measure, TiktokenLength) or tail_start == start:
            return None
        if end - tail_start <= measure.max_key_chars or tail_start - start > 64:
            return None  # short pieces are cached anyway; far offsets rarely resynchronise
        return measure.suffix_length(text[start:end], span_length, tail_start - start)

    def _measure_parts(
        self, separator: str, keep: str, parts: list[str], tail_length: int | None = None
    ) -> list[int]:
        """Lengths of the pieces a kept literal separator makes from ``parts`` (its split).

        ``tail_length``, when known, is the length of the last piece.
        """
        measure: CachedLength = self._length_function  # type: ignore[assignment]
        key = (separator, keep)
        with_separator = self._with_separator_lengths.get(key)
        if with_separator is None and key == (" ", "start") and isinstance(measure, TiktokenLength):
            with_separator = self._with_separator_lengths[key] = measure.spaced
        if with_separator is None:
            count = measure.compute  # uncached: this cache holds these pieces
            if keep == "start":
                with_separator = CachedLength(lambda part: count(separator + part))
            else:
                with_separator = CachedLength(lambda part: count(part + separator))
            self._with_separator_lengths[key] = with_separator
        if keep == "start":
            if tail_length is None:
                lengths = list(map(with_separator.__getitem__, parts[1:]))
            else:
                lengths = list(map(with_separator.__getitem__, parts[1:-1]))
                lengths.append(tail_length)
            if parts[0]:
                lengths.insert(0, measure[parts[0]])
        elif parts[-1]:
            lengths = list(map(with_separator.__getitem__, parts[:-1]))
            lengths.append(measure[parts[-1]] if tail_length is None else tail_length)
        elif tail_length is None:
            lengths = list(map(with_separator.__getitem__, parts[:-1]))
        else:
            lengths = list(map(with_separator.__getitem__, parts[:-2]))
            lengths.append(tail_length)
        return lengths

    def _split_piece(
        self, text: str, start: int, end: int, chunks: list[str], starts: list[int],
        remaining: int, length: int | None = None,
    ) -> None:
        """A piece too long to merge: cut it with the separators left, or keep it whole."""
        if remaining < len(self._compiled):
            self._split_span(text, start, end, chunks, starts, remaining, length)
        else:
            # Nothing left to cut with: the piece stays whole (and unstripped), as in
            # LangChain.
            chunks.append(text[start:end])
            starts.append(start)
