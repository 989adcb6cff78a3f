"""The :class:`Document`: a piece of text with metadata and an optional id."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from rag.errors import InvalidTypeError

__all__ = ["Document"]


@dataclass(slots=True)
class Document:
    """A piece of text and its metadata, as LangChain's ``Document``.

    ``page_content`` is positional; ``metadata`` defaults to a new empty dict; ``id`` is a
    string or None (numbers are converted to strings, as LangChain does). Equality compares
    all three fields.

    >>> Document("Paris is the capital of France.", {"source": "wiki"}, id=7).id
    '7'

    Instances use ``__slots__`` (no per-instance ``__dict__``): stores hold hundreds of
    thousands of them, and this halves the objects the garbage collector walks. As with
    LangChain's pydantic model, attributes other than the three fields cannot be added.
    """

    page_content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str | None = None

    type: ClassVar[str] = "Document"

    def __post_init__(self) -> None:
        if not isinstance(self.page_content, str):
            raise InvalidTypeError(
                f"Document.page_content must be a str, got {type(self.page_content).__name__}: "
                f"{self.page_content!r:.80}"
            )
        if self.metadata is None:
            self.metadata = {}
        elif not isinstance(self.metadata, dict):
            raise InvalidTypeError(
                f"Document.metadata must be a dict, got {type(self.metadata).__name__}: "
                f"{self.metadata!r:.80}"
            )
        if self.id is not None and not isinstance(self.id, str):
            if isinstance(self.id, (int, float)) and not isinstance(self.id, bool):
                self.id = str(self.id)
            else:
                raise InvalidTypeError(
                    f"Document.id must be a str, a number or None, got "
                    f"{type(self.id).__name__}: {self.id!r:.80}"
                )

    def __str__(self) -> str:
        # LangChain prints documents this way; users grep logs for it.
        if self.metadata:
            return f"page_content='{self.page_content}' metadata={self.metadata}"
        return f"page_content='{self.page_content}'"

    def copy(self) -> "Document":
        """A copy whose metadata dict can be changed without touching this one."""
        return Document._unchecked(self.page_content, dict(self.metadata), self.id)

    @classmethod
    def _unchecked(cls, page_content: str, metadata: dict[str, Any], id: str | None) -> "Document":
        """Build without validation, for values already checked (stores copy many documents)."""
        document = object.__new__(cls)
        document.page_content = page_content
        document.metadata = metadata
        document.id = id
        return document
