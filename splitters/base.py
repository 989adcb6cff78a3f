"""The :class:`TextSplitter` base: parameters, validation, and documents from chunks."""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any, Literal, TypeVar

from rag.documents import Document
from rag.errors import InvalidTypeError, ValidationError
from splitters._headings import BLOCKS, HEADINGS, with_positions
from splitters._length import CachedLength
from splitters._merge import merge_windows, prefix_sums
from splitters._separators import KeepSeparator, normalize_keep_separator

__all__ = ["TextSplitter", "locate_chunks"]

SplitterT = TypeVar("SplitterT", bound="TextSplitter")


def _check_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{name} must be an int, got {type(value).__name__}: {value!r}")
    return value


def check_text(text: object) -> str:
    """Return ``text`` if it is a ``str``; otherwise raise InvalidTypeError (a TypeError) showing what it was."""
    if not isinstance(text, str):
        raise InvalidTypeError(
            f"text to split must be a str, got {type(text).__name__}: {text!r:.80}"
        )
    return text


def locate_chunks(text: str, chunks: Sequence[str]) -> list[int]:
    """Source offsets of ``chunks``, found left to right, each after the previous start.

    The fallback for splitters that do not track offsets themselves. Searching strictly
    after the previous chunk's start (rather than LangChain's ``previous end - overlap``)
    keeps repeated text from being attributed to an earlier occurrence twice. A chunk that
    is not a substring of the source gets -1, as in LangChain.
    """
    starts: list[int] = []
    previous = -1
    for chunk in chunks:
        position = text.find(chunk, previous + 1)
        if position == -1:
            position = text.find(chunk, max(previous, 0))
        if position != -1:
            previous = position
        starts.append(position)
    return starts


