"""The classic Chain base: prep_inputs with memory, callbacks around _call, prep_outputs,
the older entry points, and a Chain as a Runnable."""

import asyncio

import pytest

from rag.callbacks import BaseCallbackHandler
from rag.classic.chains import CallbackManagerForChainRun, Chain, LLMChain
from rag.classic.memory import ConversationBufferMemory, SimpleMemory
from rag.classic.schema import RUN_KEY, RunInfo
from rag.errors import ValidationError
from rag.models import FakeListChatModel
from rag.prompts import PromptTemplate
from rag.runnables import RunnableLambda


class Upper(Chain):
    input_keys = ["text"]
    output_keys = ["loud"]

    def _call(self, inputs, run_manager=None):
        return {"loud": inputs["text"].upper()}


class NoManager(Chain):
    input_keys = ["text"]
    output_keys = ["seen"]

    def _call(self, inputs):
        return {"seen": sorted(inputs)}


class Events(BaseCallbackHandler):
    def __init__(self):
        self.events = []

    def on_chain_start(self, serialized, inputs, **kw):
        self.events.append(("start", kw["name"], dict(inputs) if isinstance(inputs, dict) else inputs))

    def on_chain_end(self, outputs, **kw):
        self.events.append(("end", dict(outputs) if isinstance(outputs, dict) else outputs))

    def on_chain_error(self, error, **kw):
        self.events.append(("error", type(error).__name__))

    def on_text(self, text, **kw):
        self.events.append(("text", text))


def test_a_bare_value_goes_to_the_one_input_key():
    assert Upper().invoke("hi") == {"text": "hi", "loud": "HI"}


def test_return_only_outputs_drops_the_inputs():
    assert Upper().invoke({"text": "hi"}, return_only_outputs=True) == {"loud": "HI"}


def test_include_run_info_adds_the_run_id_of_the_call():
    handler = Events()
    out = Upper().invoke({"text": "a"}, {"callbacks": [handler]}, include_run_info=True)
    assert isinstance(out[RUN_KEY], RunInfo)


def test_callbacks_see_the_inputs_with_memory_and_the_raw_outputs():
    handler = Events()
    chain = NoManager(memory=SimpleMemory(memories={"fact": "x"}))
    chain.invoke({"text": "t"}, {"callbacks": [handler]})
    assert handler.events == [("start", "NoManager", {"text": "t", "fact": "x"}),
                              ("end", {"seen": ["fact", "text"]})]


def test_run_manager_is_passed_only_when_call_names_it():
    seen = []

    class Spy(Chain):
        input_keys = ["a"]
        output_keys = ["b"]

        def _call(self, inputs, run_manager=None):
            seen.append(type(run_manager))
            return {"b": 1}

    Spy().invoke({"a": 1})
    assert seen == [CallbackManagerForChainRun]
    assert NoManager().invoke({"text": "x"})["seen"] == ["text"]


def test_missing_input_keys_are_named_and_the_run_ends_in_error():
    handler = Events()
    with pytest.raises(ValueError, match=r"Missing some input keys: \{'text'\}"):
        Upper().invoke({"other": 1}, {"callbacks": [handler]})
    assert handler.events[-1] == ("error", "ValidationError")


def test_missing_output_keys_are_named():
    class Wrong(Upper):
        def _call(self, inputs, run_manager=None):
            return {"quiet": 1}

    with pytest.raises(ValueError, match=r"Missing some output keys: \{'loud'\}"):
        Wrong().invoke({"text": "a"})


def test_an_input_that_is_also_a_memory_variable_is_refused():
    chain = LLMChain(llm=FakeListChatModel(responses=["x"]), prompt=PromptTemplate.from_template("{history} {input}"),
                     memory=ConversationBufferMemory())
    with pytest.raises(ValidationError, match=r"\['history'\] are also variables of the chain's memory"):
        chain.invoke({"input": "hi", "history": "fake"})


def test_a_bare_value_for_a_chain_with_several_inputs_names_them():
    class Two(Upper):
        input_keys = ["a", "b"]

    with pytest.raises(ValueError, match=r"Missing some input keys: .*\['a', 'b'\]"):
        Two().invoke("x")


def test_memory_saves_each_call():
    memory = ConversationBufferMemory()
    chain = LLMChain(llm=FakeListChatModel(responses=["one", "two"]), prompt=PromptTemplate.from_template("{history}|{q}"),
                     memory=memory)
    chain.invoke({"q": "a"})
    chain.invoke({"q": "b"})
    assert memory.buffer == "Human: a\nAI: one\nHuman: b\nAI: two"


def test_run_and_call_are_the_older_entry_points():
    assert Upper().run("hi") == "HI"
    assert Upper().run(text="hi") == "HI"
    assert Upper()({"text": "hi"}) == {"text": "hi", "loud": "HI"}
    assert Upper().apply([{"text": "a"}, {"text": "b"}]) == [{"text": "a", "loud": "A"}, {"text": "b", "loud": "B"}]


@pytest.mark.parametrize("args, kwargs, message", [
    ((), {}, "none were provided"),
    (("a", "b"), {}, "only one positional argument"),
    (("a",), {"text": "b"}, "but not both"),
])
def test_run_refuses_unclear_arguments(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Upper().run(*args, **kwargs)


def test_run_needs_exactly_one_output_key():
    class Two(Upper):
        output_keys = ["loud", "quiet"]

    with pytest.raises(ValueError, match="exactly one output key"):
        Two().run("x")


def test_a_chain_composes_with_pipe_and_traces_as_one_run():
    handler = Events()
    pipeline = RunnableLambda(lambda s: {"text": s}) | Upper() | (lambda out: out["loud"] + "!")
    assert pipeline.invoke("hi", {"callbacks": [handler]}) == "HI!"
    assert [e[1] for e in handler.events if e[0] == "start"] == ["RunnableSequence", "RunnableLambda", "Upper",
                                                                  "RunnableLambda"]


def test_stream_yields_the_final_output_once():
    assert list(Upper().stream({"text": "a"})) == [{"text": "a", "loud": "A"}]


def test_async_invoke_runs_the_same_steps():
    handler = Events()
    out = asyncio.run(Upper().ainvoke({"text": "a"}, {"callbacks": [handler]}))
    assert out == {"text": "a", "loud": "A"} and [e[0] for e in handler.events] == ["start", "end"]


def test_constructor_callbacks_see_the_chains_runs():
    handler = Events()
    Upper(callbacks=[handler]).invoke({"text": "a"})
    assert [e[0] for e in handler.events] == ["start", "end"]


def test_llm_chain_sends_the_formatted_prompt_as_text_and_parses_the_reply():
    handler = Events()
    chain = LLMChain(llm=FakeListChatModel(responses=["4"]), prompt=PromptTemplate.from_template("2+{n}?"))
    assert chain.invoke({"n": 2}, {"callbacks": [handler]})["text"] == "4"
    assert ("text", "Prompt after formatting:\n\x1b[32;1m\x1b[1;3m2+2?\x1b[0m") in handler.events


def test_unknown_fields_are_refused_with_their_names():
    with pytest.raises(ValidationError, match="unknown field"):
        LLMChain(llm=FakeListChatModel(responses=["x"]), prompt=PromptTemplate.from_template("{a}"), temperature=1)


def test_input_schema_lists_the_input_keys():
    assert set(Upper().input_schema["properties"]) == {"text"}
