"""create_agent(response_format=...): ToolStrategy, ProviderStrategy and bare schemas give
langchain 1.4's messages and structured_response on the same script."""

import dataclasses
from typing import Union

import pytest
from agent_middleware_peers import LANGCHAIN, OURS, SIDES, normal, scripted
from langchain.agents import structured_output as lc_structured
from pydantic import BaseModel
from typing_extensions import TypedDict  # langchain's pydantic refuses typing.TypedDict before 3.12

from rag.agents import structured_output as our_structured
from rag.errors import InvalidTypeError

QUESTION = {"messages": [("human", "Weather in Oslo?")]}


class Weather(BaseModel):
    """The weather in a city."""

    city: str
    degrees: int


class Rain(BaseModel):
    """Whether it rains."""

    raining: bool


@dataclasses.dataclass
class WeatherData:
    city: str
    degrees: int


class WeatherDict(TypedDict):
    city: str
    degrees: int


def strategies(lib):
    return our_structured if lib is OURS else lc_structured


def run(lib, replies, response_format, tools=True):
    agent = lib.create_agent(scripted(lib, replies), [lib.add] if tools else [], response_format=response_format)
    return agent.invoke(QUESTION)


def answer(name, args, call_id="s1", text=""):
    return (text, [(name, args, call_id)])


def plain(out):
    value = out.get("structured_response")
    return value.model_dump() if isinstance(value, BaseModel) else dataclasses.asdict(value) \
        if dataclasses.is_dataclass(value) else value


@pytest.mark.parametrize("schema", [Weather, WeatherData, WeatherDict], ids=["pydantic", "dataclass", "typeddict"])
@pytest.mark.parametrize("tools", [True, False], ids=["with tools", "no tools"])
def test_a_tool_strategy_answer_lands_in_structured_response_as_in_langchain(schema, tools):
    replies = [("", [("add", {"a": 1, "b": 2}, "c1")])] if tools else []
    replies.append(answer(schema.__name__, {"city": "Oslo", "degrees": 3}))
    out = {lib.name: run(lib, replies, strategies(lib).ToolStrategy(schema), tools) for lib in SIDES}
    assert normal(out["rag"]["messages"]) == normal(out["langchain"]["messages"])
    assert plain(out["rag"]) == plain(out["langchain"]) == {"city": "Oslo", "degrees": 3}


def test_a_bare_schema_uses_the_tool_strategy_for_a_model_without_json_mode():
    replies = [answer("Weather", {"city": "Oslo", "degrees": 3})]
    out = {lib.name: run(lib, replies, Weather) for lib in SIDES}
    assert normal(out["rag"]["messages"]) == normal(out["langchain"]["messages"])
    assert out["rag"]["structured_response"] == Weather(city="Oslo", degrees=3)


def test_an_answer_that_does_not_fit_is_sent_back_and_the_model_tries_again():
    replies = [answer("Weather", {"city": "Oslo", "degrees": "cold"}, "s1"),
               answer("Weather", {"city": "Oslo", "degrees": 3}, "s2")]
    out = {lib.name: run(lib, replies, strategies(lib).ToolStrategy(Weather)) for lib in SIDES}
    ours, theirs = out["rag"]["messages"], out["langchain"]["messages"]
    assert [m.type for m in ours] == [m.type for m in theirs] == ["human", "ai", "tool", "ai", "tool"]
    assert ours[2].text.startswith("Error: Failed to parse structured output for tool 'Weather'")
    assert ours[2].text.endswith("\n Please fix your mistakes.")
    assert out["rag"]["structured_response"] == Weather(city="Oslo", degrees=3)


def test_two_structured_answers_at_once_are_refused_and_retried():
    replies = [("", [("Weather", {"city": "Oslo", "degrees": 3}, "s1"), ("Rain", {"raining": True}, "s2")]),
               answer("Rain", {"raining": False}, "s3")]
    out = {lib.name: run(lib, replies, strategies(lib).ToolStrategy(Union[Weather, Rain])) for lib in SIDES}
    assert normal(out["rag"]["messages"]) == normal(out["langchain"]["messages"])
    assert out["rag"]["structured_response"] == Rain(raining=False)
    assert "multiple structured responses" in out["rag"]["messages"][2].text


