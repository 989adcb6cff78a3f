"""Vector stores written for LangChain work on our base: langchain-core 1.7.2's own
InMemoryVectorStore source, rebased onto ``stores.VectorStore`` (read from the installed
package, imports rewritten), behaves as the original; a custom store implementing only
LangChain's methods gets LangChain's derived methods, detected when the class is defined."""

import asyncio
import inspect
import textwrap
import types

import numpy as np
import pytest

from rag.documents import Document
from rag.embeddings import DeterministicFakeEmbedding
from stores import FAISS, InMemoryVectorStore, VectorStore

lc_in_memory = pytest.importorskip("langchain_core.vectorstores.in_memory")
lc_vectorstores = pytest.importorskip("langchain_core.vectorstores")
lc_documents = pytest.importorskip("langchain_core.documents")
lc_embeddings = pytest.importorskip("langchain_core.embeddings")

# LangChain warns about its own relevance values outside [0, 1]; ours are clipped.
pytestmark = pytest.mark.filterwarnings("ignore:Relevance scores must be between:UserWarning")

# The imports that tie LangChain's source to LangChain's classes, and ours.
REBASE = {
    "from langchain_core.documents import Document": "from rag.documents import Document",
    "from langchain_core.vectorstores import VectorStore": "from stores import VectorStore",
}


def rebased_in_memory_store() -> type:
    source = inspect.getsource(lc_in_memory)
    for theirs, ours in REBASE.items():
        assert theirs in source, f"langchain-core's in_memory.py no longer has {theirs!r}"
        source = source.replace(theirs, ours)
    module = types.ModuleType("rebased_in_memory")
    exec(compile(source, "<langchain_core/vectorstores/in_memory.py rebased>", "exec"), module.__dict__)
    return module.InMemoryVectorStore


Rebased = rebased_in_memory_store()
Original = lc_vectorstores.InMemoryVectorStore
TEXTS = ["foo", "bar", "baz", "foo bar", "qux"]
METADATAS = [{"n": i, "even": i % 2 == 0} for i in range(len(TEXTS))]
IDS = [f"id{i}" for i in range(len(TEXTS))]


def both(size: int = 6):
    ours = Rebased.from_texts(TEXTS, DeterministicFakeEmbedding(size=size), METADATAS, ids=IDS)
    theirs = Original.from_texts(TEXTS, lc_embeddings.DeterministicFakeEmbedding(size=size), METADATAS, ids=IDS)
    return ours, theirs


def plain(documents):
    return [(d.id, d.page_content, d.metadata) for d in documents]


def test_the_rebased_store_is_one_of_ours_and_recognised_as_langchain_style():
    store, _ = both()
    assert isinstance(store, VectorStore) and Rebased.implements_langchain_api
    assert not getattr(FAISS, "implements_langchain_api", False)
    assert not getattr(InMemoryVectorStore, "implements_langchain_api", False)


def test_similarity_search_with_score_matches_the_original():
    ours, theirs = both()
    got = ours.similarity_search_with_score("foo", k=3)
    expected = theirs.similarity_search_with_score("foo", k=3)
    assert plain(d for d, _ in got) == plain(d for d, _ in expected)
    np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], rtol=1e-12)


def test_add_texts_is_derived_from_its_add_documents_keeping_ids():
    ours, theirs = both()
    assert ours.add_texts(["new"], [{"x": 1}], ids=["n1"]) == theirs.add_texts(["new"], [{"x": 1}], ids=["n1"]) == ["n1"]
    assert plain(ours.get_by_ids(["n1"])) == plain(theirs.get_by_ids(["n1"]))


def test_from_documents_is_derived_from_its_from_texts():
    documents = [Document("alpha", {"k": 1}, "a"), Document("beta", {}, "b")]
    theirs_docs = [lc_documents.Document(page_content=d.page_content, metadata=d.metadata, id=d.id) for d in documents]
    ours = Rebased.from_documents(documents, DeterministicFakeEmbedding(size=4))
    theirs = Original.from_documents(theirs_docs, lc_embeddings.DeterministicFakeEmbedding(size=4))
    assert sorted(ours.store) == sorted(theirs.store) == ["a", "b"]


