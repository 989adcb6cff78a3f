"""``create_stuff_documents_chain``: every document into one prompt, then the model."""

from __future__ import annotations

from typing import Any, Optional

from rag.chains.formatting import DEFAULT_DOCUMENT_SEPARATOR, DocumentPrompt, document_prompt_of, format_documents
from rag.errors import NotFoundError, ValidationError
from rag.parsers import StrOutputParser
from rag.prompts import BasePromptTemplate
from rag.runnables import Runnable, RunnableLambda, RunnablePassthrough

__all__ = ["create_stuff_documents_chain", "DOCUMENTS_KEY"]

DOCUMENTS_KEY = "context"


def _check_prompt(prompt: Any, document_variable_name: str) -> None:
    if not isinstance(prompt, BasePromptTemplate):
        raise ValidationError(f"prompt must be a prompt template, got {type(prompt).__name__}: {prompt!r:.60}")
    if document_variable_name not in prompt.input_variables:
        raise ValidationError(
            f"Prompt must accept {document_variable_name} as an input variable. "
            f"Received prompt with input variables: {prompt.input_variables}"
        )


def create_stuff_documents_chain(
    llm: Runnable,
    prompt: BasePromptTemplate,
    *,
    output_parser: Optional[Runnable] = None,
    document_prompt: DocumentPrompt = None,
    document_separator: str = DEFAULT_DOCUMENT_SEPARATOR,
    document_variable_name: str = DOCUMENTS_KEY,
) -> Runnable:
    """A chain from a dict holding a list of Documents under ``document_variable_name``
    (default "context") plus the prompt's other variables, to the model's parsed answer.

    The documents are formatted with ``document_prompt`` (default ``"{page_content}"``),
    joined with ``document_separator`` (default two newlines) and put in the prompt in their
    place; then ``prompt | llm | output_parser`` (default :class:`StrOutputParser`). The
    prompt must use ``{context}`` (or the variable named), else ValueError at once.
    Streams the answer as the model produces it; runs are named "format_inputs" and
    "stuff_documents_chain" as in LangChain.

    >>> from rag.documents import Document
    >>> from rag.models import FakeListChatModel
    >>> from rag.prompts import ChatPromptTemplate
    >>> prompt = ChatPromptTemplate.from_messages([("system", "Use: {context}"), ("human", "{input}")])
    >>> chain = create_stuff_documents_chain(FakeListChatModel(responses=["Paris."]), prompt)
    >>> chain.invoke({"input": "Capital?", "context": [Document("Paris is the capital.")]})
    'Paris.'
    """
    _check_prompt(prompt, document_variable_name)
    template = document_prompt_of(document_prompt)
    if not isinstance(document_separator, str):
        raise ValidationError(f"document_separator must be a str, got {document_separator!r:.40}")

    def format_docs(inputs: dict[str, Any]) -> str:
        if document_variable_name not in inputs:
            raise NotFoundError(
                f"the stuff-documents chain needs the documents under {document_variable_name!r}; "
                f"the input has {sorted(inputs)}"
            )
        return format_documents(inputs[document_variable_name], template, document_separator)

    format_inputs = RunnablePassthrough.assign(
        **{document_variable_name: RunnableLambda(format_docs, name="format_docs")}
    ).with_config(run_name="format_inputs")
    parser = output_parser if output_parser is not None else StrOutputParser()
    return (format_inputs | prompt | llm | parser).with_config(run_name="stuff_documents_chain")
