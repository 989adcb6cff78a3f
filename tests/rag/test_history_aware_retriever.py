"""create_history_aware_retriever and create_retrieval_chain over it, against
langchain_classic's (the queries the retriever sees, the chain's output keys)."""

from __future__ import annotations

import pytest

from rag.chains import CONTEXTUALIZE_PROMPT, create_history_aware_retriever, create_retrieval_chain
from rag.documents import Document
from rag.errors import ValidationError
from rag.messages import AIMessage, HumanMessage
from rag.models import FakeListChatModel
from rag.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate
from rag.runnables import RunnableLambda

HISTORY = [HumanMessage("How do I create an index?"), AIMessage("Use CREATE INDEX [1].")]


def _prompt(template_module):
    return template_module.ChatPromptTemplate.from_messages(
        [("system", CONTEXTUALIZE_PROMPT), template_module.MessagesPlaceholder("chat_history"), ("human", "{input}")])


def _ours(queries, rewrite="How do I drop an index?"):
    retriever = RunnableLambda(lambda query: queries.append(query) or [Document(f"about: {query}")])
    model = FakeListChatModel(responses=[rewrite])
    return create_history_aware_retriever(model, retriever, _prompt(__import__("rag.prompts", fromlist=["x"])))


def test_queries_reaching_the_retriever_are_langchains():
    from langchain_classic.chains import create_history_aware_retriever as lc_create
    from langchain_core import prompts as lc_prompts
    from langchain_core.documents import Document as LCDocument
    from langchain_core.language_models.fake_chat_models import FakeListChatModel as LCFake
    from langchain_core.messages import AIMessage as LCAI
    from langchain_core.messages import HumanMessage as LCHuman
    from langchain_core.runnables import RunnableLambda as LCLambda

    theirs_seen, ours_seen = [], []
    theirs = lc_create(LCFake(responses=["How do I drop an index?"]),
                       LCLambda(lambda q: theirs_seen.append(q) or [LCDocument(f"about: {q}")]), _prompt(lc_prompts))
    ours = _ours(ours_seen)
    lc_history = [LCHuman(HISTORY[0].content), LCAI(HISTORY[1].content)]
    for lc_input, our_input in [({"input": "How do I create an index?"}, {"input": "How do I create an index?"}),
                                ({"input": "q", "chat_history": []}, {"input": "q", "chat_history": []}),
                                ({"input": "and undo it?", "chat_history": lc_history},
                                 {"input": "and undo it?", "chat_history": HISTORY})]:
        assert [d.page_content for d in theirs.invoke(lc_input)] == [d.page_content for d in ours.invoke(our_input)]
    assert ours_seen == theirs_seen == ["How do I create an index?", "q", "How do I drop an index?"]


def test_the_model_sees_the_history_and_the_question():
    seen = []
    model = RunnableLambda(lambda prompt_value: seen.append(prompt_value.to_messages()) or AIMessage("standalone"))
    chain = create_history_aware_retriever(model, RunnableLambda(lambda q: [Document(q)]),
                                           _prompt(__import__("rag.prompts", fromlist=["x"])))
    chain.invoke({"input": "and undo it?", "chat_history": HISTORY})
    assert [(m.type, m.content) for m in seen[0][1:]] == [("human", "How do I create an index?"),
                                                          ("ai", "Use CREATE INDEX [1]."), ("human", "and undo it?")]


def test_a_retrieval_chain_over_it_answers_with_context_and_keeps_the_history():
    queries: list[str] = []
    combine = RunnableLambda(lambda d: f"answer from {d['context'][0].page_content}")
    result = create_retrieval_chain(_ours(queries), combine).invoke({"input": "and undo it?", "chat_history": HISTORY})
    assert sorted(result) == ["answer", "chat_history", "context", "input"]
    assert result["answer"] == "answer from about: How do I drop an index?"
    assert result["chat_history"] == HISTORY


def test_a_prompt_without_input_is_refused_as_in_langchain():
    prompt = PromptTemplate.from_template("Rewrite {question}")
    with pytest.raises(ValidationError, match=r"Expected `input` to be a prompt variable, but got \['question'\]"):
        create_history_aware_retriever(FakeListChatModel(responses=["x"]), RunnableLambda(lambda q: []), prompt)


def test_input_that_is_not_a_dict_is_refused():
    with pytest.raises(ValidationError, match="takes a dict with 'input'"):
        _ours([]).invoke("just a string")
