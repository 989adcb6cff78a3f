"""Conversations over an index (rag.index.chat): follow-ups made retrievable offline or
rewritten by a model, history beside the index that survives updates, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chat_completions_server import Reply, ScriptedServer, completion
from rag.errors import ValidationError
from rag.index import ChatSession, Index, condense_question
from rag.memory import CorruptHistoryError, InMemoryChatMessageHistory
from rag.messages import AIMessage, HumanMessage

INDEXES = ("# Indexes\n\nCREATE INDEX builds an index on a column so that lookups are faster.\n\n"
           "DROP INDEX deletes an index; the table keeps its rows.\n")
TABLES = "# Tables\n\nCREATE TABLE makes a table. To remove a table, run DROP TABLE.\n"
BACKUPS = "# Backups\n\nBack up a database with pg_dump; restore the dump with psql.\n"


@pytest.fixture
def index(tmp_path: Path) -> Index:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in (("indexes.md", INDEXES), ("tables.md", TABLES), ("backups.md", BACKUPS)):
        (docs / name).write_text(text)
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(docs)])
    return index


def _first_source(answer) -> str:
    return Path(answer.sources[0].source).name


# ------------------------------------------------------------------ condensing offline


def test_a_follow_up_gets_the_content_words_of_the_previous_question():
    history = [HumanMessage("How do I create an index?"), AIMessage("CREATE INDEX [1].")]
    assert condense_question("and how do I remove it?", history) == "and how do I remove it? (create index)"


def test_words_of_the_two_last_questions_are_added_latest_first():
    history = [HumanMessage("How do I back up a database?"), AIMessage("pg_dump"),
               HumanMessage("and restore it?"), AIMessage("psql")]
    assert condense_question("does that need a lock?", history) == "does that need a lock? (restore back up database)"


def test_a_standalone_question_is_left_alone():
    history = [HumanMessage("How do I create an index?")]
    assert condense_question("How do I back up a database with pg_dump?", history) == \
        "How do I back up a database with pg_dump?"


def test_without_history_the_question_is_unchanged():
    assert condense_question("and how do I remove it?", []) == "and how do I remove it?"


# ------------------------------------------------------------------ sessions over an index


def test_offline_a_follow_up_finds_what_it_refers_to(index):
    assert _first_source(index.ask("and how do I remove it?")) == "tables.md"  # alone, it means tables
    chat = index.chat("s1")
    assert _first_source(chat.ask("How do I create an index?")) == "indexes.md"
    answer = chat.ask("and how do I remove it?")
    assert _first_source(answer) == "indexes.md"
    assert answer.question == "and how do I remove it?" and answer.cited_sources[0].n == 1


def test_each_turn_is_stored_in_the_sessions_file_beside_the_index(index):
    index.chat("work").ask("How do I create an index?")
    path = index.path / "chats" / "work.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["type"] for r in records] == ["human", "ai"]
    assert records[0]["data"]["content"] == "How do I create an index?" and "[1]" in records[1]["data"]["content"]


def test_sessions_are_kept_apart_and_resumed_by_name(index):
    index.chat("a").ask("How do I create an index?")
    index.chat("b").ask("How do I back up a database?")
    resumed = index.chat("a")
    assert [m.content for m in resumed.messages if m.type == "human"] == ["How do I create an index?"]
    assert _first_source(resumed.ask("and how do I remove it?")) == "indexes.md"


def test_a_session_survives_updating_the_index(index, tmp_path):
    index.chat("s").ask("How do I create an index?")
    (tmp_path / "docs" / "backups.md").write_text(BACKUPS + "\nVerify a backup by restoring it.\n")
    (tmp_path / "docs" / "views.md").write_text("# Views\n\nCREATE VIEW names a query.\n")
    summary = index.update([str(tmp_path / "docs")])
    assert summary.added and summary.updated
    reopened = Index.open(index.path)
    assert len(reopened.chat("s").messages) == 2
    assert "chats" not in json.loads((index.path / "manifest.json").read_text()).get("segments", [{}])[0].get("files", {})


def test_streaming_yields_the_answer_then_the_answer_object(index):
    pieces = list(index.chat("s").stream("How do I create an index?"))
    *texts, answer = pieces
    assert "".join(texts) == answer.answer and _first_source(answer) == "indexes.md"


def test_a_given_history_is_used_instead_of_the_file(index):
    history = InMemoryChatMessageHistory()
    ChatSession(index, "mem", history=history).ask("How do I create an index?")
    assert len(history.messages) == 2 and not (index.path / "chats").exists()


# ------------------------------------------------------------------ with a model


def test_with_a_model_the_model_rewrites_the_follow_up_and_answers_with_the_history(index):
    with ScriptedServer() as server:
        from rag.models import ChatOpenAI

        llm = ChatOpenAI(model="test-model", base_url=server.base_url, api_key="sk-test")
        server.script(Reply(body=completion("CREATE INDEX [1].")),
                      Reply(body=completion("How do I drop an index?")),
                      Reply(body=completion("Run DROP INDEX [1].")))
        chat = index.chat("m", llm=llm)
        chat.ask("How do I create an index?")
        answer = chat.ask("and how do I remove it?")
    first, rewrite, final = server.requests
    assert len(first["messages"]) == 2  # no history yet: no rewrite, system + question
    assert [m["content"] for m in rewrite["messages"][1:]] == ["How do I create an index?", "CREATE INDEX [1].",
                                                              "and how do I remove it?"]
    assert "DROP INDEX deletes an index" in final["messages"][0]["content"]  # retrieved with the rewrite
    assert [m["role"] for m in final["messages"]] == ["system", "user", "assistant", "user"]
    assert answer.answer == "Run DROP INDEX [1]." and _first_source(answer) == "indexes.md"


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("session", [1, None, "../escape", ".hidden", "", "a/b"])
def test_a_bad_session_name_is_refused(index, session):
    with pytest.raises(ValidationError, match="session name"):
        index.chat(session)


def test_a_corrupt_history_names_the_line_and_keeps_the_good_ones(index):
    chat = index.chat("s")
    chat.ask("How do I create an index?")
    path = index.path / "chats" / "s.jsonl"
    with open(path, "a") as handle:
        handle.write("{not json\n")
    before = path.read_bytes()
    with pytest.raises(CorruptHistoryError, match=r"s\.jsonl:3") as caught:
        index.chat("s").ask("and how do I remove it?")
    assert len(caught.value.messages) == 2 and path.read_bytes() == before


def test_an_empty_question_is_refused(index):
    with pytest.raises(ValidationError, match="a question must be a non-empty str"):
        index.chat("s").ask("   ")