def test_async_adds_and_searches_match_the_original():
    async def run(store_cls, embedding):
        store = await store_cls.afrom_texts(TEXTS, embedding, METADATAS, ids=IDS)
        added = await store.aadd_texts(["late"], ids=["late"])
        found = await store.asimilarity_search("bar", k=2)
        documents = await store.aadd_documents([type(found[0])(page_content="doc", id="d")])
        return added, plain(found), documents, sorted(store.store)

    ours = asyncio.run(run(Rebased, DeterministicFakeEmbedding(size=6)))
    theirs = asyncio.run(run(Original, lc_embeddings.DeterministicFakeEmbedding(size=6)))
    assert ours == theirs


def test_callable_filters_delete_and_get_by_ids_match_the_original():
    ours, theirs = both()
    for store in (ours, theirs):
        store.delete(["id1"])
    keep_even = lambda document: document.metadata["even"]  # noqa: E731
    assert plain(ours.similarity_search("bar", k=5, filter=keep_even)) == plain(
        theirs.similarity_search("bar", k=5, filter=keep_even))
    assert plain(ours.get_by_ids(["id0", "id1", "id4"])) == plain(theirs.get_by_ids(["id0", "id1", "id4"]))


@pytest.mark.parametrize("search_type, search_kwargs", [
    ("similarity", {"k": 2}),
    ("mmr", {"k": 3, "fetch_k": 5, "lambda_mult": 0.1}),
])
def test_as_retriever_returns_what_the_originals_retriever_returns(search_type, search_kwargs):
    ours, theirs = both()
    got = ours.as_retriever(search_type=search_type, search_kwargs=search_kwargs).invoke("foo")
    expected = theirs.as_retriever(search_type=search_type, search_kwargs=search_kwargs).invoke("foo")
    assert plain(got) == plain(expected)


def test_threshold_retrieval_raises_not_implemented_as_the_original_does():
    ours, theirs = both()
    for store in (ours, theirs):
        retriever = store.as_retriever(search_type="similarity_score_threshold", search_kwargs={"score_threshold": 0.5})
        with pytest.raises(NotImplementedError):
            retriever.invoke("foo")


# ---------------------------------------------------------------------- a store of one's own

# Written for LangChain: add_texts, similarity_search_with_score_by_vector, from_texts and a
# relevance function; everything else comes from the base class.
CUSTOM = textwrap.dedent('''
    class DictStore(VectorStore):
        def __init__(self, embedding):
            self.embedding = embedding
            self.rows = {}

        @property
        def embeddings(self):
            return self.embedding

        def add_texts(self, texts, metadatas=None, *, ids=None, **kwargs):
            texts = list(texts)
            ids = list(ids) if ids else [f"auto{len(self.rows) + i}" for i in range(len(texts))]
            vectors = self.embedding.embed_documents(texts)
            for i, (text, vector) in enumerate(zip(texts, vectors)):
                self.rows[ids[i]] = (text, dict(metadatas[i]) if metadatas else {}, np.asarray(vector))
            return ids

        def similarity_search_with_score_by_vector(self, embedding, k=4, **kwargs):
            query = np.asarray(embedding)
            scored = []
            for doc_id, (text, metadata, vector) in self.rows.items():
                cosine = float(query @ vector / (np.linalg.norm(query) * np.linalg.norm(vector)))
                scored.append((Document(page_content=text, metadata=metadata, id=doc_id), 1.0 - cosine))
            return sorted(scored, key=lambda pair: pair[1])[:k]

        def similarity_search_with_score(self, query, k=4, **kwargs):
            return self.similarity_search_with_score_by_vector(self.embedding.embed_query(query), k, **kwargs)

        def similarity_search(self, query, k=4, **kwargs):
            return [document for document, _ in self.similarity_search_with_score(query, k, **kwargs)]

        def _select_relevance_score_fn(self):
            return self._cosine_relevance_score_fn

        @classmethod
        def from_texts(cls, texts, embedding, metadatas=None, *, ids=None, **kwargs):
            store = cls(embedding)
            store.add_texts(texts, metadatas, ids=ids)
            return store
''')


def custom_store(imports: str) -> type:
    namespace: dict = {"np": np}
    exec(imports + CUSTOM, namespace)
    return namespace["DictStore"]


OurDictStore = custom_store("from rag.documents import Document\nfrom stores import VectorStore\n")
TheirDictStore = custom_store("from langchain_core.documents import Document\n"
                              "from langchain_core.vectorstores import VectorStore\n")