def test_a_fixed_tool_message_and_a_fixed_error_text_are_used():
    replies = [answer("Weather", {"city": 1}, "s1"), answer("Weather", {"city": "Oslo", "degrees": 3}, "s2")]

    def build(lib):
        return strategies(lib).ToolStrategy(Weather, tool_message_content="Got it.", handle_errors="Try again.")
    out = {lib.name: run(lib, replies, build(lib)) for lib in SIDES}
    assert normal(out["rag"]["messages"]) == normal(out["langchain"]["messages"])
    assert [m.text for m in out["rag"]["messages"] if m.type == "tool"] == ["Try again.", "Got it."]


def test_handle_errors_false_raises_the_validation_error():
    for lib in SIDES:
        with pytest.raises(Exception, match="Failed to parse structured output for tool 'Weather'"):
            run(lib, [answer("Weather", {"city": 1})], strategies(lib).ToolStrategy(Weather, handle_errors=False))


def test_the_provider_strategy_reads_the_json_reply():
    replies = [("", [("add", {"a": 1, "b": 2}, "c1")]), ('{"city": "Oslo", "degrees": 3}', [])]
    out = {lib.name: run(lib, replies, strategies(lib).ProviderStrategy(Weather)) for lib in SIDES}
    assert normal(out["rag"]["messages"]) == normal(out["langchain"]["messages"])
    assert out["rag"]["structured_response"] == Weather(city="Oslo", degrees=3)


def test_the_provider_strategy_sends_openais_response_format():
    strategy = our_structured.ProviderStrategy(WeatherDict, strict=True)
    assert strategy.model_kwargs() == {"response_format": {"type": "json_schema", "json_schema": {
        "name": "WeatherDict", "schema": strategy.spec.json_schema, "strict": True}}}


def test_a_response_format_that_is_not_a_schema_is_refused():
    with pytest.raises(InvalidTypeError, match="response_format must be ToolStrategy"):
        OURS.create_agent(scripted(OURS, []), [OURS.add], response_format="json")


def test_a_checkpointed_thread_keeps_each_turns_own_answer():
    replies = [answer("WeatherDict", {"city": "Oslo", "degrees": 3}, "s1"), ("Let me see.", []),
               answer("WeatherDict", {"city": "Bergen", "degrees": 9}, "s2")]
    config = {"configurable": {"thread_id": "t"}}
    agent = OURS.create_agent(scripted(OURS, replies), [OURS.add], response_format=WeatherDict,
                              checkpointer=OURS.Saver())
    assert agent.invoke(QUESTION, config)["structured_response"] == {"city": "Oslo", "degrees": 3}
    # A turn answered in plain text has no structured answer: the old one is not kept.
    assert agent.invoke({"messages": [("human", "Thanks")]}, config)["structured_response"] is None
    third = agent.invoke({"messages": [("human", "And Bergen?")]}, config)
    assert third["structured_response"] == {"city": "Bergen", "degrees": 9}


def test_a_pydantic_answer_in_a_checkpointed_thread_is_saved_as_its_fields():
    # Checkpoints are JSON (no pickle): the run returns the model, the checkpoint keeps its
    # fields (no class name, so loading one imports nothing).
    agent = OURS.create_agent(scripted(OURS, [answer("Weather", {"city": "Oslo", "degrees": 3})]), [OURS.add],
                              response_format=Weather, checkpointer=OURS.Saver())
    config = {"configurable": {"thread_id": "t"}}
    assert agent.invoke(QUESTION, config)["structured_response"] == Weather(city="Oslo", degrees=3)
    assert agent.get_state(config).values["structured_response"] == {"city": "Oslo", "degrees": 3}
