"""Chat message histories: one conformance suite for the in-memory, file and SQLite ones,
then what each store promises on its own (crash safety, sessions, LangChain's tables)."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from rag.errors import InvalidTypeError, ValidationError
from rag.memory import (
    BaseChatMessageHistory,
    CorruptHistoryError,
    FileChatMessageHistory,
    InMemoryChatMessageHistory,
    SQLChatMessageHistory,
    message_to_dict,
)
from rag.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage

CONVERSATION = [
    SystemMessage("Be brief."),
    HumanMessage("Weather in Paris?", id="h1"),
    AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Paris"}, "id": "call_1"}],
              usage_metadata={"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}),
    ToolMessage("sunny, 21°C", tool_call_id="call_1", status="success"),
    AIMessage("Sunny, 21 °C.", response_metadata={"model_name": "m"}),
]


@pytest.fixture(params=["memory", "file", "sql"])
def make_history(request, tmp_path):
    def make(session: str = "s1") -> BaseChatMessageHistory:
        if request.param == "memory":
            return InMemoryChatMessageHistory()
        if request.param == "file":
            return FileChatMessageHistory(tmp_path / f"{session}.jsonl")
        return SQLChatMessageHistory(session, connection=tmp_path / "chats.sqlite")

    return make


# ---------------------------------------------------------------------- every store


def test_every_message_kind_reads_back_equal(make_history):
    history = make_history()
    history.add_messages(CONVERSATION)
    assert history.messages == CONVERSATION


def test_messages_keep_the_order_they_were_added_in_across_calls(make_history):
    history = make_history()
    history.add_user_message("one")
    history.add_ai_message("two")
    history.add_messages([HumanMessage("three"), AIMessage("four")])
    assert [m.content for m in history.messages] == ["one", "two", "three", "four"]
    assert [m.type for m in history.messages] == ["human", "ai", "human", "ai"]


def test_a_streamed_chunk_is_stored_as_a_whole_ai_message(make_history):
    history = make_history()
    history.add_message(AIMessageChunk("Hel") + AIMessageChunk("lo"))
    [stored] = history.messages
    assert type(stored) is AIMessage and stored.content == "Hello"


def test_clear_empties_the_history(make_history):
    history = make_history()
    history.add_messages(CONVERSATION)
    history.clear()
    assert history.messages == []


def test_a_list_with_a_non_message_stores_nothing(make_history):
    history = make_history()
    with pytest.raises(InvalidTypeError, match="got str 'oops'"):
        history.add_messages([HumanMessage("fine"), "oops"])
    assert history.messages == []


def test_async_methods_see_the_same_messages(make_history):
    import asyncio

    history = make_history()

    async def run():
        await history.aadd_messages([HumanMessage("hi")])
        return await history.aget_messages()

    assert [m.content for m in asyncio.run(run())] == ["hi"]


# ---------------------------------------------------------------------- the file


def test_the_file_holds_one_json_line_per_message_the_last_of_a_call_marked_end(tmp_path):
    path = tmp_path / "chat.jsonl"
    FileChatMessageHistory(path).add_messages([HumanMessage("q"), AIMessage("a")])
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["human", "ai"]
    assert "end" not in lines[0] and lines[1]["end"] is True
    assert all(line["at"].endswith("+00:00") for line in lines)
    assert lines[1]["data"] == message_to_dict(AIMessage("a"))["data"]


def test_adding_appends_without_rewriting_what_was_stored(tmp_path):
    path = tmp_path / "chat.jsonl"
    history = FileChatMessageHistory(path)
    history.add_messages(CONVERSATION)
    before = path.read_bytes()
    history.add_user_message("again")
    assert path.read_bytes().startswith(before)


def test_a_torn_last_line_is_ignored_and_cut_off_before_the_next_append(tmp_path):
    path = tmp_path / "chat.jsonl"
    history = FileChatMessageHistory(path)
    history.add_messages([HumanMessage("q1"), AIMessage("a1")])
    with open(path, "ab") as handle:  # a crash in the middle of writing the next call
        handle.write(b'{"type":"human","data":{"content":"q2","ty')
    assert [m.content for m in history.messages] == ["q1", "a1"]
    history.add_messages([HumanMessage("q3"), AIMessage("a3")])
    assert [m.content for m in history.messages] == ["q1", "a1", "q3", "a3"]
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_a_call_cut_after_its_first_line_stores_neither_of_its_messages(tmp_path):
    path = tmp_path / "chat.jsonl"
    history = FileChatMessageHistory(path)
    history.add_messages([HumanMessage("q1"), AIMessage("a1")])
    whole = path.read_bytes()
    history.add_messages([HumanMessage("q2"), AIMessage("a2")])
    second_call = path.read_bytes()[len(whole):]
    path.write_bytes(whole + second_call.split(b"\n")[0] + b"\n")  # the question's line reached the disk, not the answer's
    assert [m.content for m in history.messages] == ["q1", "a1"]
    history.add_user_message("q3")
    assert [m.content for m in history.messages] == ["q1", "a1", "q3"]


def test_nul_bytes_a_crash_left_at_the_end_are_ignored(tmp_path):
    path = tmp_path / "chat.jsonl"
    history = FileChatMessageHistory(path)
    history.add_messages([HumanMessage("q1"), AIMessage("a1")])
    with open(path, "ab") as handle:
        handle.write(b"\0" * 300)
    assert [m.content for m in history.messages] == ["q1", "a1"]


def test_a_corrupt_line_raises_naming_it_and_keeps_the_good_messages(tmp_path):
    path = tmp_path / "chat.jsonl"
    history = FileChatMessageHistory(path)
    history.add_messages([HumanMessage("q1"), AIMessage("a1")])
    with open(path, "ab") as handle:
        handle.write(b"this is not json\n")
    history2 = FileChatMessageHistory(path)
    corrupt = path.read_bytes()
    with pytest.raises(CorruptHistoryError, match=r"chat\.jsonl:3: not a chat message record") as caught:
        history2.get_messages()
    assert caught.value.location == f"{path}:3"
    assert [m.content for m in caught.value.messages] == ["q1", "a1"]
    with pytest.raises(CorruptHistoryError):
        history2.add_user_message("more")
    assert path.read_bytes() == corrupt  # nothing stored is lost or changed


def test_a_line_holding_json_that_is_no_message_is_corruption_too(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text('{"type": "human", "data": {"content": "ok"}}\n{"type": "robot", "data": {"content": "?"}}\n')
    with pytest.raises(CorruptHistoryError, match=r":2: .*robot") as caught:
        FileChatMessageHistory(path).get_messages()
    assert [m.content for m in caught.value.messages] == ["ok"]


def _append_many(path: str, who: str) -> None:
    history = FileChatMessageHistory(path)
    for turn in range(40):
        history.add_messages([HumanMessage(f"{who} q{turn}"), AIMessage(f"{who} a{turn}")])


def test_two_processes_appending_at_once_interleave_whole_calls(tmp_path):
    path = str(tmp_path / "chat.jsonl")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(path, who)) for who in ("x", "y")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    messages = FileChatMessageHistory(path).messages
    assert len(messages) == 160
    pairs = [(messages[i].content, messages[i + 1].content) for i in range(0, 160, 2)]
    assert all(q.replace(" q", " a") == a for q, a in pairs)


def test_a_folder_is_refused_as_a_history_file(tmp_path):
    with pytest.raises(ValidationError, match="is a folder"):
        FileChatMessageHistory(tmp_path)


# ---------------------------------------------------------------------- SQLite


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32-le", "cp037"])
def test_an_encoding_whose_newline_is_not_one_byte_10_is_refused_naming_it(tmp_path, encoding):
    # A line format: in UTF-16, "\u0a0a" holds the byte 10 and the history became unreadable.
    with pytest.raises(ValidationError, match=encoding):
        FileChatMessageHistory(tmp_path / "chat.jsonl", encoding=encoding)
    assert not (tmp_path / "chat.jsonl").exists()


def test_an_unknown_encoding_is_refused_naming_it(tmp_path):
    with pytest.raises(ValidationError, match="no-such-codec"):
        FileChatMessageHistory(tmp_path / "chat.jsonl", encoding="no-such-codec")


def test_latin_1_histories_read_back(tmp_path):
    history = FileChatMessageHistory(tmp_path / "chat.jsonl", encoding="latin-1")
    history.add_messages([HumanMessage("café"), AIMessage("ok")])
    assert [m.content for m in history.messages] == ["café", "ok"]


def test_sessions_in_one_database_do_not_see_each_other(tmp_path):
    db = tmp_path / "chats.sqlite"
    alice, bob = SQLChatMessageHistory("alice", connection=db), SQLChatMessageHistory("bob", connection=db)
    alice.add_user_message("I am Alice")
    bob.add_user_message("I am Bob")
    alice.clear()
    assert alice.messages == [] and [m.content for m in bob.messages] == ["I am Bob"]


def test_get_messages_limit_gives_the_newest_oldest_first(tmp_path):
    history = SQLChatMessageHistory("s", connection=tmp_path / "c.sqlite")
    history.add_messages([HumanMessage(str(n)) for n in range(5)])
    assert [m.content for m in history.get_messages(limit=2)] == ["3", "4"]
    assert history.get_messages(limit=0) == []
    with pytest.raises(ValidationError, match="limit must be a non-negative int"):
        history.get_messages(limit=-1)


def test_rows_are_indexed_by_session_and_timestamped(tmp_path):
    db = tmp_path / "c.sqlite"
    SQLChatMessageHistory("s", connection=db).add_user_message("hi")
    conn = sqlite3.connect(db)
    plan = " ".join(str(row) for row in conn.execute(
        "EXPLAIN QUERY PLAN SELECT message FROM message_store WHERE session_id = 's' ORDER BY id"))
    assert "USING INDEX message_store_by_session" in plan
    [(created,)] = conn.execute("SELECT created_at FROM message_store").fetchall()
    assert created.endswith("+00:00")


@pytest.mark.parametrize("session_id", [1, None, b"s", ""])
def test_a_session_id_that_is_not_a_non_empty_string_is_refused(tmp_path, session_id):
    with pytest.raises(ValidationError, match="session_id must be a non-empty str"):
        SQLChatMessageHistory(session_id, connection=tmp_path / "c.sqlite")


def test_a_connection_given_keeps_its_transactions_and_mode(tmp_path):
    conn = sqlite3.connect(tmp_path / "app.sqlite")
    conn.execute("CREATE TABLE orders (n)")
    conn.commit()
    conn.execute("INSERT INTO orders VALUES (1)")  # the application's pending change
    with pytest.raises(ValidationError, match="uncommitted"):
        SQLChatMessageHistory("s", conn)
    conn.rollback()
    assert conn.execute("SELECT count(*) FROM orders").fetchone() == (0,)
    history = SQLChatMessageHistory("s", conn)
    history.add_messages([HumanMessage("hi"), AIMessage("hello")])
    assert conn.isolation_level == "" and [m.content for m in history.messages] == ["hi", "hello"]
    conn.execute("INSERT INTO orders VALUES (2)")
    conn.rollback()  # still the application's to undo
    assert conn.execute("SELECT count(*) FROM orders").fetchone() == (0,)


def test_a_corrupt_row_raises_naming_it_and_keeps_the_good_messages(tmp_path):
    db = tmp_path / "c.sqlite"
    history = SQLChatMessageHistory("s", connection=db)
    history.add_user_message("fine")
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO message_store (session_id, message) VALUES ('s', '{broken')")
    conn.commit()
    with pytest.raises(CorruptHistoryError, match=r"message_store row id=2") as caught:
        history.get_messages()
    assert [m.content for m in caught.value.messages] == ["fine"]


def test_a_history_langchain_wrote_reads_back_here(tmp_path):
    from langchain_community.chat_message_histories import SQLChatMessageHistory as LCHistory
    from langchain_core import messages as lc

    db = tmp_path / "lc.sqlite"
    theirs = LCHistory("s", connection=f"sqlite:///{db}")
    theirs.add_messages([lc.HumanMessage("hi", id="h"), lc.AIMessage("", tool_calls=[
        {"name": "f", "args": {"x": 1}, "id": "c1"}]), lc.ToolMessage("2", tool_call_id="c1"), lc.AIMessage("done")])
    ours = SQLChatMessageHistory("s", connection=f"sqlite:///{db}")
    assert [(m.type, m.content) for m in ours.messages] == [("human", "hi"), ("ai", ""), ("tool", "2"), ("ai", "done")]
    assert ours.messages[1].tool_calls[0]["args"] == {"x": 1}
    ours.add_user_message("and more")  # the table gained created_at; LangChain still reads it
    assert [m.content for m in theirs.messages][-1] == "and more"


def test_a_history_written_here_reads_back_in_langchain(tmp_path):
    from langchain_community.chat_message_histories import SQLChatMessageHistory as LCHistory

    db = tmp_path / "ours.sqlite"
    SQLChatMessageHistory("s", connection=db).add_messages(CONVERSATION)
    theirs = LCHistory("s", connection=f"sqlite:///{db}").messages
    assert [(m.type, m.content) for m in theirs] == [(m.type, m.content) for m in CONVERSATION]
    assert theirs[2].tool_calls == CONVERSATION[2].tool_calls


def test_a_table_that_is_not_a_history_is_refused(tmp_path):
    db = tmp_path / "c.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE message_store (x INTEGER)")
    conn.commit()
    with pytest.raises(Exception, match="not a chat history table"):
        SQLChatMessageHistory("s", connection=db)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(deadline=None, max_examples=30)
@given(calls=st.lists(st.lists(st.text(min_size=0, max_size=30), min_size=1, max_size=3), min_size=1, max_size=5),
       cut=st.floats(0, 1))
def test_a_crash_at_any_byte_keeps_exactly_the_calls_written_whole(tmp_path_factory, calls, cut):
    path = tmp_path_factory.mktemp("crash") / "chat.jsonl"
    history = FileChatMessageHistory(path)
    ends = []
    for texts in calls:
        history.add_messages([HumanMessage(text) for text in texts])
        ends.append(path.stat().st_size)
    size = int(cut * ends[-1])
    with open(path, "r+b") as handle:  # the disk kept only the first `size` bytes
        handle.truncate(size)
    whole = [text for texts, end in zip(calls, ends) if end <= size for text in texts]
    assert [m.content for m in history.messages] == whole
    history.add_user_message("after the crash")
    assert [m.content for m in FileChatMessageHistory(path).messages] == [*whole, "after the crash"]
