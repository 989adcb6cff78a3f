"""AgentExecutor's own rules: bad settings refused with the value named, the safer
handling of parsing errors and failing tools, early stopping, and agents over an Index."""

import pytest

from rag.classic.agents import (
    AgentAction,
    AgentExecutor,
    AgentFinish,
    AgentStep,
    ToolRunError,
    create_json_chat_agent,
    create_react_agent,
    create_structured_chat_agent,
    create_tool_calling_agent,
    format_log_to_str,
    format_to_tool_messages,
)
from rag.classic.agents.executor import MAX_PARSING_ERRORS_WITHOUT_LIMIT
from rag.classic.chains import ConversationalRetrievalChain, RetrievalQA
from rag.classic.memory import ConversationBufferMemory
from rag.errors import OutputParserException, ValidationError
from rag.index import Index
from rag.messages import AIMessage, ToolMessage
from rag.models import FakeListChatModel, GenericFakeChatModel
from rag.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate
from rag.tools import Tool, ToolException, tool

PROMPT = PromptTemplate.from_template("{tools}\n{tool_names}\n{input}\n{agent_scratchpad}")


@tool
def shout(text: str) -> str:
    """Say it loudly."""
    return text.upper()


def react(*replies):
    return create_react_agent(FakeListChatModel(responses=list(replies)), [shout], PROMPT)


@pytest.mark.parametrize("settings, message", [
    ({"max_iterations": 0}, "max_iterations must be a positive int or None, got 0"),
    ({"early_stopping_method": "stop"}, "early_stopping_method must be one of ('force', 'generate'), got 'stop'"),
    ({"handle_parsing_errors": 3}, "handle_parsing_errors must be a bool, a str or a function, got 3"),
    ({"max_execution_time": -1}, "max_execution_time must be a positive number of seconds or None, got -1"),
    ({"tools": []}, "needs a list of tools"),
    ({"tools": [shout, shout]}, r"two tools share the name\(s\) \['shout'\]"),
])
def test_bad_settings_are_refused_naming_the_value(settings, message):
    with pytest.raises(ValidationError, match=message.replace("(", r"\(").replace(")", r"\)")
                       if "share" not in message else message):
        AgentExecutor(**{"agent": react("Final Answer: x"), "tools": [shout], **settings})


def test_a_prompt_without_agent_scratchpad_is_refused_by_every_constructor():
    model = FakeListChatModel(responses=["x"])
    with pytest.raises(ValidationError, match="Prompt missing required variables: {'agent_scratchpad'}"):
        create_react_agent(model, [shout], PromptTemplate.from_template("{tools} {tool_names} {input}"))
    for create in (create_structured_chat_agent, create_json_chat_agent):
        with pytest.raises(ValidationError, match="agent_scratchpad"):
            create(model, [shout], ChatPromptTemplate.from_messages([("human", "{tools} {tool_names} {input}")]))
    with pytest.raises(ValidationError, match="agent_scratchpad"):
        create_tool_calling_agent(model, [shout], ChatPromptTemplate.from_messages([("human", "{input}")]))


def test_an_agent_without_tools_is_refused():
    with pytest.raises(ValidationError, match="non-empty list of tools"):
        create_react_agent(FakeListChatModel(responses=["x"]), [], PROMPT)


def test_a_parsing_error_is_raised_unless_handled():
    executor = AgentExecutor(agent=react("no format here"), tools=[shout])
    with pytest.raises(ValueError, match="handle_parsing_errors=True"):
        executor.invoke({"input": "x"})


def test_handled_parsing_errors_count_toward_max_iterations():
    executor = AgentExecutor(agent=react("no format here"), tools=[shout], handle_parsing_errors=True,
                             max_iterations=3, return_intermediate_steps=True)
    out = executor.invoke({"input": "x"})
    assert out["output"] == "Agent stopped due to iteration limit or time limit."
    assert [a.tool for a, _ in out["intermediate_steps"]] == ["_Exception"] * 3


def test_without_a_limit_parsing_errors_in_a_row_are_capped():
    executor = AgentExecutor(agent=react("no format here"), tools=[shout], handle_parsing_errors=True,
                             max_iterations=None)
    with pytest.raises(ValidationError, match=f"could not be parsed {MAX_PARSING_ERRORS_WITHOUT_LIMIT} times in a row"):
        executor.invoke({"input": "x"})


