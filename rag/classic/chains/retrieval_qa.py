"""``RetrievalQA`` and ``ConversationalRetrievalChain``: retrieve, then answer with the
documents (after rewriting a follow-up question into a standalone one)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from rag.classic._run_manager import CallbackManagerForChainRun, child_config
from rag.classic.chains.base import Chain
from rag.classic.chains.combine_documents import load_qa_chain
from rag.classic.chains.llm import LLMChain
from rag.errors import ValidationError
from rag.messages import BaseMessage
from rag.prompts import PromptTemplate

__all__ = ["RetrievalQA", "ConversationalRetrievalChain", "CONDENSE_QUESTION_PROMPT", "get_chat_history"]

CONDENSE_QUESTION_PROMPT = PromptTemplate.from_template(
    "Rewrite the follow-up question as a question that can be understood without the conversation, in "
    "the language it was asked in.\n\nConversation:\n{chat_history}\nFollow-up question: {question}\n"
    "Standalone question:"
)

_ROLE_PREFIX = {"human": "Human: ", "ai": "Assistant: "}


def get_chat_history(chat_history: list[Any]) -> str:
    """The conversation as text, one turn a line (``Human: ...`` / ``Assistant: ...``):
    from messages (empty ones skipped) or ``(human, ai)`` pairs."""
    lines = []
    for turn in chat_history:
        if isinstance(turn, BaseMessage) or hasattr(turn, "type") and hasattr(turn, "content"):
            if turn.content:
                lines.append(f"{_ROLE_PREFIX.get(turn.type, f'{turn.type}: ')}{turn.content}")
        elif isinstance(turn, tuple) and len(turn) == 2:
            lines.extend([f"Human: {turn[0]}", f"Assistant: {turn[1]}"])
        else:
            raise ValidationError(f"Unsupported chat history format: {type(turn)}. Full chat history: {chat_history} ")
    return "".join(f"\n{line}" for line in lines)


class RetrievalQA(Chain):
    """The question under ``input_key`` (default "query") sent to ``retriever`` (any
    retriever, an :class:`~rag.index.Index` retriever included); the documents and the
    question to ``combine_documents_chain``; its answer under ``output_key`` (default
    "result"), with the documents as "source_documents" when ``return_source_documents``.

    >>> from rag.documents import Document
    >>> from rag.models import FakeListChatModel
    >>> from rag.runnables import RunnableLambda
    >>> from rag.retrievers import BaseRetriever
    >>> class One(BaseRetriever):
    ...     def _get_relevant_documents(self, query, *, run_manager):
    ...         return [Document("Paris is the capital of France.")]
    >>> qa = RetrievalQA.from_chain_type(FakeListChatModel(responses=["Paris."]), retriever=One(),
    ...                                  return_source_documents=True)
    >>> out = qa.invoke({"query": "Capital of France?"})
    >>> out["result"], len(out["source_documents"])
    ('Paris.', 1)
    """

    combine_documents_chain: Any
    retriever: Any
    input_key: str = "query"
    output_key: str = "result"
    return_source_documents: bool = False

    @classmethod
    def from_chain_type(cls, llm: Any, chain_type: str = "stuff", chain_type_kwargs: Optional[dict[str, Any]] = None,
                        **kwargs: Any) -> "RetrievalQA":
        """Built over :func:`~rag.classic.chains.load_qa_chain` (``chain_type`` "stuff";
        ``chain_type_kwargs`` e.g. ``{"prompt": ...}``)."""
        return cls(combine_documents_chain=load_qa_chain(llm, chain_type, **(chain_type_kwargs or {})), **kwargs)

    @classmethod
    def from_llm(cls, llm: Any, prompt: Any = None, **kwargs: Any) -> "RetrievalQA":
        return cls.from_chain_type(llm, chain_type_kwargs={"prompt": prompt} if prompt is not None else None, **kwargs)

    @property
    def input_keys(self) -> list[str]:
        return [self.input_key]

    @property
    def output_keys(self) -> list[str]:
        return [self.output_key, *(["source_documents"] if self.return_source_documents else [])]

    def _outputs(self, answer: Any, documents: list[Any]) -> dict[str, Any]:
        outputs = {self.output_key: answer}
        if self.return_source_documents:
            outputs["source_documents"] = documents
        return outputs

    def _call(self, inputs: dict[str, Any], run_manager: Optional[CallbackManagerForChainRun] = None) -> dict[str, Any]:
        question = inputs[self.input_key]
        documents = self.retriever.invoke(question, child_config(run_manager))
        callbacks = run_manager.get_child() if run_manager is not None else None
        answer = self.combine_documents_chain.run(input_documents=documents, question=question, callbacks=callbacks)
        return self._outputs(answer, documents)

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        question = inputs[self.input_key]
        documents = await self.retriever.ainvoke(question, child_config(run_manager))
        callbacks = run_manager.get_child() if run_manager is not None else None
        answer = await self.combine_documents_chain.arun(input_documents=documents, question=question,
                                                         callbacks=callbacks)
        return self._outputs(answer, documents)

    @property
    def _chain_type(self) -> str:
        return "retrieval_qa"


class ConversationalRetrievalChain(Chain):
    """A follow-up ``question`` answered with the conversation (``chat_history``: messages
    or ``(human, ai)`` pairs, typically from ``memory``): ``question_generator`` rewrites
    it into a standalone question (skipped while the history is empty), ``retriever``
    fetches documents for it, ``combine_docs_chain`` answers under ``output_key`` (default
    "answer"). Options (defaults): ``rephrase_question`` (True: the answerer sees the
    rewritten question), ``return_source_documents`` (False), ``return_generated_question``
    (False), ``get_chat_history`` (None: :func:`get_chat_history`),
    ``response_if_no_docs_found`` (None: answer anyway).
    """

    combine_docs_chain: Any
    question_generator: Any
    retriever: Any
    output_key: str = "answer"
    rephrase_question: bool = True
    return_source_documents: bool = False
    return_generated_question: bool = False
    get_chat_history: Optional[Callable[[list[Any]], str]] = None
    response_if_no_docs_found: Optional[str] = None

    @classmethod
    def from_llm(cls, llm: Any, retriever: Any, condense_question_prompt: Any = CONDENSE_QUESTION_PROMPT,
                 chain_type: str = "stuff", verbose: bool = False, condense_question_llm: Any = None,
                 combine_docs_chain_kwargs: Optional[dict[str, Any]] = None, callbacks: Any = None,
                 **kwargs: Any) -> "ConversationalRetrievalChain":
        """Built from one model (``condense_question_llm`` may rewrite questions instead)."""
        answerer = load_qa_chain(llm, chain_type, verbose=verbose, callbacks=callbacks,
                                 **(combine_docs_chain_kwargs or {}))
        rewriter = LLMChain(llm=condense_question_llm if condense_question_llm is not None else llm,
                            prompt=condense_question_prompt, verbose=verbose, callbacks=callbacks)
        return cls(retriever=retriever, combine_docs_chain=answerer, question_generator=rewriter,
                   callbacks=callbacks, verbose=verbose, **kwargs)

    @property
    def input_keys(self) -> list[str]:
        return ["question", "chat_history"]

    @property
    def output_keys(self) -> list[str]:
        return [self.output_key, *(["source_documents"] if self.return_source_documents else []),
                *(["generated_question"] if self.return_generated_question else [])]

    def _history_text(self, inputs: dict[str, Any]) -> str:
        return (self.get_chat_history or get_chat_history)(inputs["chat_history"])

    def _answer_inputs(self, inputs: dict[str, Any], question: str, history: str) -> dict[str, Any]:
        values = {**inputs, "chat_history": history}
        if self.rephrase_question:
            values["question"] = question
        return values

    def _outputs(self, answer: Any, documents: list[Any], question: str) -> dict[str, Any]:
        outputs = {self.output_key: answer}
        if self.return_source_documents:
            outputs["source_documents"] = documents
        if self.return_generated_question:
            outputs["generated_question"] = question
        return outputs

    def _call(self, inputs: dict[str, Any], run_manager: Optional[CallbackManagerForChainRun] = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        history = self._history_text(inputs)
        question = inputs["question"]
        if history:
            question = self.question_generator.run(question=question, chat_history=history, callbacks=callbacks)
        documents = self.retriever.invoke(question, child_config(run_manager))
        if self.response_if_no_docs_found is not None and not documents:
            return self._outputs(self.response_if_no_docs_found, documents, question)
        answer = self.combine_docs_chain.run(input_documents=documents,
                                             callbacks=run_manager.get_child() if run_manager is not None else None,
                                             **self._answer_inputs(inputs, question, history))
        return self._outputs(answer, documents, question)

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        history = self._history_text(inputs)
        question = inputs["question"]
        if history:
            question = await self.question_generator.arun(
                question=question, chat_history=history,
                callbacks=run_manager.get_child() if run_manager is not None else None)
        documents = await self.retriever.ainvoke(question, child_config(run_manager))
        if self.response_if_no_docs_found is not None and not documents:
            return self._outputs(self.response_if_no_docs_found, documents, question)
        answer = await self.combine_docs_chain.arun(
            input_documents=documents, callbacks=run_manager.get_child() if run_manager is not None else None,
            **self._answer_inputs(inputs, question, history))
        return self._outputs(answer, documents, question)

    @property
    def _chain_type(self) -> str:
        return "chat-vector-db"
