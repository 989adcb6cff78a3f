"""create_stuff_documents_chain and create_retrieval_chain with a scripted fake model."""

import asyncio

import pytest

from rag.chains import create_retrieval_chain, create_stuff_documents_chain, format_document
from rag.documents import Document
from rag.embeddings import HashingEmbeddings
from rag.errors import NotFoundError
from rag.models import FakeListChatModel
from rag.prompts import ChatPromptTemplate, PromptTemplate
from rag.runnables import RunnableLambda
from stores import InMemoryVectorStore

PROMPT = ChatPromptTemplate.from_messages([("system", "Answer from:\n{context}"), ("human", "{input}")])
DOCS = [Document("Paris is the capital of France.", {"source": "fr"}),
        Document("Berlin is the capital of Germany.", {"source": "de"})]


class Recorder(FakeListChatModel):
    """A fake model that keeps the messages it was sent."""

    def _generate(self, messages, stop=None, **kwargs):
        self.__dict__.setdefault("seen", []).append(messages)
        return super()._generate(messages, stop, **kwargs)


def test_stuff_chain_puts_joined_documents_into_the_prompt():
    model = Recorder(responses=["Paris."])
    chain = create_stuff_documents_chain(model, PROMPT)
    assert chain.invoke({"input": "Capital of France?", "context": DOCS}) == "Paris."
    system = model.seen[0][0].content
    assert system == "Answer from:\nParis is the capital of France.\n\nBerlin is the capital of Germany."


def test_stuff_chain_uses_document_prompt_separator_and_variable_name():
    model = Recorder(responses=["ok"])
    prompt = PromptTemplate.from_template("Docs: {docs}\nQ: {input}")
    chain = create_stuff_documents_chain(model, prompt, document_prompt="<{source}> {page_content}",
                                         document_separator=" / ", document_variable_name="docs")
    chain.invoke({"input": "q", "docs": DOCS})
    assert model.seen[0][0].content == (
        "Docs: <fr> Paris is the capital of France. / <de> Berlin is the capital of Germany.\nQ: q")


def test_stuff_chain_refuses_a_prompt_without_the_documents_variable():
    with pytest.raises(ValueError, match="Prompt must accept context"):
        create_stuff_documents_chain(FakeListChatModel(responses=["x"]), PromptTemplate.from_template("{input}"))


def test_stuff_chain_names_the_missing_documents_key():
    chain = create_stuff_documents_chain(FakeListChatModel(responses=["x"]), PROMPT)
    with pytest.raises(NotFoundError, match="'context'"):
        chain.invoke({"input": "q"})


def test_stuff_chain_applies_the_output_parser():
    chain = create_stuff_documents_chain(FakeListChatModel(responses=["paris"]), PROMPT,
                                         output_parser=RunnableLambda(lambda message: message.content.upper()))
    assert chain.invoke({"input": "q", "context": DOCS}) == "PARIS"


def test_stuff_chain_streams_the_answer_in_pieces():
    chain = create_stuff_documents_chain(FakeListChatModel(responses=["Paris is the capital."]), PROMPT)
    chunks = list(chain.stream({"input": "q", "context": DOCS}))
    assert len(chunks) > 1 and "".join(chunks) == "Paris is the capital."


def test_format_document_exposes_metadata_and_names_missing_keys():
    assert format_document(DOCS[0], "{source}|{page_content}") == "fr|Paris is the capital of France."
    with pytest.raises(ValueError, match=r"missing metadata: \['page'\]"):
        format_document(DOCS[0], "{page}: {page_content}")


@pytest.fixture
def retriever():
    store = InMemoryVectorStore.from_documents(DOCS, HashingEmbeddings(dim=256))
    return store.as_retriever(search_kwargs={"k": 1})


def test_retrieval_chain_adds_context_and_answer_and_keeps_other_keys(retriever):
    chain = create_retrieval_chain(retriever, create_stuff_documents_chain(FakeListChatModel(responses=["Paris."]),
                                                                           PROMPT))
    result = chain.invoke({"input": "capital of France", "chat_history": ["earlier"]})
    assert list(result) == ["input", "chat_history", "context", "answer"]
    assert result["chat_history"] == ["earlier"] and result["answer"] == "Paris."
    assert [d.page_content for d in result["context"]] == ["Paris is the capital of France."]


def test_retrieval_chain_streams_input_then_context_then_answer_chunks(retriever):
    chain = create_retrieval_chain(retriever, create_stuff_documents_chain(
        FakeListChatModel(responses=["Paris is."]), PROMPT))
    chunks = list(chain.stream({"input": "capital of France"}))
    assert chunks[0] == {"input": "capital of France"}
    assert list(chunks[1]) == ["context"]
    answers = [c["answer"] for c in chunks[2:]]
    assert all(list(c) == ["answer"] for c in chunks[2:]) and len(answers) > 1 and "".join(answers) == "Paris is."


def test_retrieval_chain_async_matches_sync(retriever):
    def build():
        return create_retrieval_chain(retriever, create_stuff_documents_chain(
            FakeListChatModel(responses=["Paris."]), PROMPT))

    sync = build().invoke({"input": "capital of France"})
    assert asyncio.run(build().ainvoke({"input": "capital of France"})) == sync


def test_retrieval_chain_accepts_a_runnable_that_reads_the_whole_input():
    history_aware = RunnableLambda(lambda d: [Document(f"about {d['chat_history'][-1]}")])
    chain = create_retrieval_chain(history_aware, RunnableLambda(lambda d: d["context"][0].page_content))
    assert chain.invoke({"input": "and?", "chat_history": ["Paris"]})["answer"] == "about Paris"


def test_retrieval_chain_needs_the_input_key(retriever):
    chain = create_retrieval_chain(retriever, RunnableLambda(lambda d: "x"))
    with pytest.raises(KeyError, match="input"):
        chain.invoke({"question": "capital?"})


# -- differential checks against langchain-classic ------------------------------------------
classic = pytest.importorskip("langchain_classic.chains.combine_documents")


def test_stuff_chain_prompt_matches_langchain_classic():
    from langchain_core.documents import Document as LCDocument
    from langchain_core.language_models import FakeListChatModel as LCFake
    from langchain_core.prompts import ChatPromptTemplate as LCChat
    from langchain_core.prompts import PromptTemplate as LCPrompt

    seen = []

    class LCRecorder(LCFake):
        def _call(self, messages, stop=None, run_manager=None, **kwargs):
            seen.append(messages)
            return super()._call(messages, stop, run_manager, **kwargs)

    lc_chain = classic.create_stuff_documents_chain(
        LCRecorder(responses=["ok"]), LCChat.from_messages([("system", "Answer from:\n{context}"), ("human", "{input}")]),
        document_prompt=LCPrompt.from_template("<{source}> {page_content}"), document_separator="\n--\n")
    lc_chain.invoke({"input": "q", "context": [LCDocument(d.page_content, metadata=d.metadata) for d in DOCS]})

    model = Recorder(responses=["ok"])
    create_stuff_documents_chain(model, PROMPT, document_prompt="<{source}> {page_content}",
                                 document_separator="\n--\n").invoke({"input": "q", "context": DOCS})
    assert [m.content for m in model.seen[0]] == [m.content for m in seen[0]]
