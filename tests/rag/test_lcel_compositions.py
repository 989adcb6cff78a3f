"""LCEL compositions: parallel, passthrough/assign/pick, bind/with_config, retry, fallbacks,
streaming through sequences, and the graph drawing."""

import asyncio
import threading
import time

import pytest

from rag.errors import NotFoundError, ValidationError
from rag.runnables import (
    Runnable,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
    RunnableSequence,
)


def arun(coro):
    return asyncio.run(coro)


async def collect(stream):
    return [chunk async for chunk in stream]


def test_a_dict_in_a_chain_runs_each_branch_on_the_same_input():
    chain = RunnableLambda(lambda x: x + 1) | {"double": lambda x: x * 2, "text": str}
    assert chain.invoke(1) == {"double": 4, "text": "2"}


def test_parallel_branches_run_concurrently():
    barrier = threading.Barrier(2, timeout=5)
    wait = lambda x: barrier.wait() >= 0 and x  # noqa: E731 - deadlocks unless both run at once
    assert RunnableParallel(a=wait, b=wait).invoke(1) == {"a": 1, "b": 1}


def test_async_parallel_branches_run_concurrently():
    async def slow(x):
        await asyncio.sleep(0.05)
        return x

    start = time.perf_counter()
    assert arun(RunnableParallel(a=slow, b=slow, c=slow).ainvoke(1)) == {"a": 1, "b": 1, "c": 1}
    assert time.perf_counter() - start < 0.14


def test_parallel_respects_max_concurrency():
    active, peak, lock = [0], [0], threading.Lock()

    def track(x):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.01)
        with lock:
            active[0] -= 1
        return x

    RunnableParallel({str(i): track for i in range(5)}).invoke(0, {"max_concurrency": 1})
    assert peak[0] == 1


def test_a_failing_branch_fails_the_parallel():
    with pytest.raises(ZeroDivisionError):
        RunnableParallel(ok=str, bad=lambda x: 1 / 0).invoke(1)


def test_parallel_streams_each_branchs_chunks_as_keyed_dicts():
    def words(chunks):
        for text in chunks:
            yield from text.split()

    chunks = list(RunnableParallel(same=RunnablePassthrough(), words=RunnableGenerator(words)).stream("a b"))
    assert {"same": "a b"} in chunks and [c["words"] for c in chunks if "words" in c] == ["a", "b"]


def test_passthrough_returns_its_input_and_streams_it_unchanged():
    assert RunnablePassthrough().invoke({"k": 1}) == {"k": 1}
    assert list(RunnablePassthrough().transform(iter(["a", "b"]))) == ["a", "b"]


def test_passthrough_func_sees_the_input_for_side_effects():
    seen = []
    assert RunnablePassthrough(seen.append).invoke(3) == 3 and seen == [3]


def test_assign_adds_keys_computed_from_the_input_dict():
    chain = RunnablePassthrough.assign(n=lambda d: len(d["q"]), up=lambda d: d["q"].upper())
    assert chain.invoke({"q": "abc"}) == {"q": "abc", "n": 3, "up": "ABC"}


def test_assign_on_a_runnable_extends_its_output():
    assert RunnableLambda(lambda x: {"x": x}).assign(y=lambda d: d["x"] * 2).invoke(2) == {"x": 2, "y": 4}


def test_assign_needs_a_dict_and_says_so():
    with pytest.raises(ValidationError, match="needs a dict input, got int"):
        RunnablePassthrough.assign(a=str).invoke(5)


def test_assign_streams_the_input_then_the_new_keys():
    assert list(RunnablePassthrough.assign(b=lambda d: 2).stream({"a": 1})) == [{"a": 1}, {"b": 2}]


def test_pick_one_key_gives_its_value_and_a_list_gives_a_dict():
    source = RunnableLambda(lambda x: {"a": 1, "b": 2, "c": 3})
    assert source.pick("b").invoke(None) == 2
    assert source.pick(["a", "c"]).invoke(None) == {"a": 1, "c": 3}


def test_pick_of_a_missing_key_names_it():
    with pytest.raises(NotFoundError, match=r"\['z'\] not in the input; it has \['a'\]"):
        RunnableLambda(lambda x: {"a": 1}).pick("z").invoke(None)


def test_bind_passes_fixed_keyword_arguments_on_every_call():
    class Echo(Runnable):
        def invoke(self, input, config=None, **kwargs):
            return (input, kwargs)

    bound = Echo().bind(stop=["\n"]).bind(temperature=0)
    assert bound.invoke("x") == ("x", {"stop": ["\n"], "temperature": 0})
    assert bound.invoke("x", temperature=1)[1]["temperature"] == 1


