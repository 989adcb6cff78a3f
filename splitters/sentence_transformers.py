"""Windows of sentence-transformer tokens: SentenceTransformersTokenTextSplitter on the local MiniLM.

LangChain's class loads a ``sentence_transformers`` model (PyTorch, a download) only to
use its tokenizer. This one uses the tokenizer of the toolkit's local embedding model,
all-MiniLM-L6-v2 (the file :class:`rag.embeddings.LocalEmbeddings` uses, sha256-checked),
through ``tokenizers``: no PyTorch, no network.
"""

from __future__ import annotations

import threading
from typing import Any

from rag._optional import require
from rag.errors import InvalidTypeError, ValidationError
from splitters._wordpiece import WordPieceTokens
from splitters.base import TextSplitter, check_text

__all__ = [
    "SentenceTransformersTokenTextSplitter",
    "minilm_tokenizer",
    "token_windows",
    "MODEL_NAME",
    "MAX_SEQ_LENGTH",
]

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
#: The model's max_seq_length in sentence-transformers: tokens per input, [CLS] and [SEP] included.
MAX_SEQ_LENGTH = 256
_SPECIAL_TOKENS = 2  # [CLS] and [SEP], added around every input
_MODEL_NAMES = frozenset({MODEL_NAME, "all-MiniLM-L6-v2"})

_lock = threading.Lock()
_shared: dict[str, WordPieceTokens] = {}


def minilm_tokenizer() -> Any:
    """all-MiniLM-L6-v2's ``tokenizers.Tokenizer``, sha256-checked, truncation and padding off.

    Needs ``tokenizers`` (the ``local`` extra); raises MissingDependencyError naming the
    install command otherwise.
    """
    return _tokens().tokenizer


def _tokens() -> WordPieceTokens:
    """One tokenizer (and its caches) per process, loaded on first use."""
    tokens = _shared.get(MODEL_NAME)
    if tokens is None:
        with _lock:
            tokens = _shared.get(MODEL_NAME)
            if tokens is None:
                # The local embeddings' own loading checks: same file, same sha256.
                from rag.embeddings._model_files import verified_bytes
                from rag.embeddings.local import TOKENIZER_SHA256, _default_tokenizer_path

                tokenizers = _require_tokenizers()
                payload = verified_bytes(_default_tokenizer_path(), TOKENIZER_SHA256, "tokenizer file")
                tokenizer = tokenizers.Tokenizer.from_str(payload.decode("utf-8"))
                # The file truncates at 128 tokens and pads to 128: LangChain does neither.
                tokenizer.no_truncation()
                tokenizer.no_padding()
                tokens = _shared[MODEL_NAME] = WordPieceTokens(tokenizer)
    return tokens


def _require_tokenizers() -> Any:
    return require("tokenizers", feature="SentenceTransformersTokenTextSplitter", extra="local")


