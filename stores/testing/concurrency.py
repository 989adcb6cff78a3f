"""Conformance: the async API and threads sharing one store."""

from __future__ import annotations

import asyncio
import threading

from rag.embeddings import HashingEmbeddings

__all__ = ["AsyncTests", "ConcurrencyTests"]


class AsyncTests:
    """The ``a*`` methods give the results of their sync twins."""

    def test_async_methods_give_the_sync_results(self, store):
        async def run():
            await store.aadd_texts(["red apple", "green pear", "blue sky"], ids=["a", "p", "s"])
            similar = await store.asimilarity_search("apple", k=2)
            expected = store.similarity_search("apple", k=2)
            mmr = await store.amax_marginal_relevance_search("apple", k=2)
            scored = await store.asimilarity_search_with_relevance_scores("apple", k=1)
            await store.adelete(["s"])
            return similar, expected, mmr, scored, await store.aget_by_ids(["a", "s"])

        similar, expected, mmr, scored, got = asyncio.run(run())
        assert [d.id for d in similar] == [d.id for d in expected]
        assert mmr[0].id == "a" and scored[0][0].id == "a"
        assert [d.id for d in got] == ["a"]


class ConcurrencyTests:
    """Threads adding and searching at once lose nothing."""

    def test_eight_threads_adding_and_searching_lose_nothing(self, make_store):
        store = make_store(HashingEmbeddings(dim=32))
        errors: list[BaseException] = []

        def work(worker: int) -> None:
            try:
                for batch in range(10):
                    ids = [f"{worker}-{batch}-{i}" for i in range(5)]
                    store.add_texts([f"worker {worker} batch {batch} item {i}" for i in range(5)], ids=ids)
                    assert len(store.similarity_search(f"worker {worker}", k=3)) == 3
            except BaseException as exc:  # collected: a thread's failure must fail the test
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert len(store) == 8 * 10 * 5
        wanted = [f"{w}-{b}-{i}" for w in range(8) for b in range(10) for i in range(5)]
        assert len(store.get_by_ids(wanted)) == 400
        assert store.similarity_search("worker 3 batch 7 item 2", k=1)[0].id == "3-7-2"
