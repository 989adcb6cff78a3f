"""``VectorStoreRetrieverMemory``: past exchanges stored as documents, the relevant
ones retrieved for each new input."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from rag.classic.base_memory import BaseMemory
from rag.classic.memory.chat_memory import get_prompt_input_key
from rag.documents import Document
from rag.errors import ValidationError

__all__ = ["VectorStoreRetrieverMemory"]


class VectorStoreRetrieverMemory(BaseMemory):
    """Each exchange saved as one document (``"key: value"`` lines of the inputs, minus
    ``memory_key`` and ``exclude_input_keys``, then the outputs) through ``retriever``;
    loading searches with the input (``input_key``, default the one non-memory input) and
    returns the documents' texts joined by newlines, or the documents with
    ``return_docs=True``. ``retriever`` is a vector store's retriever (``add_documents`` on
    it or on its ``vectorstore``), an :class:`~rag.index.Index` retriever included.
    """

    retriever: Any
    memory_key: str = "history"
    input_key: Optional[str] = None
    return_docs: bool = False
    exclude_input_keys: Sequence[str] = ()

    def _check(self) -> None:
        if not hasattr(self.retriever, "invoke"):
            raise ValidationError(f"retriever must be a retriever, got {type(self.retriever).__name__}")

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def _value(self, documents: list[Document]) -> dict[str, Any]:
        return {self.memory_key: documents if self.return_docs else "\n".join(d.page_content for d in documents)}

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        query = inputs[self.input_key or get_prompt_input_key(inputs, self.memory_variables)]
        return self._value(self.retriever.invoke(query))

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        query = inputs[self.input_key or get_prompt_input_key(inputs, self.memory_variables)]
        return self._value(await self.retriever.ainvoke(query))

    def _documents(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> list[Document]:
        skip = {*self.exclude_input_keys, self.memory_key}
        lines = [f"{k}: {v}" for k, v in [*((k, v) for k, v in inputs.items() if k not in skip), *outputs.items()]]
        return [Document(page_content="\n".join(lines))]

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        target = self.retriever if hasattr(self.retriever, "add_documents") else getattr(self.retriever, "vectorstore", None)
        if target is None or not hasattr(target, "add_documents"):
            raise ValidationError(f"{type(self.retriever).__name__} cannot store documents: it has no add_documents "
                                  "and no vectorstore; use a vector store's as_retriever()")
        target.add_documents(self._documents(inputs, outputs))

    def clear(self) -> None:
        """Stored exchanges stay in the store (as in LangChain)."""