def token_windows(token_count: int, tokens_per_chunk: int, chunk_overlap: int) -> range:
    """Start indices of the windows LangChain's ``split_text_on_tokens`` takes.

    Windows of ``tokens_per_chunk`` tokens advance by ``tokens_per_chunk - chunk_overlap``;
    the last one is the first that reaches the end.

    >>> list(token_windows(10, 4, 1))
    [0, 3, 6]
    """
    if token_count == 0:
        return range(0)
    step = tokens_per_chunk - chunk_overlap
    last = max(0, -(-(token_count - tokens_per_chunk) // step)) * step
    return range(0, last + 1, step)


class SentenceTransformersTokenTextSplitter(TextSplitter):
    """Split text into windows of all-MiniLM-L6-v2 tokens, as LangChain's class does with its model.

    - ``tokens_per_chunk`` (tokens, 1..256; default 254): the most tokens per chunk, not
      counting ``[CLS]``/``[SEP]``;
    - ``chunk_overlap`` (tokens, default 50, less than ``tokens_per_chunk``): tokens
      repeated at the start of the next chunk;
    - ``model_name``: ``"sentence-transformers/all-MiniLM-L6-v2"`` (the default) or
      ``"all-MiniLM-L6-v2"``, the model :class:`rag.embeddings.LocalEmbeddings` runs.

    The text is tokenized (lowercased, accents stripped, words cut into word pieces) and
    each window of token ids is decoded back to text: chunks are the tokenizer's text,
    not slices of the source (``"Héllo, World"`` gives ``"hello, world"``). A window that
    decodes to ``""`` is skipped. :meth:`count_tokens` counts ``[CLS]`` and ``[SEP]`` too.

    Chunks equal ``langchain_text_splitters.base.split_text_on_tokens`` with a
    ``Tokenizer`` encoding by ``tokenizers`` (special tokens stripped) and decoding by its
    ``decode(ids, skip_special_tokens=False)``. Differences from LangChain's class:

    - the model is all-MiniLM-L6-v2 (LangChain's default all-mpnet-base-v2 cannot be
      loaded here); other ``model_name`` values and ``model_kwargs`` are refused;
    - ``tokens_per_chunk`` defaults to 254, the model's 256 minus ``[CLS]`` and
      ``[SEP]``: LangChain's default of 256 makes chunks the model truncates by two tokens;
    - ``tokens_per_chunk <= chunk_overlap`` is refused at construction (LangChain: on the
      first split);
    - ``start_index`` is the offset in the source of the chunk's first token (LangChain
      searches for the lowercased chunk in the source, and usually reports -1);
    - chunks are ``tokenizers``' decoding; ``transformers``' ``decode`` may further run
      its ``clean_up_tokenization`` pass (e.g. ``" ' "`` to ``"'"``) if the model's
      tokenizer config asks for it.

    >>> splitter = SentenceTransformersTokenTextSplitter(tokens_per_chunk=4, chunk_overlap=1)
    >>> splitter.split_text("Retrieval-augmented generation helps.")
    ['retrieval - augmented generation', 'generation helps.']
    """

    def __init__(
        self,
        chunk_overlap: int = 50,
        model_name: str = MODEL_NAME,
        tokens_per_chunk: int | None = None,
        model_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(chunk_overlap=chunk_overlap, **kwargs)
        if model_name not in _MODEL_NAMES:
            raise ValidationError(
                f"model_name {model_name!r} is not available offline; this splitter uses the "
                f"local embedding model's tokenizer: model_name={MODEL_NAME!r}"
            )
        if model_kwargs:
            raise ValidationError(
                f"model_kwargs are not supported (no sentence_transformers model is loaded), "
                f"got {model_kwargs!r}"
            )
        self.model_name = model_name
        self.maximum_tokens_per_chunk = MAX_SEQ_LENGTH
        if tokens_per_chunk is None:
            tokens_per_chunk = MAX_SEQ_LENGTH - _SPECIAL_TOKENS
        if isinstance(tokens_per_chunk, bool) or not isinstance(tokens_per_chunk, int):
            raise InvalidTypeError(
                f"tokens_per_chunk must be an int, got {type(tokens_per_chunk).__name__}: "
                f"{tokens_per_chunk!r}"
            )
        if tokens_per_chunk > MAX_SEQ_LENGTH:
            raise ValidationError(
                f"The token limit of the models '{model_name}' is: {MAX_SEQ_LENGTH}. "
                f"Argument tokens_per_chunk={tokens_per_chunk} > maximum token limit."
            )
        if tokens_per_chunk <= self._chunk_overlap:
            raise ValidationError(
                f"tokens_per_chunk must be greater than chunk_overlap: got tokens_per_chunk "
                f"{tokens_per_chunk} and chunk_overlap {self._chunk_overlap}"
            )
        self.tokens_per_chunk = tokens_per_chunk
        _require_tokenizers()  # fail now, with the install command, rather than on first use

    @property
    def tokenizer(self) -> Any:
        """The ``tokenizers.Tokenizer`` (loaded on first use, shared by all instances)."""
        return _tokens().tokenizer

    def split_text(self, text: str) -> list[str]:
        return self._split(check_text(text), with_starts=False)[0]

    def split_text_with_starts(self, text: str) -> tuple[list[str], list[int]]:
        if type(self).split_text is not SentenceTransformersTokenTextSplitter.split_text:
            # A subclass changed split_text: honour it, and locate its chunks.
            return TextSplitter.split_text_with_starts(self, text)
        return self._split(check_text(text), with_starts=True)

    def count_tokens(self, *, text: str) -> int:
        """Tokens in ``text``, ``[CLS]`` and ``[SEP]`` included (as LangChain counts)."""
        return len(_tokens().encode(check_text(text))) + _SPECIAL_TOKENS

    def _split(self, text: str, with_starts: bool) -> tuple[list[str], list[int]]:
        tokens = _tokens()
        if with_starts:
            ids, token_starts = tokens.encode_with_starts(text)
        else:
            ids, token_starts = tokens.encode(text), []
        size = self.tokens_per_chunk
        decode = tokens.decode
        chunks: list[str] = []
        starts: list[int] = []
        for first in token_windows(len(ids), size, self._chunk_overlap):
            chunk = decode(ids[first : first + size])
            if chunk:
                chunks.append(chunk)
                if with_starts:
                    starts.append(token_starts[first])
        return chunks, starts

