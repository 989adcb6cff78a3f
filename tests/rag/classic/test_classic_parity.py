"""Differential tests: the same classic script (chains, memories, AgentExecutor,
RunnableBranch) run through langchain_classic 1.0.8 and through rag.classic, with scripted
models on both sides, gives the same outputs, intermediate steps and callback sequence."""

import asyncio

import pytest
from classic_peers import LANGCHAIN, OURS

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def both(script):
    """``script(side)`` on each side; the two results."""
    return script(LANGCHAIN), script(OURS)


def text_of(value):
    """Messages and documents compared by type and text."""
    if isinstance(value, list):
        return [text_of(v) for v in value]
    if isinstance(value, tuple):
        return tuple(text_of(v) for v in value)
    if isinstance(value, dict):
        return {k: text_of(v) for k, v in value.items()}
    if hasattr(value, "page_content"):
        return ("document", value.page_content)
    if hasattr(value, "content") and hasattr(value, "type"):
        return (value.type, value.content)
    return value


# -- chains --------------------------------------------------------------------------------
def test_llm_chain_outputs_and_trace_match():
    def script(side):
        recorder = side.Recorder()
        chain = side.chains.LLMChain(llm=side.FakeList(["Paris."]), prompt=side.Prompt.from_template("Capital of {c}?"))
        out = chain.invoke({"c": "France"}, {"callbacks": [recorder]})
        return out, chain.run("Spain"), chain.predict(c="Italy"), recorder.events

    lc, ours = both(script)
    assert lc == ours


def test_llm_chain_return_only_outputs_and_run_info_keys_match():
    def script(side):
        chain = side.chains.LLMChain(llm=side.FakeList(["A."]), prompt=side.Prompt.from_template("Q {q}"))
        return (chain.invoke({"q": 1}, return_only_outputs=True), sorted(chain.invoke({"q": 1}, include_run_info=True)),
                chain.input_keys, chain.output_keys)

    lc, ours = both(script)
    assert lc == ours


def test_conversation_chain_with_buffer_memory_matches_over_three_turns():
    def script(side):
        prompt = side.Prompt.from_template("{history}\nHuman: {input}\nAI:")
        memory = side.memory.ConversationBufferMemory()
        chain = side.chains.ConversationChain(llm=side.FakeList(["Hi Ann.", "You are Ann.", "Bye."]), memory=memory,
                                              prompt=prompt)
        outs = [chain.invoke({"input": t}) for t in ("I'm Ann.", "Who am I?", "Bye")]
        return outs, memory.buffer, chain.input_keys, chain.output_keys

    lc, ours = both(script)
    assert lc == ours


@pytest.mark.parametrize("return_messages", [False, True])
def test_window_memory_keeps_the_same_turns(return_messages):
    def script(side):
        memory = side.memory.ConversationBufferWindowMemory(k=2, return_messages=return_messages, memory_key="chat")
        for i in range(4):
            memory.save_context({"input": f"q{i}"}, {"output": f"a{i}"})
        return text_of(memory.load_memory_variables({})), memory.memory_variables

    lc, ours = both(script)
    assert lc == ours


def test_buffer_memory_prefixes_and_keys_match():
    def script(side):
        memory = side.memory.ConversationBufferMemory(human_prefix="Friend", ai_prefix="Bot", input_key="q",
                                                      output_key="a", memory_key="log")
        memory.save_context({"q": "hi", "other": 1}, {"a": "hello", "extra": 2})
        return memory.load_memory_variables({}), text_of(memory.chat_memory.messages)

    lc, ours = both(script)
    assert lc == ours


def test_summary_memory_asks_the_model_and_keeps_its_summary():
    def script(side):
        memory = side.memory.ConversationSummaryMemory(llm=side.FakeList(["S1", "S2"]))
        memory.save_context({"input": "hi"}, {"output": "hello"})
        memory.save_context({"input": "how?"}, {"output": "fine"})
        as_messages = side.memory.ConversationSummaryMemory(llm=side.FakeList(["S"]), return_messages=True)
        as_messages.save_context({"input": "x"}, {"output": "y"})
        return memory.load_memory_variables({}), text_of(as_messages.load_memory_variables({}))

    lc, ours = both(script)
    assert lc == ours


def _word_counter(side_model):
    """The same token count on both sides: words in the messages' text."""

    class Counting(type(side_model)):
        def get_num_tokens_from_messages(self, messages, tools=None):
            return sum(len(str(m.content).split()) for m in messages)

    return Counting


