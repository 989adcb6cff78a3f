"""Facts a user asked to be remembered, recalled by meaning in later conversations
(``rag chat --memory PATH``). A chat history is one session; these outlive sessions: they
are kept in a :class:`~rag.graph.store.BaseStore` under ``("memories", user)``.

>>> from rag.embeddings import HashingEmbeddings
>>> from rag.graph.store.memory import InMemoryStore
>>> store = InMemoryStore(index={"dims": 256, "embed": HashingEmbeddings(dim=256), "fields": ["text"]})
>>> memory = LongTermMemory(store, "ann")
>>> LongTermMemory.fact_in("Remember that my database server is called atlas")
'my database server is called atlas'
>>> memory.remember("my database server is called atlas").key
'fact-d27ff36d1a1c8a30'
>>> [item.value["text"] for item in memory.recall("what is my database server called?")]
['my database server is called atlas']
"""

from __future__ import annotations

import hashlib
import re
from contextlib import contextmanager
from typing import Any, Iterator, Optional

from rag.embeddings.base import Embeddings, model_id_of
from rag.errors import ValidationError
from rag.graph.store.base import BaseStore, Item, SearchItem

__all__ = ["LongTermMemory", "MEMORY_K", "MIN_RELEVANCE"]

#: Facts recalled per question at most.
MEMORY_K = 3
#: The cosine similarity (in [-1, 1]) a fact needs to the question to be recalled: below
#: it, a fact is about something else. 0.3 keeps a fact sharing a topic word with the
#: question under the hashing embeddings and a paraphrase under MiniLM.
MIN_RELEVANCE = 0.3

_REMEMBER = re.compile(r"^\s*remember(?:\s+that)?\s*[:,]?\s+(?P<fact>\S.*?)\s*$", re.IGNORECASE | re.DOTALL)
_META = ("rag", "long_term_memory")  # where a memory file records the model that embedded it


class LongTermMemory:
    """Facts of ``user`` in ``store`` (which needs an ``index`` whose fields include
    ``"text"``); ``k`` (default 3) facts at most are recalled, each at least
    ``min_relevance`` similar to the question (default 0.3)."""

    def __init__(self, store: BaseStore, user: str = "default", *, k: int = MEMORY_K,
                 min_relevance: float = MIN_RELEVANCE) -> None:
        if not isinstance(user, str) or not user or "." in user:
            raise ValidationError(f"a memory user name must be a non-empty str without '.', got {user!r:.60}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValidationError(f"k must be an int >= 1, got {k!r}")
        self.store, self.user, self.k, self.min_relevance = store, user, k, min_relevance
        self.namespace = ("memories", user)

    @classmethod
    @contextmanager
    def open(cls, path: str, embeddings: Embeddings, user: str = "default", **options: Any) -> Iterator["LongTermMemory"]:
        """The memory kept in the SQLite file ``path`` (created if absent), its facts
        embedded with ``embeddings``; a file written with another model is refused (its
        vectors would not compare with this one's)."""
        from rag.graph.store.sqlite import SqliteIndexConfig, SqliteStore

        dims = len(embeddings.embed_query("dimension probe"))
        index: SqliteIndexConfig = {"dims": dims, "embed": embeddings, "fields": ["text"]}
        with SqliteStore.from_conn_string(str(path), index=index) as store:
            model = model_id_of(embeddings)
            recorded = store.get(_META, "embeddings")
            if recorded is None:
                store.put(_META, "embeddings", {"model_id": model, "dims": dims}, index=False)
            elif recorded.value.get("model_id") != model:
                raise ValidationError(f"the memory file {path} was written with the embeddings "
                                      f"{recorded.value.get('model_id')!r}, not {model!r}: use the index it was made "
                                      "with, or another --memory file")
            yield cls(store, user, **options)

    @staticmethod
    def fact_in(line: str) -> Optional[str]:
        """The fact of a "remember ..." line ("remember that X", "remember: X"), else None."""
        match = _REMEMBER.match(line)
        return match.group("fact") if match else None

    def remember(self, fact: str) -> Item:
        """Keep ``fact``; the same fact again (ignoring case and spacing) is kept once."""
        if not isinstance(fact, str) or not fact.strip():
            raise ValidationError(f"a fact to remember must be a non-empty str, got {fact!r:.60}")
        text = " ".join(fact.split())
        key = "fact-" + hashlib.sha256(text.lower().encode()).hexdigest()[:16]
        self.store.put(self.namespace, key, {"text": text})
        item = self.store.get(self.namespace, key)
        assert item is not None
        return item

    def recall(self, question: str) -> list[SearchItem]:
        """The facts most similar to ``question``, best first (at most ``k``, each at
        least ``min_relevance``)."""
        found = self.store.search(self.namespace, query=question, limit=self.k)
        return [item for item in found if item.score is not None and item.score >= self.min_relevance]

    def facts(self, limit: int = 100) -> list[Item]:
        """Every fact kept for this user, newest first (``limit`` at most)."""
        return list(self.store.search(self.namespace, limit=limit))
