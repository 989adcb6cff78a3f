"""SQLChatMessageHistory's connection strings: the SQLAlchemy URLs LangChain users write,
SQLite URIs with their query parameters, and a clear refusal of anything else."""

from __future__ import annotations

import sqlite3

import pytest

from rag.errors import StorageError, ValidationError
from rag.memory import SQLChatMessageHistory
from rag.memory._sqlite_target import SqliteTarget, sqlite_target


@pytest.fixture
def stored(tmp_path):
    """A database holding session "s" with two messages."""
    db = tmp_path / "chats.sqlite"
    history = SQLChatMessageHistory("s", connection=db)
    history.add_user_message("hi")
    history.add_ai_message("hello")
    history.close()
    return db


@pytest.mark.parametrize("connection, target", [
    ("chats.sqlite", SqliteTarget("chats.sqlite")),
    ("data/chats?.sqlite", SqliteTarget("data/chats?.sqlite", folder="data")),
    ("sqlite://", SqliteTarget(":memory:")),
    ("sqlite:///:memory:", SqliteTarget(":memory:")),
    ("sqlite:///data/chats.db", SqliteTarget("data/chats.db", folder="data")),
    ("sqlite:////srv/chats.db", SqliteTarget("/srv/chats.db", folder="/srv")),
    ("sqlite+pysqlite:///my%20chats.db", SqliteTarget("my chats.db")),
    ("sqlite:///chats.db?timeout=5&check_same_thread=false", SqliteTarget("chats.db", timeout=5.0)),
    ("sqlite:////srv/chats.db?mode=ro", SqliteTarget("file:/srv/chats.db?mode=ro", uri=True)),
    ("sqlite:///file:chats.db?mode=ro&uri=true", SqliteTarget("file:chats.db?mode=ro", uri=True)),
    ("sqlite:///data/chats.db?cache=shared", SqliteTarget("file:data/chats.db?cache=shared", uri=True, folder="data")),
    ("sqlite:///a%3Fb.db?uri=true", SqliteTarget("file:a%3Fb.db", uri=True)),
    ("sqlite://?mode=memory&cache=shared", SqliteTarget("file::memory:?mode=memory&cache=shared", uri=True)),
    ("file:chats.db?mode=ro", SqliteTarget("file:chats.db?mode=ro", uri=True)),
])
def test_each_connection_form_names_the_database_sqlite3_opens(connection, target):
    assert sqlite_target(connection) == target


def test_a_sqlite_url_with_mode_ro_opens_the_file_read_only(stored):
    history = SQLChatMessageHistory("s", connection=f"sqlite:///{stored}?mode=ro")
    assert [m.content for m in history.messages] == ["hi", "hello"]
    with pytest.raises(StorageError, match="read-only"):
        history.add_user_message("more")
    assert [m.content for m in SQLChatMessageHistory("s", connection=stored).messages] == ["hi", "hello"]


def test_sqlalchemys_uri_form_reads_what_langchain_reads(stored):
    from langchain_community.chat_message_histories import SQLChatMessageHistory as LCHistory

    url = f"sqlite:///file:{stored}?mode=ro&uri=true"
    ours = SQLChatMessageHistory("s", connection=url).messages
    theirs = LCHistory("s", connection=url).messages
    assert [m.content for m in ours] == [m.content for m in theirs] == ["hi", "hello"]


def test_a_file_uri_opens_with_its_parameters(stored):
    history = SQLChatMessageHistory("s", connection=f"file:{stored}?mode=ro")
    assert [m.content for m in history.messages] == ["hi", "hello"]
    with pytest.raises(StorageError, match="read-only"):
        history.clear()


def test_a_read_only_url_never_creates_the_file(tmp_path):
    missing = tmp_path / "absent" / "chats.sqlite"
    with pytest.raises(StorageError, match="cannot open the chat history database"):
        SQLChatMessageHistory("s", connection=f"sqlite:///{missing}?mode=ro")
    assert not (tmp_path / "absent").exists()


def test_a_read_only_database_without_the_table_says_so(tmp_path):
    db = tmp_path / "empty.sqlite"
    sqlite3.connect(db).close()
    with pytest.raises(StorageError, match="read-only"):
        SQLChatMessageHistory("s", connection=f"file:{db}?mode=ro")


@pytest.mark.parametrize("connection, named", [
    ("sqlite:///chats.db?mod=ro", "mod"),
    ("sqlite:///chats.db?isolation_level=DEFERRED", "isolation_level"),
    ("file:chats.db?timeout=5", "timeout"),
    ("sqlite:///chats.db?mode=ro&mode=rw", "mode"),
    ("sqlite:///chats.db?timeout=soon", "soon"),
    ("sqlite:///chats.db?uri=maybe", "maybe"),
    ("sqlite://localhost/chats.db", "no host"),
    ("postgresql://db/chats", "SQLite"),
])
def test_an_unknown_form_is_refused_naming_what_is_wrong(connection, named, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValidationError, match=named):
        SQLChatMessageHistory("s", connection=connection)
    assert list(tmp_path.iterdir()) == []
