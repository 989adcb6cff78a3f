"""Classic memories over the project's chat histories: what they load, what they save,
and that a file or SQLite history keeps it (pruning included)."""

import pytest

from rag.classic.chains import ConversationChain
from rag.classic.memory import (
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
    ConversationTokenBufferMemory,
    ReadOnlySharedMemory,
    VectorStoreRetrieverMemory,
)
from rag.errors import ValidationError
from rag.memory import FileChatMessageHistory, SQLChatMessageHistory
from rag.messages import HumanMessage, SystemMessage
from rag.models import FakeListChatModel
from rag.prompts import PromptTemplate


class CountingModel(FakeListChatModel):
    """Counts one token per word of the messages' text."""

    def get_num_tokens_from_messages(self, messages):
        return sum(len(m.text.split()) for m in messages)


@pytest.fixture(params=["file", "sqlite"])
def history_factory(request, tmp_path):
    """A function giving the same stored history each time it is called (a restart)."""
    if request.param == "file":
        return lambda: FileChatMessageHistory(tmp_path / "chat.jsonl")
    return lambda: SQLChatMessageHistory("s1", tmp_path / "chat.db")


def test_buffer_memory_persists_in_a_stored_history(history_factory):
    ConversationBufferMemory(chat_memory=history_factory()).save_context({"input": "hi"}, {"output": "hello"})
    restarted = ConversationBufferMemory(chat_memory=history_factory())
    assert restarted.load_memory_variables({}) == {"history": "Human: hi\nAI: hello"}


def test_a_conversation_chain_resumes_from_a_stored_history(history_factory):
    first = ConversationChain(llm=FakeListChatModel(responses=["Hi Ann."]),
                              memory=ConversationBufferMemory(chat_memory=history_factory()))
    first.invoke({"input": "I'm Ann."})
    second = ConversationChain(llm=FakeListChatModel(responses=["Ann."]),
                               memory=ConversationBufferMemory(chat_memory=history_factory()))
    second.invoke({"input": "Who am I?"})
    assert [m.text for m in history_factory().messages] == ["I'm Ann.", "Hi Ann.", "Who am I?", "Ann."]


def test_token_buffer_pruning_is_kept_by_a_stored_history(history_factory):
    memory = ConversationTokenBufferMemory(llm=CountingModel(responses=["x"]), max_token_limit=4,
                                           chat_memory=history_factory())
    memory.save_context({"input": "one two"}, {"output": "three"})
    memory.save_context({"input": "four five"}, {"output": "six"})
    assert [m.text for m in history_factory().messages] == ["three", "four five", "six"]


def test_summary_buffer_summarises_what_leaves_the_window_of_a_stored_history(history_factory):
    memory = ConversationSummaryBufferMemory(llm=CountingModel(responses=["they counted"]), max_token_limit=4,
                                             chat_memory=history_factory(), return_messages=True)
    memory.save_context({"input": "one two"}, {"output": "three"})
    memory.save_context({"input": "four five"}, {"output": "six"})
    loaded = memory.load_memory_variables({})["history"]
    assert isinstance(loaded[0], SystemMessage) and loaded[0].text == "they counted"
    assert [m.text for m in history_factory().messages] == ["three", "four five", "six"]


def test_window_memory_loads_the_last_k_exchanges_and_keeps_the_rest():
    memory = ConversationBufferWindowMemory(k=1, return_messages=True)
    memory.save_context({"input": "a"}, {"output": "b"})
    memory.save_context({"input": "c"}, {"output": "d"})
    assert [m.text for m in memory.load_memory_variables({})["history"]] == ["c", "d"]
    assert len(memory.chat_memory.messages) == 4


def test_summary_memory_from_messages_summarises_an_existing_history():
    history = SQLChatMessageHistory("s", ":memory:")
    history.add_messages([HumanMessage("hi"), HumanMessage("there")])
    memory = ConversationSummaryMemory.from_messages(FakeListChatModel(responses=["greeting"]), history)
    assert memory.buffer == "greeting"


def test_summary_memory_refuses_a_prompt_without_its_variables():
    with pytest.raises(ValidationError, match="summary"):
        ConversationSummaryMemory(llm=FakeListChatModel(responses=["x"]), prompt=PromptTemplate.from_template("{x}"))


def test_several_outputs_need_an_output_key():
    memory = ConversationBufferMemory()
    with pytest.raises(ValueError, match="output_key"):
        memory.save_context({"input": "a"}, {"x": 1, "y": 2})


def test_the_input_key_is_the_one_that_is_not_a_memory_variable():
    memory = ConversationBufferMemory()
    with pytest.raises(ValueError, match="One input key expected"):
        memory.save_context({"a": 1, "b": 2}, {"output": "x"})


def test_read_only_memory_reads_but_never_writes():
    shared = ConversationBufferMemory()
    shared.save_context({"input": "a"}, {"output": "b"})
    reader = ReadOnlySharedMemory(memory=shared)
    reader.save_context({"input": "c"}, {"output": "d"})
    assert reader.load_memory_variables({}) == {"history": "Human: a\nAI: b"}


def test_conversation_chain_refuses_an_input_key_the_memory_provides():
    with pytest.raises(ValidationError, match="input key history was also found in the memory keys"):
        ConversationChain(llm=FakeListChatModel(responses=["x"]), input_key="history")


def test_conversation_chain_refuses_a_prompt_that_does_not_fit_its_memory():
    with pytest.raises(ValidationError, match="unexpected prompt input variables"):
        ConversationChain(llm=FakeListChatModel(responses=["x"]), prompt=PromptTemplate.from_template("{input}"))


def test_vector_store_memory_recalls_relevant_exchanges_from_an_index(tmp_path):
    from stores import InMemoryVectorStore
    from rag.embeddings import HashingEmbeddings

    store = InMemoryVectorStore(HashingEmbeddings())
    memory = VectorStoreRetrieverMemory(retriever=store.as_retriever(search_kwargs={"k": 1}))
    memory.save_context({"input": "my favourite food is pizza"}, {"output": "noted"})
    memory.save_context({"input": "my sister lives in Oslo"}, {"output": "ok"})
    recalled = memory.load_memory_variables({"prompt": "where does my sister live"})["history"]
    assert recalled == "input: my sister lives in Oslo\noutput: ok"