def test_summary_buffer_and_token_buffer_memories_prune_alike():
    def script(side):
        base = side.FakeList(["SUM1", "SUM2", "SUM3"])
        model = _word_counter(base)(responses=["SUM1", "SUM2", "SUM3"])
        summary = side.memory.ConversationSummaryBufferMemory(llm=model, max_token_limit=5)
        tokens = side.memory.ConversationTokenBufferMemory(llm=model, max_token_limit=5)
        for i in range(3):
            summary.save_context({"input": f"question {i} here"}, {"output": f"answer {i}"})
            tokens.save_context({"input": f"question {i} here"}, {"output": f"answer {i}"})
        return (summary.load_memory_variables({}), summary.moving_summary_buffer, tokens.load_memory_variables({}))

    lc, ours = both(script)
    assert lc == ours


def _qa_prompt(side):
    return side.ChatPrompt.from_messages([("system", "Context:\n{context}"), ("human", "{question}")])


TEXTS = ["Paris is the capital of France.", "Madrid is the capital of Spain.", "Cats purr."]


def test_retrieval_qa_answers_with_the_same_sources_and_trace():
    def script(side):
        recorder = side.Recorder()
        # The prompt given on both sides: the default prompts' wording is our own.
        qa = side.chains.RetrievalQA.from_chain_type(side.FakeList(["Paris."]), retriever=side.Retriever(texts=TEXTS),
                                                     return_source_documents=True,
                                                     chain_type_kwargs={"prompt": _qa_prompt(side)})
        out = qa.invoke({"query": "capital france"}, {"callbacks": [recorder]})
        return text_of(out), qa.input_keys, qa.output_keys, recorder.events

    lc, ours = both(script)
    assert lc == ours


def test_retrieval_qa_default_prompt_gives_the_same_outputs_and_runs():
    def script(side):
        recorder = side.Recorder()
        qa = side.chains.RetrievalQA.from_llm(side.FakeList(["Paris."]), retriever=side.Retriever(texts=TEXTS))
        out = qa.invoke({"query": "capital france"}, {"callbacks": [recorder]})
        return out, [e for e in recorder.events if e[1] != "text"]

    lc, ours = both(script)
    assert lc == ours


def test_conversational_retrieval_chain_with_memory_rewrites_the_follow_up_alike():
    def script(side):
        condense = side.Prompt.from_template("History:{chat_history}\nQ: {question}\nStandalone:")
        memory = side.memory.ConversationBufferMemory(memory_key="chat_history", return_messages=True, output_key="answer")
        model = side.FakeList(["Paris.", "capital spain", "Madrid."])
        chain = side.chains.ConversationalRetrievalChain.from_llm(
            model, side.Retriever(texts=TEXTS), memory=memory, condense_question_prompt=condense,
            return_generated_question=True, return_source_documents=True,
            combine_docs_chain_kwargs={"prompt": _qa_prompt(side)})
        recorder = side.Recorder()
        # LangChain's outputs hold the history's own list as "chat_history", so it has
        # grown by the call's own exchange when it is returned (ours is the history the call
        # started from); compared without it.
        first = text_of(chain.invoke({"question": "capital of France?"}))
        second = text_of(chain.invoke({"question": "and of Spain?"}, {"callbacks": [recorder]}))
        first.pop("chat_history"), second.pop("chat_history")
        return first, second, text_of(memory.chat_memory.messages), recorder.events

    lc, ours = both(script)
    assert lc == ours


# -- AgentExecutor -------------------------------------------------------------------------
REACT_PROMPT = "Tools:\n{tools}\nNames: {tool_names}\nQuestion: {input}\n{agent_scratchpad}"

REACT_SCRIPTS = {
    "answers at once": ["Thought: easy\nFinal Answer: 42"],
    "one action": ["Thought: shout it\nAction: shout\nAction Input: hello", "Final Answer: HELLO"],
    "quoted input": ['Action: shout\nAction Input: "hi there"', "Final Answer: done"],
    "unknown tool": ["Action: whisper\nAction Input: hi", "Final Answer: gave up"],
    "two actions then answer": ["Action: shout\nAction Input: a", "Action: count\nAction Input: abc", "Final Answer: 3"],
}