def test_a_tool_that_raises_ends_the_run_naming_the_tool():
    broken = Tool("broken", lambda tool_input: 1 / 0, "Fails.")
    agent = create_react_agent(FakeListChatModel(responses=["Action: broken\nAction Input: x"]), [broken], PROMPT)
    with pytest.raises(ToolRunError, match="tool 'broken' raised ZeroDivisionError") as caught:
        AgentExecutor(agent=agent, tools=[broken]).invoke({"input": "x"})
    assert isinstance(caught.value.__cause__, ZeroDivisionError)


def test_a_tool_error_is_an_observation_when_the_tool_handles_it():
    def fail(tool_input):
        raise ToolException("service down")

    flaky = Tool("flaky", fail, "Fails politely.", handle_tool_error=True)
    agent = create_react_agent(FakeListChatModel(responses=["Action: flaky\nAction Input: x", "Final Answer: sorry"]),
                               [flaky], PROMPT)
    out = AgentExecutor(agent=agent, tools=[flaky], return_intermediate_steps=True).invoke({"input": "x"})
    assert out["output"] == "sorry" and out["intermediate_steps"][0][1] == "service down"


def test_generate_asks_the_agent_once_more_when_stopped():
    agent = react("Action: shout\nAction Input: a", "Final Answer: best guess")
    out = AgentExecutor(agent=agent, tools=[shout], max_iterations=1, early_stopping_method="generate").invoke(
        {"input": "x"})
    assert out["output"] == "best guess"


def test_multi_action_agents_refuse_return_direct_tools():
    direct = Tool("direct", lambda tool_input: tool_input, "Direct.", return_direct=True)
    prompt = ChatPromptTemplate.from_messages([("human", "{input}"), MessagesPlaceholder("agent_scratchpad")])
    agent = create_tool_calling_agent(GenericFakeChatModel(messages=iter(["x"])), [direct], prompt)
    with pytest.raises(ValidationError, match="return_direct=True"):
        AgentExecutor(agent=agent, tools=[direct])


def test_format_log_to_str_and_tool_messages_write_the_scratchpad():
    action = AgentAction("shout", "hi", "Action: shout\nAction Input: hi")
    assert format_log_to_str([(action, "HI")]) == "Action: shout\nAction Input: hi\nObservation: HI\nThought: "
    from rag.classic.agents import ToolAgentAction

    call = AIMessage("", tool_calls=[{"name": "shout", "args": {"text": "hi"}, "id": "c1"}])
    tool_action = ToolAgentAction("shout", {"text": "hi"}, "log", message_log=[call], tool_call_id="c1")
    messages = format_to_tool_messages([(tool_action, {"n": 1})])
    assert messages[0] is call and isinstance(messages[1], ToolMessage) and messages[1].content == '{"n": 1}'


def test_agent_step_messages_and_finish_messages():
    step = AgentStep(AgentAction("t", "i", "log"), 3)
    assert [m.type for m in step.messages] == ["human"] and step.messages[0].content == "3"
    assert AgentFinish({"output": "x"}, "done").messages[0].content == "done"


def test_output_parser_exception_needs_observation_and_output_to_send_to_the_model():
    with pytest.raises(ValueError, match="observation"):
        OutputParserException("bad", send_to_llm=True)


@pytest.fixture
def index(corpus, tmp_path):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([corpus])
    return index


def test_retrieval_qa_and_conversational_chain_run_over_an_index_retriever(index):
    qa = RetrievalQA.from_chain_type(FakeListChatModel(responses=["They purr."]), retriever=index.as_retriever(),
                                     return_source_documents=True)
    out = qa.invoke({"query": "What do cats do when content?"})
    assert out["result"] == "They purr." and "purr" in out["source_documents"][0].page_content
    chat = ConversationalRetrievalChain.from_llm(
        FakeListChatModel(responses=["They purr.", "dogs bark", "At the postman."]), index.as_retriever(),
        memory=ConversationBufferMemory(memory_key="chat_history", return_messages=True))
    chat.invoke({"question": "What do cats do?"})
    assert chat.invoke({"question": "And dogs?"})["answer"] == "At the postman."


def test_the_react_agent_answers_from_an_index_tool(index):
    from rag.tools import create_retriever_tool

    search = create_retriever_tool(index.as_retriever(), "search_docs", "Search the documents.")
    agent = create_react_agent(FakeListChatModel(responses=["Action: search_docs\nAction Input: goldfish",
                                                            "Final Answer: in bowls"]), [search], PROMPT)
    out = AgentExecutor(agent=agent, tools=[search], return_intermediate_steps=True).invoke({"input": "Fish?"})
    assert out["output"] == "in bowls" and "Goldfish" in out["intermediate_steps"][0][1]
