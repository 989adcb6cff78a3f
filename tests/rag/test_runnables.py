"""The minimal Runnable core: invoke, async, batch, stream and composition."""

import asyncio
import threading
import time

import pytest

from rag.errors import ValidationError
from rag.runnables import Runnable, RunnableLambda, RunnableSequence


def test_a_lambda_runs_its_function():
    assert RunnableLambda(lambda x: x * 2).invoke(21) == 42


def test_a_lambda_that_takes_config_receives_it():
    seen = {}

    def record(x, config):
        seen.update(config)
        return x

    RunnableLambda(record).invoke(1, {"tags": ["t"], "metadata": {"m": 1}})
    assert seen == {"tags": ["t"], "metadata": {"m": 1}}


def test_pipe_operator_composes_left_to_right_and_coerces_callables():
    chain = RunnableLambda(lambda x: x + 1) | (lambda x: x * 10)
    assert isinstance(chain, RunnableSequence) and chain.invoke(1) == 20


def test_a_callable_on_the_left_of_a_runnable_composes_too():
    assert ((lambda x: x + 1) | RunnableLambda(str)).invoke(1) == "2"


def test_nested_sequences_flatten_into_one():
    chain = (RunnableLambda(abs) | RunnableLambda(str)) | (RunnableLambda(len) | RunnableLambda(bool))
    assert len(chain.steps) == 4 and chain.first.func is abs


def test_config_is_passed_to_every_step():
    seen = []
    step = RunnableLambda(lambda x, config: seen.append(config["metadata"]) or x)
    (step | step).invoke(0, {"metadata": {"run": 1}})
    assert seen == [{"run": 1}, {"run": 1}]


def test_batch_keeps_input_order():
    def slow(x):
        time.sleep(0.01 * (5 - x))
        return x

    assert RunnableLambda(slow).batch([1, 2, 3, 4]) == [1, 2, 3, 4]


def test_batch_respects_max_concurrency():
    active, peak, lock = [0], [0], threading.Lock()

    def track(x):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.02)
        with lock:
            active[0] -= 1
        return x

    RunnableLambda(track).batch(list(range(8)), {"max_concurrency": 2})
    assert peak[0] <= 2


def test_batch_runs_concurrently_without_a_limit():
    barrier = threading.Barrier(3, timeout=5)
    assert RunnableLambda(lambda x: barrier.wait() >= 0 and x).batch([1, 2, 3]) == [1, 2, 3]


def test_a_bad_max_concurrency_is_refused():
    with pytest.raises(ValidationError, match="max_concurrency"):
        RunnableLambda(str).batch([1, 2], {"max_concurrency": 0})


def test_async_invoke_and_batch_give_sync_results():
    chain = RunnableLambda(lambda x: x + 1) | RunnableLambda(lambda x: x * 2)
    assert asyncio.run(chain.ainvoke(1)) == 4
    assert asyncio.run(chain.abatch([1, 2, 3], {"max_concurrency": 2})) == [4, 6, 8]


def test_an_async_function_runs_natively_and_from_sync_code():
    async def double(x):
        await asyncio.sleep(0)
        return x * 2

    runnable = RunnableLambda(double)
    assert asyncio.run(runnable.ainvoke(4)) == 8 and runnable.invoke(5) == 10


def test_stream_passes_the_last_steps_chunks_through():
    class Letters(Runnable):
        def invoke(self, input, config=None, **kwargs):
            return "".join(self.stream(input))

        def stream(self, input, config=None, **kwargs):
            yield from input

    chain = RunnableLambda(str.upper) | Letters()
    assert list(chain.stream("abc")) == ["A", "B", "C"]

    async def collect():
        return [chunk async for chunk in chain.astream("xy")]

    assert asyncio.run(collect()) == ["XY"]


def test_composing_something_that_is_not_runnable_is_refused():
    with pytest.raises(ValidationError, match="cannot compose int"):
        RunnableLambda(str) | 5