def _react_tools(side):
    # The argument is named tool_input: rag.tools.Tool passes a one-string tool's input by
    # that keyword, LangChain's Tool positionally.
    shout = side.Tool(name="shout", func=lambda tool_input: tool_input.upper(), description="Say it loudly.")
    count = side.Tool(name="count", func=lambda tool_input: str(len(tool_input)), description="Count letters.")
    echo = side.Tool(name="echo", func=lambda tool_input: f"echo {tool_input}", description="Repeat.",
                     return_direct=True)
    return [shout, count, echo]


# LangChain's OutputParserException adds a link to its docs to the message (so to the log
# of a handled parsing error); ours does not.
_LC_DOCS_LINK = "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langchain/errors/OUTPUT_PARSING_FAILURE "


def _steps(steps):
    return [(a.tool, a.tool_input, a.log.replace(_LC_DOCS_LINK, ""), o) for a, o in steps]


@pytest.mark.parametrize("name", sorted(REACT_SCRIPTS))
def test_react_agent_runs_the_same_steps_outputs_and_callbacks(name):
    def script(side):
        tools = _react_tools(side)
        agent = side.agents.create_react_agent(side.FakeList(REACT_SCRIPTS[name]), tools,
                                               side.Prompt.from_template(REACT_PROMPT))
        executor = side.agents.AgentExecutor(agent=agent, tools=tools, return_intermediate_steps=True)
        recorder = side.Recorder()
        prompts = []
        recorder.on_chat_model_start = lambda serialized, messages, **kw: prompts.append(messages[0][0].content)
        out = executor.invoke({"input": "go"}, {"callbacks": [recorder]})
        return out["output"], _steps(out["intermediate_steps"]), recorder.events, prompts

    lc, ours = both(script)
    assert lc == ours


def test_return_direct_tool_ends_the_run_with_its_result_alike():
    def script(side):
        tools = _react_tools(side)
        agent = side.agents.create_react_agent(side.FakeList(["Action: echo\nAction Input: x", "Final Answer: no"]),
                                               tools, side.Prompt.from_template(REACT_PROMPT))
        executor = side.agents.AgentExecutor(agent=agent, tools=tools, return_intermediate_steps=True)
        recorder = side.Recorder()
        out = executor.invoke({"input": "go"}, {"callbacks": [recorder]})
        return out["output"], _steps(out["intermediate_steps"]), recorder.events

    lc, ours = both(script)
    assert lc == ours


@pytest.mark.parametrize("handle", [True, "Please use the format.", "callable"])
def test_parsing_errors_handled_are_shown_to_the_model_alike(handle):
    def script(side):
        tools = _react_tools(side)
        replies = ["I will not follow the format", "Action: shout", "Final Answer: ok"]
        agent = side.agents.create_react_agent(side.FakeList(replies), tools, side.Prompt.from_template(REACT_PROMPT))
        handler = (lambda exc: f"bad: {type(exc).__name__}") if handle == "callable" else handle
        executor = side.agents.AgentExecutor(agent=agent, tools=tools, handle_parsing_errors=handler,
                                             return_intermediate_steps=True)
        recorder = side.Recorder()
        out = executor.invoke({"input": "go"}, {"callbacks": [recorder]})
        return out["output"], _steps(out["intermediate_steps"]), recorder.events

    lc, ours = both(script)
    assert lc == ours


def test_iteration_limit_stops_with_the_same_message_and_steps():
    def script(side):
        tools = _react_tools(side)
        agent = side.agents.create_react_agent(side.FakeList(["Action: shout\nAction Input: again"]), tools,
                                               side.Prompt.from_template(REACT_PROMPT))
        executor = side.agents.AgentExecutor(agent=agent, tools=tools, max_iterations=3, return_intermediate_steps=True)
        out = executor.invoke({"input": "go"})
        return out["output"], _steps(out["intermediate_steps"])

    lc, ours = both(script)
    assert lc == ours


def test_trimmed_intermediate_steps_reach_the_prompt_alike():
    seen = {}

    def script(side):
        tools = _react_tools(side)
        replies = ["Action: shout\nAction Input: one", "Action: shout\nAction Input: two", "Final Answer: x"]
        prompts = []
        agent = side.agents.create_react_agent(side.FakeList(replies), tools, side.Prompt.from_template(REACT_PROMPT))
        executor = side.agents.AgentExecutor(
            agent=agent, tools=tools, trim_intermediate_steps=1,
            callbacks=None)
        recorder = side.Recorder()
        recorder.on_chat_model_start = lambda serialized, messages, **kw: prompts.append(messages[0][-1].content)
        executor.invoke({"input": "go"}, {"callbacks": [recorder]})
        seen[side.name] = prompts
        return [p.split("Question: go\n", 1)[1] for p in prompts]

    lc, ours = both(script)
    assert lc == ours
    assert "ONE" not in ours[2] and "TWO" in ours[2]