class TextSplitter(ABC):
    """Base of the chunking splitters; subclasses implement :meth:`split_text`.

    Parameters, in the units of ``length_function`` (characters with the default ``len``):

    - ``chunk_size`` (> 0, default 4000): the most a chunk should measure;
    - ``chunk_overlap`` (0..chunk_size, default 200): how much of a chunk's end is repeated
      at the start of the next;
    - ``keep_separator`` (False, True/"start", "end"; default False): whether separators stay
      in the chunks, at the start of the piece after them or the end of the piece before;
    - ``add_start_index`` (default False): put each chunk's offset in the source text in
      ``metadata["start_index"]``; the offset is tracked while splitting, so it is right for
      repeated text too (LangChain searches with ``str.find`` and can report an earlier
      occurrence);
    - ``strip_whitespace`` (default True): strip each chunk.

    Splitters never modify the documents given to them.

    >>> from splitters import CharacterTextSplitter
    >>> CharacterTextSplitter(separator=" ", chunk_size=7, chunk_overlap=0).split_text("a b c d e")
    ['a b c d', 'e']
    """

    def __init__(
        self,
        chunk_size: int = 4000,
        chunk_overlap: int = 200,
        length_function: Callable[[str], int] = len,
        keep_separator: bool | Literal["start", "end"] = False,
        add_start_index: bool = False,
        strip_whitespace: bool = True,
    ) -> None:
        _check_int("chunk_size", chunk_size)
        _check_int("chunk_overlap", chunk_overlap)
        # Same wording as LangChain's, so messages users search for still match.
        if chunk_size <= 0:
            raise ValidationError(f"chunk_size must be > 0, got {chunk_size}")
        if chunk_overlap < 0:
            raise ValidationError(f"chunk_overlap must be >= 0, got {chunk_overlap}")
        if chunk_overlap > chunk_size:
            raise ValidationError(
                f"Got a larger chunk overlap ({chunk_overlap}) than chunk size "
                f"({chunk_size}), should be smaller."
            )
        if not callable(length_function):
            raise InvalidTypeError(
                f"length_function must be callable, got {type(length_function).__name__}: "
                f"{length_function!r}"
            )
        self._keep_mode: KeepSeparator = normalize_keep_separator(keep_separator)
        self._chunk_size = chunk_size
        self._chunk_overlap = chunk_overlap
        self._length_function = length_function
        self._keep_separator = keep_separator
        self._add_start_index = bool(add_start_index)
        self._strip_whitespace = bool(strip_whitespace)

    @abstractmethod
    def split_text(self, text: str) -> list[str]:
        """Split ``text`` into chunks, in source order."""

    def split_text_with_starts(self, text: str) -> tuple[list[str], list[int]]:
        """The chunks of ``text`` and the offset in ``text`` where each one begins.

        Subclasses that track offsets while splitting override this; the default locates
        the chunks of :meth:`split_text` left to right (see :func:`locate_chunks`).
        """
        chunks = self.split_text(text)
        return chunks, locate_chunks(text, chunks)

    def create_documents(
        self, texts: Sequence[str], metadatas: Sequence[dict[Any, Any]] | None = None
    ) -> list[Document]:
        """Split each text into Documents carrying a deep copy of its metadata.

        ``metadatas``, when given, must have one dict per text. With ``add_start_index``
        each chunk's metadata also gets ``start_index`` (its offset in its text).

        A text whose metadata lists ``headings`` (``[offset, title, anchor]`` each, as
        :class:`loaders.ReadableHTMLLoader` gives) does not pass that list on: each chunk
        gets ``section`` and ``anchor`` (the nearest heading at or before its start) and
        ``headings`` (those inside it, offsets relative to the chunk), so a citation can
        name the part of the page it quotes. Likewise a text whose metadata lists
        ``blocks`` (``[start, end, kind]`` each) gives each chunk the blocks that overlap
        it, clipped to it and re-based to its text (left out when it holds none), so an
        answerer can read paragraphs, code, tables and list items from the structure.
        LangChain copies every key as it is.
        """
        if isinstance(texts, str) or not isinstance(texts, Sequence):
            raise InvalidTypeError(
                f"texts must be a list of str, got {type(texts).__name__}: {texts!r:.80}"
            )
        if metadatas is None:
            metadatas = [{}] * len(texts)
        elif len(metadatas) != len(texts):
            raise ValidationError(
                f"metadatas has {len(metadatas)} entries but texts has {len(texts)}; "
                f"give one metadata dict per text"
            )
        documents: list[Document] = []
        for text, metadata in zip(texts, metadatas):
            check_text(text)
            structured = isinstance(metadata, dict) and (HEADINGS in metadata or BLOCKS in metadata)
            if self._add_start_index or structured:
                chunks, starts = self.split_text_with_starts(text)
            else:
                chunks, starts = self.split_text(text), None
            if structured:
                # Each chunk's own position and blocks rather than the whole page's lists.
                chunk_metadatas = with_positions(metadata, metadata.get(HEADINGS), starts, chunks)
            for position, chunk in enumerate(chunks):
                chunk_metadata = copy.deepcopy(chunk_metadatas[position] if structured else metadata)
                if self._add_start_index:
                    chunk_metadata["start_index"] = starts[position]
                documents.append(Document(page_content=chunk, metadata=chunk_metadata))
        return documents

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        """Split each Document's text; chunks keep (a copy of) its metadata."""
        texts: list[str] = []
        metadatas: list[dict[Any, Any]] = []
        for document in documents:
            texts.append(document.page_content)
            metadatas.append(document.metadata)
        return self.create_documents(texts, metadatas=metadatas)

    def transform_documents(self, documents: Sequence[Document]) -> list[Document]:
        """Same as :meth:`split_documents` (LangChain's document-transformer name)."""
        return self.split_documents(list(documents))

    def _merge_splits(self, splits: Iterable[str], separator: str) -> list[str]:
        """Merge pieces into chunks joined by ``separator`` (LangChain's protected helper)."""
        pieces = list(splits)
        measure = self._length_function
        lengths = list(map(measure, pieces))
        separator_len = measure(separator)
        chunks: list[str] = []
        for start, end in merge_windows(
            prefix_sums(lengths, separator_len),
            separator_len,
            self._chunk_size,
            self._chunk_overlap,
        ):
            chunk = separator.join(pieces[start:end])
            if self._strip_whitespace:
                chunk = chunk.strip()
            if chunk:
                chunks.append(chunk)
        return chunks

    @classmethod
    def from_tiktoken_encoder(
        cls: type[SplitterT],
        encoding_name: str = "cl100k_base",
        model_name: str | None = None,
        allowed_special: Literal["all"] | Collection[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        **kwargs: Any,
    ) -> SplitterT:
        """A splitter of this class measuring length in tiktoken tokens.

        ``model_name`` (e.g. ``"gpt-4o"``) overrides ``encoding_name``. Encodings are loaded
        offline (see :func:`splitters.get_encoding`); the default is ``cl100k_base``
        (LangChain's default ``gpt2`` has no offline source). Other keyword arguments go to
        the constructor.

        >>> from splitters import RecursiveCharacterTextSplitter
        >>> splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(chunk_size=256)
        """
        from splitters.tokens import tiktoken_length

        length_function = tiktoken_length(
            encoding_name, model_name, allowed_special, disallowed_special
        )
        return cls(length_function=length_function, **kwargs)

    @classmethod
    def from_huggingface_tokenizer(cls: type[SplitterT], tokenizer: Any, **kwargs: Any) -> SplitterT:
        """A splitter of this class measuring length in ``tokenizer.tokenize(text)`` tokens.

        ``tokenizer`` is any object with a ``tokenize(str) -> list`` method, such as a
        Hugging Face ``PreTrainedTokenizerBase``; lengths of repeated pieces are cached.
        """
        tokenize = getattr(tokenizer, "tokenize", None)
        if not callable(tokenize):
            raise ValidationError(
                f"tokenizer must have a tokenize(text) method (e.g. a Hugging Face "
                f"tokenizer), got {type(tokenizer).__name__}: {tokenizer!r:.80}"
            )

        def tokenizer_length(text: str) -> int:
            return len(tokenize(text))

        return cls(length_function=CachedLength(tokenizer_length), **kwargs)


def check_header_pairs(headers_to_split_on: Any, valid: Callable[[str], bool], what: str) -> list[tuple[str, str]]:
    """``headers_to_split_on`` as a list of ``(key, name)`` pairs whose key passes ``valid``;
    otherwise a ValidationError showing the bad pair and ``what`` is expected (for example
    "(tag, name) pairs with tags h1..h6, like ('h1', 'Header 1')")."""
    pairs = list(headers_to_split_on)
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str) and valid(pair[0])):
            raise ValidationError(f"headers_to_split_on must be {what}; got {pair!r}")
    return pairs
