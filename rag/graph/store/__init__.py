"""Long-term memory for graphs (LangGraph's ``langgraph.store``): JSON documents under
namespaces that outlive a thread, in memory or in SQLite, with optional semantic search.

``from langgraph.store.memory import InMemoryStore`` becomes
``from rag.graph.store.memory import InMemoryStore`` (or ``from rag.graph.store import ...``);
``langgraph.store.sqlite``'s ``SqliteStore`` and ``langgraph.store.sqlite.aio``'s
``AsyncSqliteStore`` are ``rag.graph.store.sqlite`` / ``rag.graph.store.sqlite_aio``.

>>> store = InMemoryStore()
>>> store.put(("users", "ann"), "food", {"likes": "pears"})
>>> [item.value for item in store.search(("users",))]
[{'likes': 'pears'}]
"""

from rag.graph.store.base import (BaseStore, GetOp, IndexConfig, InvalidNamespaceError, Item, ListNamespacesOp,
                                  MatchCondition, PutOp, SearchItem, SearchOp, TTLConfig)
from rag.graph.store.memory import InMemoryStore
from rag.graph.store.sqlite import SqliteStore
from rag.graph.store.sqlite_aio import AsyncSqliteStore

__all__ = ["BaseStore", "InMemoryStore", "SqliteStore", "AsyncSqliteStore", "Item", "SearchItem", "GetOp", "PutOp",
           "SearchOp", "ListNamespacesOp", "MatchCondition", "InvalidNamespaceError", "IndexConfig", "TTLConfig"]
