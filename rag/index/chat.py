"""Conversations over an index: a session's history beside the index, follow-up questions
made retrievable, and answers with numbered sources (the ``rag ask`` answer path).

A session's messages live in ``<index>/chats/<session>.jsonl`` (a
:class:`~rag.memory.FileChatMessageHistory`), outside the index's manifest and segments,
so updating the index keeps every conversation.

A follow-up ("and how do I undo it?") names nothing to search for. With a chat model the
model rewrites it into a standalone question (:func:`~rag.chains.create_history_aware_retriever`)
and answers with the conversation in its prompt. Offline, :func:`condense_question` adds
to it the content words of the previous questions when it looks like a follow-up (it
refers back with "it", "that"..., starts with "and", "what about"..., or has at most two
content words of its own); the extractive answerer then scores sentences against that
condensed question. ``benchmarks/chat_followups.py`` measures how much this recovers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence, Union

from rag.chains import CONTEXTUALIZE_PROMPT, ExtractiveAnswerer, create_history_aware_retriever, create_retrieval_chain
from rag.chains import create_stuff_documents_chain
from rag.documents import Document
from rag.embeddings.base import Embeddings
from rag.errors import ValidationError
from rag.index.answer import SYSTEM_PROMPT, Answer, IndexRetriever, passages
from rag.index.citation_order import in_citation_order
from rag.index.config import ANSWER_K
from rag.index.core import Index
from rag.memory import BaseChatMessageHistory, FileChatMessageHistory, RunnableWithMessageHistory
from rag.messages import BaseMessage
from rag.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate
from rag.runnables import Runnable, RunnableConfig, RunnableLambda, RunnablePassthrough, RunnablePick

__all__ = ["ChatSession", "condense_question", "chat_history_path", "session_names", "CHATS_FOLDER"]

CHATS_FOLDER = "chats"
_SESSION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}\Z")
_WORD = re.compile(r"[\w][\w.+-]*\w|\w")
# Words that carry no topic of their own in a question (what "it" refers to must come from
# earlier turns). Lower case.
_FUNCTION_WORDS = frozenset(
    "a an and are as at be but by can could did do does doing done for from had has have how i if in into is it "
    "its me my no not now of on or our should so such than that the their them then there these they this those "
    "to us was we were what when where which who why will with would you your also about again instead more "
    "other same one ones way ways get make use using used".split())
_REFERRING = frozenset("it its this that these those they them their there one ones same such instead "
                       "again".split())
_LEADS = ("and ", "but ", "also ", "or ", "what about ", "how about ", "then ", "so ")


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def condense_question(question: str, chat_history: Sequence[BaseMessage], *, turns: int = 2) -> str:
    """``question`` made retrievable without a model: when it looks like a follow-up, the
    content words of the last ``turns`` (default 2) questions of ``chat_history`` that it
    lacks are added after it, in parentheses. Other questions come back unchanged.

    >>> from rag.messages import AIMessage, HumanMessage
    >>> condense_question("And how do I undo it?", [HumanMessage("How do I create an index?"), AIMessage("...")])
    'And how do I undo it? (create index)'
    >>> condense_question("How do I back up a database?", [HumanMessage("How do I create an index?")])
    'How do I back up a database?'
    """
    earlier = [message.text for message in chat_history if message.type == "human"][-turns:] if turns > 0 else []
    if not earlier:
        return question
    words = _words(question)
    content = [word for word in words if word not in _FUNCTION_WORDS]
    follow_up = (any(word in _REFERRING for word in words) or question.strip().lower().startswith(_LEADS)
                 or len(content) <= 2)
    if not follow_up:
        return question
    have = set(words)
    added: list[str] = []
    for text in reversed(earlier):  # the latest question's words first
        for word in _words(text):
            if word not in _FUNCTION_WORDS and word not in have:
                have.add(word)
                added.append(word)
    return f"{question} ({' '.join(added)})" if added else question


def chat_history_path(chats_folder: Path, session: str) -> Path:
    """Where session ``session`` is kept in ``chats_folder`` (an index's
    :attr:`~rag.index.Index.chats_folder`); the name must be
    a str of letters, digits, ``.``, ``_`` and ``-`` (1-100, not starting with ``.``/``-``)."""
    if not isinstance(session, str):
        raise ValidationError(f"a chat session name must be a str, got {type(session).__name__} {session!r:.60}")
    if not _SESSION_NAME.match(session):
        raise ValidationError(f"chat session name {session!r} is not allowed: use letters, digits, '.', '_' and '-' "
                              "(1 to 100 characters, starting with a letter or digit)")
    return Path(chats_folder) / f"{session}.jsonl"


def session_names(chats_folder: Path) -> list[str]:
    """The sessions kept in ``chats_folder``, sorted."""
    folder = Path(chats_folder)
    return sorted(path.stem for path in folder.glob("*.jsonl")) if folder.is_dir() else []


GetByIds = Callable[[list[str]], list[Document]]


def _offline_chain(retriever: IndexRetriever, embeddings: Embeddings, get_by_ids: Optional[GetByIds]) -> Runnable:
    sources = RunnablePick("standalone") | passages(retriever, get_by_ids=get_by_ids)
    condense: Runnable[dict[str, Any], str] = RunnableLambda(
        lambda value: condense_question(value["input"], value.get("chat_history") or []), name="condense_question")
    # The extractive answerer scores sentences against the question: give it the condensed one.
    answerer = RunnableLambda(lambda value: {**value, "input": value["standalone"]}, name="standalone_question") \
        | ExtractiveAnswerer(embeddings=embeddings)
    return RunnablePassthrough.assign(standalone=condense) | create_retrieval_chain(sources, answerer) | in_citation_order()


def _model_chain(retriever: IndexRetriever, llm: Runnable, get_by_ids: Optional[GetByIds]) -> Runnable:
    sources = passages(retriever, get_by_ids=get_by_ids)
    rewrite = ChatPromptTemplate.from_messages([("system", CONTEXTUALIZE_PROMPT), MessagesPlaceholder("chat_history"),
                                                ("human", "{input}")])
    answer = ChatPromptTemplate.from_messages([("system", SYSTEM_PROMPT), MessagesPlaceholder("chat_history"),
                                               ("human", "{input}")])
    combine = create_stuff_documents_chain(llm, answer, document_prompt=PromptTemplate.from_template("[{n}] {page_content}"))
    return create_retrieval_chain(create_history_aware_retriever(llm, sources, rewrite), combine) | in_citation_order()


class ChatSession:
    """A conversation named ``session`` over ``index`` (an open :class:`~rag.index.Index`),
    its history in ``<session>.jsonl`` in the index's :attr:`~rag.index.Index.chats_folder`
    (``<index>/chats/`` for a folder index) unless ``history`` (any chat message
    history) is given. ``llm``: a chat model (None: offline, extractive answers); ``k``:
    passages retrieved per question (default 4).

    :meth:`ask` answers one question and stores the turn; :meth:`stream` yields the answer
    as it is produced and then the :class:`~rag.index.Answer`. A turn that fails stores
    nothing (see :class:`~rag.memory.RunnableWithMessageHistory`).
    """

    def __init__(self, index: Index, session: str = "default", *, llm: Optional[Runnable] = None, k: int = ANSWER_K,
                 history: Optional[BaseChatMessageHistory] = None) -> None:
        from rag.index.config import check_k

        if history is None:
            history = FileChatMessageHistory(chat_history_path(index.chats_folder, session))
        elif not isinstance(session, str):
            raise ValidationError(f"a chat session name must be a str, got {type(session).__name__} {session!r:.60}")
        self.index, self.session, self.llm, self.history = index, session, llm, history
        retriever = IndexRetriever(index, k=check_k(k))
        # The same passages as rag ask: the retrieved chunks with their context.
        get_by_ids = getattr(index, "get_by_ids", None)
        chain = (_model_chain(retriever, llm, get_by_ids) if llm is not None
                 else _offline_chain(retriever, index.embeddings, get_by_ids))
        self.chain = RunnableWithMessageHistory(chain, lambda session_id: self.history, input_messages_key="input",
                                                history_messages_key="chat_history", output_messages_key="answer")

    @property
    def messages(self) -> list[BaseMessage]:
        """The conversation so far, oldest first."""
        return self.history.messages

    def _config(self, config: Optional[RunnableConfig]) -> RunnableConfig:
        return {**(config or {}), "configurable": {**((config or {}).get("configurable") or {}),
                                                   "session_id": self.session}}

    @staticmethod
    def _check(question: object) -> str:
        if not isinstance(question, str) or not question.strip():
            raise ValidationError(f"a question must be a non-empty str, got {question!r:.60}")
        return question

    def ask(self, question: str, *, config: Optional[RunnableConfig] = None) -> Answer:
        """Answer ``question`` in the light of the conversation, and store the turn."""
        return Answer.from_result(self.chain.invoke({"input": self._check(question)}, self._config(config)))

    def stream(self, question: str, *, config: Optional[RunnableConfig] = None) -> Iterator[Union[str, Answer]]:
        """Pieces of the answer text (str) as they come, then the whole :class:`Answer`;
        the turn is stored once the answer is complete."""
        result: dict[str, Any] = {}
        for chunk in self.chain.stream({"input": self._check(question)}, self._config(config)):
            for key, value in chunk.items():
                result[key] = result.get(key, "") + value if key == "answer" else value
            if chunk.get("answer"):
                yield chunk["answer"]
        yield Answer.from_result(result)