def test_with_config_merges_tags_and_metadata_into_each_call():
    seen = []
    step = RunnableLambda(lambda x, config: seen.append(config) or x).with_config(tags=["fixed"], metadata={"a": 1})
    step.invoke(0, {"tags": ["call"], "metadata": {"b": 2}})
    assert seen[0]["tags"] == ["fixed", "call"] and seen[0]["metadata"] == {"a": 1, "b": 2}


def test_with_config_run_name_renames_the_runnable():
    assert RunnableLambda(str).with_config(run_name="stringify").get_name() == "stringify"


def test_with_retry_retries_until_success():
    attempts = []

    def flaky(x):
        attempts.append(x)
        if len(attempts) < 3:
            raise ConnectionError("flaky")
        return "ok"

    assert RunnableLambda(flaky).with_retry(wait_exponential_jitter=False).invoke(1) == "ok"
    assert len(attempts) == 3


def test_with_retry_gives_up_after_stop_after_attempt_and_raises_the_last_error():
    attempts = []

    def broken(x):
        attempts.append(x)
        raise ConnectionError(f"attempt {len(attempts)}")

    with pytest.raises(ConnectionError, match="attempt 2"):
        RunnableLambda(broken).with_retry(stop_after_attempt=2, wait_exponential_jitter=False).invoke(1)


def test_with_retry_does_not_retry_other_exception_types():
    attempts = []

    def wrong(x):
        attempts.append(x)
        raise KeyError("no")

    with pytest.raises(KeyError):
        RunnableLambda(wrong).with_retry(retry_if_exception_type=(ConnectionError,)).invoke(1)
    assert attempts == [1]


def test_with_retry_waits_exponentially_between_attempts():
    waits = []
    retry = RunnableLambda(lambda x: 1 / 0).with_retry(
        stop_after_attempt=4, exponential_jitter_params={"initial": 0.1, "jitter": 0, "max": 0.3})
    retry.sleep = waits.append
    with pytest.raises(ZeroDivisionError):
        retry.invoke(1)
    assert waits == pytest.approx([0.1, 0.2, 0.3])


def test_async_retry_uses_the_async_sleep():
    waits, attempts = [], []

    async def fake_sleep(seconds):
        waits.append(seconds)

    async def flaky(x):
        attempts.append(x)
        if len(attempts) == 1:
            raise TimeoutError
        return x

    retry = RunnableLambda(flaky).with_retry(exponential_jitter_params={"initial": 0.5, "jitter": 0})
    retry.asleep = fake_sleep
    assert arun(retry.ainvoke(7)) == 7 and waits == [0.5]


def test_unknown_jitter_params_are_refused():
    with pytest.raises(ValidationError, match=r"unknown keys \['inital'\]"):
        RunnableLambda(str).with_retry(exponential_jitter_params={"inital": 1})


def test_fallbacks_are_tried_in_order():
    broken = RunnableLambda(lambda x: 1 / 0)
    chain = broken.with_fallbacks([broken, RunnableLambda(lambda x: f"fallback {x}")])
    assert chain.invoke(1) == "fallback 1" and arun(chain.ainvoke(2)) == "fallback 2"


def test_when_every_fallback_fails_the_first_error_is_raised():
    def first(x):
        raise ValueError("first")

    def second(x):
        raise ValueError("second")

    with pytest.raises(ValueError, match="first"):
        RunnableLambda(first).with_fallbacks([second]).invoke(1)


def test_fallbacks_only_handle_the_listed_exceptions():
    chain = RunnableLambda(lambda x: 1 / 0).with_fallbacks([lambda x: "no"], exceptions_to_handle=(KeyError,))
    with pytest.raises(ZeroDivisionError):
        chain.invoke(1)


def test_exception_key_hands_the_error_to_the_fallback():
    def primary(d):
        raise RuntimeError("boom")

    chain = RunnableLambda(primary).with_fallbacks([lambda d: str(d["error"])], exception_key="error")
    assert chain.invoke({"q": 1}) == "boom"


def test_a_stream_falls_back_when_it_fails_before_its_first_chunk():
    def broken(chunks):
        raise RuntimeError("down")
        yield  # pragma: no cover

    def works(chunks):
        yield from ["a", "b"]

    assert list(RunnableGenerator(broken).with_fallbacks([RunnableGenerator(works)]).stream(1)) == ["a", "b"]


def test_a_generator_function_in_a_chain_transforms_the_stream_chunk_by_chunk():
    seen = []

    def source(chunks):
        for chunk in chunks:
            for ch in chunk:
                yield ch

    def upper(chunks):
        for chunk in chunks:
            seen.append(chunk)
            yield chunk.upper()

    chain = RunnableGenerator(source) | upper
    stream = chain.stream("abc")
    assert next(stream) == "A" and seen == ["a"]  # the first chunk is out before "b" is produced
    assert list(stream) == ["B", "C"] and chain.invoke("xy") == "XY"