def _tool_call_script(side):
    call = side.AIMessage
    return [call("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"},
                                 {"name": "add", "args": {"a": 5, "b": 5}, "id": "c2"}]),
            call("3 and 10")]


def _tool_calling_executor(side, model_script, **kwargs):
    @side.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    class Model(type(side.Generic([]))):
        def bind_tools(self, tools, **kw):  # LangChain's fake has none
            return self

    prompt = side.ChatPrompt.from_messages([("system", "Be brief."), ("human", "{input}"),
                                            side.Placeholder("agent_scratchpad")])
    agent = side.agents.create_tool_calling_agent(Model(messages=iter(model_script)), [add], prompt)
    # LangChain's GenericFakeChatModel cannot stream tool calls: plan with invoke on both sides.
    return side.agents.AgentExecutor(agent=agent, tools=[add], stream_runnable=False, **kwargs)


def test_tool_calling_agent_runs_parallel_calls_alike():
    def script(side):
        executor = _tool_calling_executor(side, _tool_call_script(side), return_intermediate_steps=True)
        recorder = side.Recorder()
        out = executor.invoke({"input": "add"}, {"callbacks": [recorder]})
        steps = [(a.tool, a.tool_input, a.tool_call_id, o) for a, o in out["intermediate_steps"]]
        return out["output"], steps, recorder.events

    lc, ours = both(script)
    assert lc == ours


def test_agent_stream_yields_the_same_chunks():
    def script(side):
        executor = _tool_calling_executor(side, _tool_call_script(side))
        chunks = list(executor.stream({"input": "add"}))
        return [sorted(c) for c in chunks], chunks[-1]["output"], [o for c in chunks for s in c.get("steps", [])
                                                                  for o in [s.observation]]

    lc, ours = both(script)
    assert lc == ours


def test_agent_iter_yields_each_step_then_the_output_alike():
    def script(side):
        tools = _react_tools(side)
        replies = ["Action: shout\nAction Input: a", "Action: count\nAction Input: abc", "Final Answer: 3"]
        agent = side.agents.create_react_agent(side.FakeList(replies), tools, side.Prompt.from_template(REACT_PROMPT))
        executor = side.agents.AgentExecutor(agent=agent, tools=tools)
        chunks = list(executor.iter({"input": "go"}))
        return [(sorted(c), _steps(c.get("intermediate_step", []))) for c in chunks], chunks[-1]["output"]

    lc, ours = both(script)
    assert lc == ours


def test_agent_with_memory_saves_each_exchange_alike():
    def script(side):
        tools = _react_tools(side)
        prompt = side.Prompt.from_template("{chat_history}\n" + REACT_PROMPT)
        agent = side.agents.create_react_agent(side.FakeList(["Final Answer: one", "Final Answer: two"]), tools, prompt)
        memory = side.memory.ConversationBufferMemory(memory_key="chat_history")
        executor = side.agents.AgentExecutor(agent=agent, tools=tools, memory=memory)
        outs = [executor.invoke({"input": q}) for q in ("first", "second")]
        return outs, memory.buffer

    lc, ours = both(script)
    assert lc == ours


# -- RunnableBranch ------------------------------------------------------------------------
def test_runnable_branch_chooses_and_traces_alike():
    def script(side):
        branch = side.Branch((lambda x: x < 0, lambda x: "negative"), (lambda x: x == 0, lambda x: "zero"),
                             lambda x: "positive")
        recorder = side.Recorder()
        outs = [branch.invoke(n, {"callbacks": [recorder]}) for n in (-3, 0, 4)]
        return outs, list(branch.stream(0)), [(d, e, n) for d, e, n in recorder.events]

    lc, ours = both(script)
    assert lc == ours


def test_runnable_branch_async_and_astream_alike():
    async def script(side):
        branch = side.Branch((lambda x: x > 1, lambda x: x * 10), lambda x: -x)
        return [await branch.ainvoke(2), await branch.ainvoke(1)], [c async for c in branch.astream(5)]

    assert asyncio.run(script(LANGCHAIN)) == asyncio.run(script(OURS))


