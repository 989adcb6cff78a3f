"""Documents into prompt text: one document through a document prompt, many joined.

The document prompt sees ``page_content`` plus every metadata key, as in LangChain's
``format_document``; a variable the document lacks is an error naming it, never a blank.

>>> from rag.documents import Document
>>> format_document(Document("Paris is in France.", metadata={"source": "wiki"}), "{source}: {page_content}")
'wiki: Paris is in France.'
"""

from __future__ import annotations

from typing import Any, Iterable, Union

from rag.documents import Document
from rag.errors import ValidationError
from rag.prompts import BasePromptTemplate, PromptTemplate

__all__ = ["DEFAULT_DOCUMENT_PROMPT", "DEFAULT_DOCUMENT_SEPARATOR", "format_document", "format_documents",
           "document_prompt_of"]

DEFAULT_DOCUMENT_PROMPT = PromptTemplate.from_template("{page_content}")
DEFAULT_DOCUMENT_SEPARATOR = "\n\n"

DocumentPrompt = Union[BasePromptTemplate, str, None]


def document_prompt_of(prompt: DocumentPrompt) -> BasePromptTemplate:
    """``prompt`` as a template: None is ``"{page_content}"``, a str is an f-string template."""
    if prompt is None:
        return DEFAULT_DOCUMENT_PROMPT
    if isinstance(prompt, str):
        return PromptTemplate.from_template(prompt)
    if isinstance(prompt, BasePromptTemplate):
        return prompt
    raise ValidationError(
        f"document_prompt must be a PromptTemplate, a template string or None, got {type(prompt).__name__}: {prompt!r:.60}"
    )


def format_document(document: Document, prompt: DocumentPrompt = None) -> str:
    """``document`` rendered with ``prompt`` (default ``"{page_content}"``).

    Raises :class:`~rag.errors.ValidationError` (a ValueError) naming the metadata keys the
    prompt needs and the document lacks.
    """
    template = document_prompt_of(prompt)
    if not isinstance(document, Document):
        raise ValidationError(f"expected a Document, got {type(document).__name__}: {document!r:.60}")
    values: dict[str, Any] = {"page_content": document.page_content, **document.metadata}
    missing = [name for name in template.input_variables if name not in values]
    if missing:
        raise ValidationError(
            f"Document prompt requires documents to have metadata variables: {template.input_variables}. "
            f"Received document with missing metadata: {missing}."
        )
    wanted = {name: values[name] for name in template.input_variables}
    return template.format(**wanted)  # type: ignore[attr-defined]


def format_documents(documents: Iterable[Document], prompt: DocumentPrompt = None,
                     separator: str = DEFAULT_DOCUMENT_SEPARATOR) -> str:
    """Every document formatted with ``prompt``, joined with ``separator`` (default two newlines)."""
    template = document_prompt_of(prompt)
    if isinstance(documents, (str, Document)) or not isinstance(documents, Iterable):
        raise ValidationError(f"expected a list of Documents, got {type(documents).__name__}: {documents!r:.60}")
    return separator.join(format_document(document, template) for document in documents)