def both_custom():
    ours = OurDictStore.from_texts(TEXTS, DeterministicFakeEmbedding(size=8), METADATAS, ids=IDS)
    theirs = TheirDictStore.from_texts(TEXTS, lc_embeddings.DeterministicFakeEmbedding(size=8), METADATAS, ids=IDS)
    return ours, theirs


def test_a_custom_store_gets_add_documents_from_its_add_texts():
    ours, theirs = both_custom()
    documents = [("fresh", {"f": 1}, "f1"), ("also", {}, None)]
    our_ids = ours.add_documents([Document(text, metadata, doc_id) for text, metadata, doc_id in documents])
    their_ids = theirs.add_documents([lc_documents.Document(page_content=t, metadata=m, id=i) for t, m, i in documents])
    assert our_ids == their_ids and our_ids[0] == "f1"


def test_a_custom_store_gets_relevance_scores_from_its_relevance_function():
    ours, theirs = both_custom()
    got = ours.similarity_search_with_relevance_scores("foo", k=5)
    expected = theirs.similarity_search_with_relevance_scores("foo", k=5)
    assert [d.id for d, _ in got] == [d.id for d, _ in expected]
    np.testing.assert_allclose([s for _, s in got], np.clip([s for _, s in expected], 0, 1), rtol=1e-12)


def test_a_custom_store_gets_threshold_retrieval_as_langchain_gives_it():
    ours, theirs = both_custom()
    kwargs = {"search_type": "similarity_score_threshold", "search_kwargs": {"score_threshold": 0.2, "k": 5}}
    assert plain(ours.as_retriever(**kwargs).invoke("foo")) == plain(theirs.as_retriever(**kwargs).invoke("foo"))


def test_a_custom_store_gets_async_methods_from_its_sync_ones():
    ours, theirs = both_custom()
    got = asyncio.run(ours.asimilarity_search_with_score("bar", k=2))
    expected = asyncio.run(theirs.asimilarity_search_with_score("bar", k=2))
    assert [d.id for d, _ in got] == [d.id for d, _ in expected]


def test_a_custom_store_that_searches_by_vector_gets_mmr_where_langchains_base_raises():
    ours, theirs = both_custom()
    with pytest.raises(NotImplementedError):
        theirs.max_marginal_relevance_search("foo", k=3, fetch_k=5)
    reference = InMemoryVectorStore.from_texts(TEXTS, DeterministicFakeEmbedding(size=8), METADATAS, ids=IDS)
    got = ours.max_marginal_relevance_search("foo", k=3, fetch_k=5, lambda_mult=0.3)
    expected = reference.max_marginal_relevance_search("foo", k=3, fetch_k=5, lambda_mult=0.3)
    assert [d.id for d in got] == [d.id for d in expected]


def test_what_cannot_be_derived_raises_not_implemented_naming_the_store():
    ours, _ = both_custom()
    with pytest.raises(NotImplementedError, match="DictStore does not implement delete"):
        ours.delete(["id0"])
    with pytest.raises(NotImplementedError, match="DictStore does not yet support get_by_ids"):
        ours.get_by_ids(["id0"])
    with pytest.raises(NotImplementedError, match="add_vectors\\(\\) needs our engine primitives"):
        ours.add_vectors(np.ones((1, 8)), [Document("x")])
    with pytest.raises(TypeError, match="cannot count its documents"):
        len(ours)
    assert ours  # truthiness does not need a count


def test_a_subclass_implementing_nothing_stays_abstract():
    class Nothing(VectorStore):
        pass

    with pytest.raises(TypeError, match="abstract"):
        Nothing()


def test_a_store_defining_only_add_documents_gets_add_texts_passing_ids():
    class DocumentsOnly(VectorStore):
        def __init__(self):
            self.added = []

        def add_documents(self, documents, **kwargs):
            self.added.append((documents, kwargs))
            return kwargs.get("ids") or [d.id for d in documents]

        def similarity_search(self, query, k=4, **kwargs):
            return []

    store = DocumentsOnly()
    assert store.add_texts(["a", "b"], [{"m": 1}, {"m": 2}], ids=["x", "y"]) == ["x", "y"]
    documents, kwargs = store.added[0]
    assert [(d.page_content, d.metadata, d.id) for d in documents] == [("a", {"m": 1}, "x"), ("b", {"m": 2}, "y")]
    assert kwargs == {"ids": ["x", "y"]}