def test_chains_and_agents_run_alike_on_the_async_path():
    async def script(side):
        chain = side.chains.LLMChain(llm=side.FakeList(["A1"]), prompt=side.Prompt.from_template("Q {q}"))
        tools = _react_tools(side)
        agent = side.agents.create_react_agent(side.FakeList(["Action: shout\nAction Input: a", "Final Answer: A"]),
                                               tools, side.Prompt.from_template(REACT_PROMPT))
        executor = side.agents.AgentExecutor(agent=agent, tools=tools, return_intermediate_steps=True)
        out = await executor.ainvoke({"input": "go"})
        chunks = [sorted(c) async for c in executor.astream({"input": "go"})]
        return await chain.ainvoke({"q": 1}), out["output"], _steps(out["intermediate_steps"]), chunks

    assert asyncio.run(script(LANGCHAIN)) == asyncio.run(script(OURS))


JSON_BLOB = '```json\n{{"action": "{action}", "action_input": {value}}}\n```'


@pytest.mark.parametrize("constructor", ["create_structured_chat_agent", "create_json_chat_agent"])
def test_json_action_agents_run_the_same_steps_and_callbacks(constructor):
    def script(side):
        tools = _react_tools(side)
        replies = [JSON_BLOB.format(action="shout", value='"hi"'), JSON_BLOB.format(action="count", value='"abcd"'),
                   JSON_BLOB.format(action="Final Answer", value='"4"')]
        if constructor == "create_structured_chat_agent":
            prompt = side.ChatPrompt.from_messages([("system", "{tools}\n{tool_names}"),
                                                    ("human", "{input}\n{agent_scratchpad}")])
            agent = side.agents.create_structured_chat_agent(side.FakeList(replies), tools, prompt)
        else:
            prompt = side.ChatPrompt.from_messages([("system", "{tools}\n{tool_names}"), ("human", "{input}"),
                                                    side.Placeholder("agent_scratchpad")])
            agent = side.agents.create_json_chat_agent(side.FakeList(replies), tools, prompt,
                                                       template_tool_response="Tool said: {observation}")
        executor = side.agents.AgentExecutor(agent=agent, tools=tools, return_intermediate_steps=True)
        recorder = side.Recorder()
        seen = []
        recorder.on_chat_model_start = lambda serialized, messages, **kw: seen.append(
            [(m.type, m.content) for m in messages[0]])
        out = executor.invoke({"input": "go"}, {"callbacks": [recorder]})
        return out["output"], _steps(out["intermediate_steps"]), recorder.events, seen[-1]

    lc, ours = both(script)
    assert lc == ours


def test_a_reply_with_both_an_action_and_an_answer_is_an_invalid_response_alike():
    def script(side):
        tools = _react_tools(side)
        replies = ["Action: shout\nAction Input: x\nFinal Answer: y", "Final Answer: fixed"]
        agent = side.agents.create_react_agent(side.FakeList(replies), tools, side.Prompt.from_template(REACT_PROMPT))
        executor = side.agents.AgentExecutor(agent=agent, tools=tools, handle_parsing_errors=True,
                                             return_intermediate_steps=True)
        chunks = [sorted(c) for c in executor.stream({"input": "go"})]
        out = executor.invoke({"input": "go"})
        return out["output"], [(a.tool, a.tool_input, o) for a, o in out["intermediate_steps"]], chunks

    lc, ours = both(script)
    assert lc == ours


def test_conversational_retrieval_chain_takes_history_pairs_and_a_run_name_alike():
    def script(side):
        condense = side.Prompt.from_template("History:{chat_history}\nQ: {question}\nStandalone:")
        chain = side.chains.ConversationalRetrievalChain.from_llm(
            side.FakeList(["capital spain", "Madrid."]), side.Retriever(texts=TEXTS), condense_question_prompt=condense,
            combine_docs_chain_kwargs={"prompt": _qa_prompt(side)}, rephrase_question=False,
            response_if_no_docs_found="none found")
        recorder = side.Recorder()
        out = chain.invoke({"question": "and Spain?", "chat_history": [("capital of France?", "Paris.")]},
                           {"callbacks": [recorder], "run_name": "followup", "tags": ["t"]})
        empty = chain.invoke({"question": "zzz", "chat_history": []})
        return text_of(out), recorder.events, empty["answer"]

    lc, ours = both(script)
    assert lc == ours