def test_a_step_that_cannot_transform_waits_for_its_whole_input():
    def letters(chunks):
        for chunk in chunks:
            yield from chunk

    assert list((RunnableGenerator(letters) | RunnableLambda(str.upper)).stream("abc")) == ["ABC"]


def test_async_streaming_passes_chunks_through_a_sequence():
    async def letters(chunks):
        async for chunk in chunks:
            for ch in chunk:
                yield ch

    chain = RunnableGenerator(letters) | RunnablePassthrough()
    assert arun(collect(chain.astream("ab"))) == ["a", "b"]


def test_batch_returns_exceptions_in_place_when_asked():
    results = RunnableLambda(lambda x: 10 // x).batch([1, 0, 2], return_exceptions=True)
    assert results[0] == 10 and isinstance(results[1], ZeroDivisionError) and results[2] == 5


def test_batch_accepts_one_config_per_input():
    seen = []
    RunnableLambda(lambda x, config: seen.append((x, config["tags"]))).batch(
        [1, 2], [{"tags": ["a"]}, {"tags": ["b"]}])
    assert sorted(seen) == [(1, ["a"]), (2, ["b"])]


def test_a_lambda_returning_a_runnable_invokes_it():
    route = RunnableLambda(lambda x: RunnableLambda(str.upper) if x.islower() else RunnableLambda(str.lower))
    assert route.invoke("ab") == "AB" and route.invoke("CD") == "cd"


def test_pipe_composes_several_steps():
    chain = RunnableLambda(lambda x: x + 1).pipe(lambda x: x * 2, str)
    assert isinstance(chain, RunnableSequence) and chain.invoke(1) == "4" and len(chain.middle) == 1


def test_chain_callbacks_nest_runs_under_their_parent():
    events = []

    class Recorder:
        def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
            events.append(("start", serialized["name"], run_id, parent_run_id))

        def on_chain_end(self, outputs, *, run_id, **kwargs):
            events.append(("end", outputs, run_id, None))

    def double(x):
        return x * 2

    (RunnableLambda(double) | str).invoke(2, {"callbacks": [Recorder()]})
    starts = [e for e in events if e[0] == "start"]
    assert [s[1] for s in starts] == ["RunnableSequence", "double", "str"]
    assert starts[1][3] == starts[0][2] and starts[2][3] == starts[0][2]
    assert events[-1][:2] == ("end", "4")


def test_a_failing_callback_handler_is_logged_not_raised(caplog):
    class Broken:
        def on_chain_start(self, *args, **kwargs):
            raise RuntimeError("handler bug")

    assert RunnableLambda(str).invoke(1, {"callbacks": [Broken()]}) == "1"
    assert "handler bug" in caplog.text


def test_a_handler_with_raise_error_stops_the_chain():
    class Strict:
        raise_error = True

        def on_chain_start(self, *args, **kwargs):
            raise RuntimeError("strict handler")

    with pytest.raises(RuntimeError, match="strict handler"):
        RunnableLambda(str).invoke(1, {"callbacks": [Strict()]})


def test_async_handlers_are_awaited_on_async_paths():
    seen = []

    class AsyncHandler:
        async def on_chain_end(self, outputs, **kwargs):
            seen.append(outputs)

    arun(RunnableLambda(str).ainvoke(5, {"callbacks": [AsyncHandler()]}))
    assert seen == ["5"]


def test_graph_of_a_sequence_draws_boxes_top_to_bottom():
    def retrieve(x):
        return x

    drawing = (RunnableLambda(retrieve) | RunnableLambda(str)).get_graph().draw_ascii()
    lines = drawing.splitlines()
    names = [line.strip().strip("|").strip() for line in lines if line.strip().startswith("|")]
    assert names == ["retrieve_input", "retrieve", "str", "str_output"]
    assert all(set(line.strip()) == {"*"} for line in lines if "*" in line)


def test_graph_of_a_parallel_has_a_branch_per_key_between_input_and_output():
    graph = ({"context": RunnableLambda(str), "question": RunnablePassthrough()} | RunnableLambda(len)).get_graph()
    names = [node.name for node in graph.nodes.values()]
    assert names[:2] == ["Parallel<context,question>Input", "Parallel<context,question>Output"]
    assert {"str", "Passthrough", "len"} <= set(names)
    drawing = graph.draw_ascii().splitlines()
    branch_row = next(line for line in drawing if "| str |" in line)
    assert "| Passthrough |" in branch_row  # the two branches sit side by side
