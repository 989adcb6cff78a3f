"""astream_log: LangChain's RunLogPatch / RunLog shape, checked against langchain-core 1.7.2."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from rag.models import FakeListChatModel
from rag.parsers import StrOutputParser
from rag.prompts import ChatPromptTemplate
from rag.runnables import RunnableLambda, RunnableParallel
from rag.runnables.log import RunLog, RunLogPatch, apply_ops, diff_ops

pytest.importorskip("langchain_core")

VOLATILE = {"id", "start_time", "end_time"}


def patches(runnable, value, **kwargs):
    async def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LangChain 1.x marks astream_log deprecated
            return [patch async for patch in runnable.astream_log(value, **kwargs)]

    return asyncio.run(run())


def final_state(runnable, value, **kwargs):
    total = None
    for patch in patches(runnable, value, **kwargs):
        total = patch if total is None else total + patch
    return total.state


def stable(state):
    """The state without ids and times, LangChain's outputs dumped like ours."""
    from langchain_core.load import dumpd  # noqa: F401  (imported to fail loudly if absent)

    logs = {key: {k: v for k, v in entry.items() if k not in VOLATILE} for key, entry in state["logs"].items()}
    return {**{k: v for k, v in state.items() if k not in VOLATILE | {"logs"}}, "logs": logs}


def ops_shape(all_patches):
    return [[(op["op"], op["path"]) for op in patch.ops] for patch in all_patches]


def test_the_log_of_a_chain_of_lambdas_and_a_map_matches_langchain():
    from langchain_core.runnables import RunnableLambda as LCLambda
    from langchain_core.runnables import RunnableParallel as LCParallel

    def inc(x):
        return x + 1

    def double(x):
        return x * 2

    ours = RunnableLambda(inc) | RunnableParallel(d=RunnableLambda(double))
    theirs = LCLambda(inc) | LCParallel(d=LCLambda(double))
    assert stable(final_state(ours, 1)) == stable(final_state(theirs, 1))


def test_the_patches_of_a_streamed_parser_match_langchain():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel as LCModel
    from langchain_core.output_parsers import StrOutputParser as LCParser
    from langchain_core.prompts import ChatPromptTemplate as LCPrompt

    ours = ChatPromptTemplate.from_template("{q}") | FakeListChatModel(responses=["x"]) | StrOutputParser()
    theirs = LCPrompt.from_template("{q}") | LCModel(responses=["x"]) | LCParser()
    mine, reference = patches(ours, {"q": "hi"}, include_types=["parser"]), patches(theirs, {"q": "hi"},
                                                                                    include_types=["parser"])
    assert ops_shape(mine) == ops_shape(reference)
    assert stable(final_state(ours, {"q": "hi"}, include_types=["parser"])) == \
        stable(final_state(theirs, {"q": "hi"}, include_types=["parser"]))


def test_model_tokens_are_logged_as_strings_and_chunks():
    state = final_state(ChatPromptTemplate.from_template("{q}") | FakeListChatModel(responses=["a b"]), {"q": "x"})
    entry = state["logs"]["FakeListChatModel"]
    assert entry["streamed_output_str"] == ["a ", "b"]
    assert [chunk.content for chunk in entry["streamed_output"]] == ["a ", "b"]
    assert entry["final_output"]["generations"][0][0]["text"] == "a b"


def test_repeated_names_get_numbered_keys():
    def step(x):
        return x

    state = final_state(RunnableLambda(step) | RunnableLambda(step) | RunnableLambda(step), 0)
    assert sorted(state["logs"]) == ["step", "step:2", "step:3"]


def test_diff_false_yields_the_growing_run_log():
    logs = patches(RunnableLambda(lambda x: x * 3), 2, diff=False)
    assert all(isinstance(log, RunLog) for log in logs)
    assert logs[-1].state["final_output"] == 6 and logs[-1].state["streamed_output"] == [6]


def test_patches_add_up_like_json_patch():
    first = RunLogPatch({"op": "replace", "path": "", "value": {"a": [], "b": None}})
    total = first + RunLogPatch({"op": "add", "path": "/a/-", "value": 1}, {"op": "replace", "path": "/b", "value": 2})
    assert total.state == {"a": [1], "b": 2}


def test_diff_ops_turn_the_old_value_into_the_new_one():
    old, new = {"a": "x", "keep": [1]}, {"a": "xy", "keep": [1, 2], "new": {"n": 1}}
    assert apply_ops({"a": "x", "keep": [1]}, diff_ops(old, new)) == new
