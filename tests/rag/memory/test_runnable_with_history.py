"""RunnableWithMessageHistory: LangChain's shapes (checked against langchain-core 1.7.2),
and where it is stricter: whole AIMessages from streams, output that cannot be stored
raises, failed or abandoned calls store nothing."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from rag.errors import ValidationError
from rag.memory import InMemoryChatMessageHistory, RunnableWithMessageHistory
from rag.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from rag.models import FakeListChatModel
from rag.runnables import ConfigurableFieldSpec, RunnableGenerator, RunnableLambda

# LangChain deprecates its in-memory history and RunnableWithMessageHistory (for LangGraph
# persistence); they are still the references here.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

S1 = {"configurable": {"session_id": "s1"}}


def _store():
    histories: dict = {}
    return histories, lambda session_id: histories.setdefault(session_id, InMemoryChatMessageHistory())


def _count_reply(messages):
    return AIMessage(f"seen {len(messages)}")


# ------------------------------------------------------------- the same shapes as LangChain


def _shape(value):
    """Messages as (type, content); other values as they are (both frameworks)."""
    if isinstance(value, list):
        return [_shape(item) for item in value]
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if hasattr(value, "type") and hasattr(value, "content"):
        return (value.type, value.content)
    return value


def _run_both(make_runnable, inputs, config, **keys):
    """Run the same conversation through LangChain's and our wrapper; return what the wrapped
    runnable saw and what each stored, as shapes."""
    from langchain_core.chat_history import InMemoryChatMessageHistory as LCHistory
    from langchain_core.runnables import RunnableLambda as LCLambda
    from langchain_core.runnables.history import RunnableWithMessageHistory as LCWith

    results = []
    for lambda_class, history_class, wrapper_class in ((LCLambda, LCHistory, LCWith),
                                                        (RunnableLambda, InMemoryChatMessageHistory,
                                                         RunnableWithMessageHistory)):
        seen, histories = [], {}

        def get(*args, **kwargs):
            return histories.setdefault((args, tuple(sorted(kwargs.items()))), history_class())

        def body(value, make=make_runnable, seen=seen):
            seen.append(_shape(value))
            return make(value)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            wrapped = wrapper_class(lambda_class(body), get, **keys)
        outputs = [_shape(wrapped.invoke(value, config)) for value in inputs]
        results.append((seen, outputs, {k: _shape(h.messages) for k, h in histories.items()}))
    return results


def _lc_reply(messages):
    from langchain_core.messages import AIMessage as LCAIMessage

    return LCAIMessage(f"seen {len(messages)}")


def test_messages_in_messages_out_match_langchain():
    lc, ours = _run_both(lambda value: _lc_reply(value) if type(value[0]).__module__.startswith("langchain")
                         else _count_reply(value), ["hi", "again"], S1)
    assert ours == lc
    assert ours[2] == {(("s1",), ()): [("human", "hi"), ("ai", "seen 1"), ("human", "again"), ("ai", "seen 3")]}


def test_dict_input_with_a_history_key_and_a_dict_output_match_langchain():
    keys = dict(input_messages_key="question", history_messages_key="history", output_messages_key="answer")
    lc, ours = _run_both(lambda value: {"answer": f"{value['question']} ({len(value['history'])} before)", "extra": 1},
                         [{"question": "q1"}, {"question": "q2"}], S1, **keys)
    assert ours == lc
    assert ours[1][1] == {"answer": "q2 (2 before)", "extra": 1}


def test_input_key_without_history_key_puts_the_history_under_the_input_key_as_langchain():
    lc, ours = _run_both(lambda value: f"{len(value['input'])} messages", [{"input": "a"}, {"input": "b"}], S1,
                         input_messages_key="input")
    assert ours == lc
    assert ours[0][1] == {"input": [("human", "a"), ("ai", "1 messages"), ("human", "b")]}


def test_custom_history_keys_match_langchain():
    specs = [ConfigurableFieldSpec(id="user_id", annotation=str), ConfigurableFieldSpec(id="conversation_id", annotation=str)]
    from langchain_core.runnables import ConfigurableFieldSpec as LCSpec

    lc_specs = [LCSpec(id="user_id", annotation=str), LCSpec(id="conversation_id", annotation=str)]
    config = {"configurable": {"user_id": "u", "conversation_id": "c"}}

    def both(value):
        return f"{len(value)}"

    from langchain_core.chat_history import InMemoryChatMessageHistory as LCHistory
    from langchain_core.runnables import RunnableLambda as LCLambda
    from langchain_core.runnables.history import RunnableWithMessageHistory as LCWith

    stores: list[dict] = [{}, {}]

    def lc_get(user_id, conversation_id):
        return stores[0].setdefault((user_id, conversation_id), LCHistory())

    def our_get(user_id, conversation_id):
        return stores[1].setdefault((user_id, conversation_id), InMemoryChatMessageHistory())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        theirs = LCWith(LCLambda(both), lc_get, history_factory_config=lc_specs)
    ours = RunnableWithMessageHistory(RunnableLambda(both), our_get, history_factory_config=specs)
    for value in ("x", "y"):
        assert theirs.invoke(value, config) == ours.invoke(value, config)
    assert {k: _shape(v.messages) for k, v in stores[0].items()} == {k: _shape(v.messages) for k, v in stores[1].items()}
    assert [spec.id for spec in ours.config_specs] == ["user_id", "conversation_id"]


def test_the_session_id_is_a_config_spec_as_in_langchain():
    _, get = _store()
    specs = RunnableWithMessageHistory(RunnableLambda(_count_reply), get).config_specs
    assert [(s.id, s.annotation, s.is_shared) for s in specs] == [("session_id", str, True)]


# ------------------------------------------------------------- stricter than LangChain


def test_a_streamed_answer_is_stored_as_one_whole_ai_message():
    histories, get = _store()
    chat = RunnableWithMessageHistory(FakeListChatModel(responses=["Hello there"]), get)
    chunks = list(chat.stream("hi", S1))
    assert len(chunks) > 1 and all(isinstance(chunk, AIMessageChunk) for chunk in chunks)
    stored = histories["s1"].messages[-1]
    assert type(stored) is AIMessage and stored.content == "Hello there"


def test_langchain_stores_the_chunk_where_we_store_the_message():
    from langchain_core.chat_history import InMemoryChatMessageHistory as LCHistory
    from langchain_core.language_models.fake_chat_models import FakeListChatModel as LCFake
    from langchain_core.runnables.history import RunnableWithMessageHistory as LCWith

    history = LCHistory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        list(LCWith(LCFake(responses=["Hello there"]), lambda session_id: history).stream("hi", S1))
    assert type(history.messages[-1]).__name__ == "AIMessageChunk"  # the difference this class removes


def test_an_async_stream_is_stored_as_one_whole_ai_message():
    histories, get = _store()
    chat = RunnableWithMessageHistory(FakeListChatModel(responses=["Hi!"]), get)

    async def run():
        return [chunk async for chunk in chat.astream("hi", S1)]

    asyncio.run(run())
    assert [(type(m).__name__, m.content) for m in histories["s1"].messages] == [("HumanMessage", "hi"), ("AIMessage", "Hi!")]


def test_output_without_the_answer_key_raises_and_stores_nothing():
    histories, get = _store()
    chat = RunnableWithMessageHistory(RunnableLambda(lambda d: {"reply": "x", "other": 1}), get,
                                      input_messages_key="input")
    with pytest.raises(ValidationError, match=r"no key 'output' \(keys: \['other', 'reply'\]\); set output_messages_key"):
        chat.invoke({"input": "hi"}, S1)
    assert histories["s1"].messages == []


def test_output_that_is_not_messages_raises():
    _, get = _store()
    chat = RunnableWithMessageHistory(RunnableLambda(lambda messages: 42), get)
    with pytest.raises(ValidationError, match="expected a str, a message or a list of messages, got int 42"):
        chat.invoke("hi", S1)


def test_a_failed_call_stores_nothing():
    histories, get = _store()

    def fail(messages):
        raise RuntimeError("model down")

    chat = RunnableWithMessageHistory(RunnableLambda(fail), get)
    with pytest.raises(RuntimeError, match="model down"):
        chat.invoke("hi", S1)
    assert histories["s1"].messages == []


def test_a_stream_that_fails_midway_stores_nothing():
    histories, get = _store()

    def broken(chunks):
        for _ in chunks:
            pass
        yield AIMessageChunk("Hal")
        raise RuntimeError("connection reset")

    chat = RunnableWithMessageHistory(RunnableGenerator(broken), get)
    with pytest.raises(RuntimeError, match="connection reset"):
        list(chat.stream("hi", S1))
    assert histories["s1"].messages == []


def test_a_stream_abandoned_by_its_reader_stores_nothing():
    histories, get = _store()
    chat = RunnableWithMessageHistory(FakeListChatModel(responses=["a long answer"]), get)
    stream = chat.stream("hi", S1)
    next(stream)
    stream.close()
    assert histories["s1"].messages == []
    chat.invoke("hi again", S1)  # the next turn is whole
    assert [m.content for m in histories["s1"].messages] == ["hi again", "a long answer"]


def test_a_missing_session_id_names_the_key_to_pass():
    _, get = _store()
    chat = RunnableWithMessageHistory(RunnableLambda(_count_reply), get)
    with pytest.raises(ValidationError, match=r"Missing keys \['session_id'\] in config\['configurable'\]"):
        chat.invoke("hi")


@pytest.mark.parametrize("session_id", [1, None, ["s"]])
def test_a_session_id_that_is_not_a_string_is_refused(session_id):
    histories, get = _store()
    chat = RunnableWithMessageHistory(RunnableLambda(_count_reply), get)
    with pytest.raises(ValidationError, match=r"config\['configurable'\]\['session_id'\] must be a non-empty str"):
        chat.invoke("hi", {"configurable": {"session_id": session_id}})
    assert histories == {}


def test_history_keys_that_do_not_match_the_factory_parameters_are_refused():
    specs = [ConfigurableFieldSpec(id="user_id", annotation=str), ConfigurableFieldSpec(id="thread", annotation=str)]
    with pytest.raises(ValidationError, match="do not match parameter names"):
        RunnableWithMessageHistory(RunnableLambda(_count_reply), lambda user_id, other: None,
                                   history_factory_config=specs)


def test_input_without_the_input_key_is_refused_naming_the_keys():
    _, get = _store()
    chat = RunnableWithMessageHistory(RunnableLambda(lambda d: "x"), get, input_messages_key="question",
                                      history_messages_key="history")
    with pytest.raises(ValidationError, match=r"no key 'question' \(keys: \['q'\]\)"):
        chat.invoke({"q": "hi"}, S1)


def test_ainvoke_keeps_the_conversation():
    histories, get = _store()
    chat = RunnableWithMessageHistory(RunnableLambda(_count_reply), get)

    async def run():
        await chat.ainvoke("one", S1)
        return await chat.ainvoke("two", S1)

    assert asyncio.run(run()).content == "seen 3"
    assert len(histories["s1"].messages) == 4


def test_sessions_are_kept_apart():
    histories, get = _store()
    chat = RunnableWithMessageHistory(RunnableLambda(_count_reply), get)
    chat.invoke("a", S1)
    assert chat.invoke("b", {"configurable": {"session_id": "s2"}}).content == "seen 1"


def test_the_model_receives_the_history_before_the_new_message():
    seen: list[list[BaseMessage]] = []
    _, get = _store()
    chat = RunnableWithMessageHistory(RunnableLambda(lambda m: seen.append(m) or AIMessage("ok")), get)
    chat.invoke("first", S1)
    chat.invoke(HumanMessage("second"), S1)
    assert [(m.type, m.content) for m in seen[1]] == [("human", "first"), ("ai", "ok"), ("human", "second")]


def test_langchain_also_stores_nothing_for_an_abandoned_stream():
    from langchain_core.chat_history import InMemoryChatMessageHistory as LCHistory
    from langchain_core.language_models.fake_chat_models import FakeListChatModel as LCFake
    from langchain_core.runnables.history import RunnableWithMessageHistory as LCWith

    history = LCHistory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        stream = LCWith(LCFake(responses=["a long answer"]), lambda session_id: history).stream("hi", S1)
    next(stream)
    stream.close()
    assert history.messages == []  # the behaviour we keep (and test above for ours)


def test_an_async_stream_closed_early_stores_nothing():
    histories, get = _store()
    chat = RunnableWithMessageHistory(FakeListChatModel(responses=["a long answer"]), get)

    async def run():
        stream = chat.astream("hi", S1)
        await stream.__anext__()
        await stream.aclose()

    asyncio.run(run())
    assert histories["s1"].messages == []


def test_its_event_stream_shows_the_wrapper_and_the_models_tokens():
    histories, get = _store()
    chat = RunnableWithMessageHistory(FakeListChatModel(responses=["Hello there"]), get)

    async def run():
        return [event async for event in chat.astream_events("hi", S1, version="v2")]

    events = asyncio.run(run())
    kinds = [(event["event"], event["name"]) for event in events]
    assert kinds[0] == ("on_chain_start", "RunnableWithMessageHistory")
    assert kinds[-1] == ("on_chain_end", "RunnableWithMessageHistory")
    tokens = [event["data"]["chunk"].content for event in events if event["event"] == "on_chat_model_stream"]
    assert "".join(tokens) == "Hello there"
    assert [m.content for m in histories["s1"].messages] == ["hi", "Hello there"]
