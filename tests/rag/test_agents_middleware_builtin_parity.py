"""Differential tests of the built-in middleware: call limits, retries, fallbacks and
human approval give langchain 1.4's messages, state and interrupts on the same script."""

import pytest
from agent_middleware_peers import LANGCHAIN, OURS, SIDES, normal, scripted
from hypothesis import given, settings
from hypothesis import strategies as st

QUESTION = {"messages": [("human", "Add things.")]}


def rounds(n, calls=1):
    return [("", [("add", {"a": r, "b": c}, f"c{r}-{c}") for c in range(calls)]) for r in range(n)] + [("done", [])]


def both(replies, build, question=QUESTION, config=None, saver=False):
    out = {}
    for lib in SIDES:
        agent = lib.create_agent(scripted(lib, replies), [lib.add], middleware=build(lib),
                                 checkpointer=lib.Saver() if saver else None)
        out[lib.name] = agent.invoke(question, config) if config else agent.invoke(question)
    return out["rag"], out["langchain"]


@pytest.mark.parametrize("limits", [{"run_limit": 2}, {"thread_limit": 1}, {"run_limit": 3, "thread_limit": 5}])
def test_the_model_call_limit_ends_the_run_with_langchains_message(limits):
    ours, theirs = both(rounds(4), lambda lib: [lib.mw.ModelCallLimitMiddleware(**limits)])
    assert normal(ours["messages"]) == normal(theirs["messages"])
    assert ours["messages"][-1].text.startswith("Model call limits exceeded:")


def test_the_model_call_limit_can_raise_instead():
    for lib in SIDES:
        agent = lib.create_agent(scripted(lib, rounds(3)), [lib.add],
                                 middleware=[lib.mw.ModelCallLimitMiddleware(run_limit=1, exit_behavior="error")])
        with pytest.raises(Exception, match=r"Model call limits exceeded: run limit \(1/1\)"):
            agent.invoke(QUESTION)


def test_the_run_limit_starts_again_each_run_and_the_thread_limit_does_not():
    config = {"configurable": {"thread_id": "t"}}
    seen = {}
    for lib in SIDES:
        agent = lib.create_agent(scripted(lib, [("one", []), ("two", []), ("three", [])]), [lib.add],
                                 middleware=[lib.mw.ModelCallLimitMiddleware(run_limit=1, thread_limit=2)],
                                 checkpointer=lib.Saver())
        texts = [agent.invoke({"messages": [("human", q)]}, config)["messages"][-1].text for q in ("a", "b", "c")]
        seen[lib.name] = texts
    assert seen["rag"] == seen["langchain"]
    assert seen["rag"][:2] == ["one", "two"] and seen["rag"][2].startswith("Model call limits exceeded: thread limit")


@pytest.mark.parametrize("behavior", ["continue", "end"])
@pytest.mark.parametrize("tool_name", [None, "add"])
def test_the_tool_call_limit_answers_calls_past_it_as_langchain(behavior, tool_name):
    def build(lib):
        return [lib.mw.ToolCallLimitMiddleware(tool_name=tool_name, run_limit=2, exit_behavior=behavior)]
    ours, theirs = both(rounds(3, calls=2), build)
    assert normal(ours["messages"]) == normal(theirs["messages"])
    assert any(m.type == "tool" and m.status == "error" for m in ours["messages"])


@settings(max_examples=15, deadline=None)
@given(calls=st.lists(st.integers(1, 3), min_size=1, max_size=4), model_limit=st.integers(1, 5),
       tool_limit=st.integers(1, 6), behavior=st.sampled_from(["continue", "end"]))
def test_any_script_under_both_limits_gives_langchains_messages(calls, model_limit, tool_limit, behavior):
    replies = [("", [("add", {"a": r, "b": c}, f"c{r}-{c}") for c in range(n)]) for r, n in enumerate(calls)]
    replies.append(("done", []))

    def build(lib):
        return [lib.mw.ModelCallLimitMiddleware(run_limit=model_limit),
                lib.mw.ToolCallLimitMiddleware(run_limit=tool_limit, exit_behavior=behavior)]
    ours, theirs = both(replies, build)
    assert normal(ours["messages"]) == normal(theirs["messages"])


class Flaky:
    """A tool body that fails ``failures`` times, then adds."""

    def __init__(self, failures):
        self.failures = failures

    def __call__(self, a: int, b: int) -> int:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("network down")
        return a + b


def flaky_agent(lib, failures, middleware):
    body = Flaky(failures)
    if lib is OURS:
        from rag.tools import tool
    else:
        from langchain_core.tools import tool

    @tool("add")
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return body(a, b)
    return lib.create_agent(scripted(lib, rounds(1)), [add], middleware=middleware)


@pytest.mark.parametrize("failures", [1, 2, 5])
def test_tool_retry_retries_then_answers_with_langchains_message(failures):
    out = {lib.name: flaky_agent(lib, failures, [lib.mw.ToolRetryMiddleware(max_retries=2, initial_delay=0)])
           .invoke(QUESTION) for lib in SIDES}
    assert normal(out["rag"]["messages"]) == normal(out["langchain"]["messages"])
    tool_message = out["rag"]["messages"][2]
    assert (tool_message.status, tool_message.text) == (
        ("success", "0") if failures <= 2 else
        ("error", "Tool 'add' failed after 3 attempts with ConnectionError: network down. Please try again."))


def failing_model(lib, failures, then):
    class Failing(lib.Fake):
        def _generate(self, *args, **kwargs):
            if state["failures"]:
                state["failures"] -= 1
                raise TimeoutError("slow server")
            return super()._generate(*args, **kwargs)
    state = {"failures": failures}
    return Failing(messages=iter([lib.AIMessage(t) for t in then]))


@pytest.mark.parametrize("failures", [0, 2, 3])
def test_model_retry_retries_then_answers_with_langchains_message(failures):
    out = {}
    for lib in SIDES:
        agent = lib.create_agent(failing_model(lib, failures, ["fine"]), [lib.add],
                                 middleware=[lib.mw.ModelRetryMiddleware(max_retries=2, initial_delay=0)])
        out[lib.name] = normal(agent.invoke(QUESTION)["messages"])
    assert out["rag"] == out["langchain"]
    assert out["rag"][-1]["text"] == ("fine" if failures < 3 else
                                      "Model call failed after 3 attempts with TimeoutError: slow server")


def test_model_fallback_uses_the_next_model_when_the_first_fails():
    out = {}
    for lib in SIDES:
        backup = lib.Fake(messages=iter([lib.AIMessage("from the backup")]))
        agent = lib.create_agent(failing_model(lib, 5, ["never"]), [lib.add],
                                 middleware=[lib.mw.ModelFallbackMiddleware(backup)])
        out[lib.name] = normal(agent.invoke(QUESTION)["messages"])
    assert out["rag"] == out["langchain"]
    assert out["rag"][-1]["text"] == "from the backup"


# -- human in the loop ---------------------------------------------------------------------
def review(decisions_for, replies):
    """Run ``replies`` with approval of ``add`` on both sides, resuming with each decision list."""
    results = {}
    config = {"configurable": {"thread_id": "review"}}
    for lib in SIDES:
        from langgraph.types import Command as LgCommand

        from rag.graph import Command
        command = Command if lib is OURS else LgCommand
        agent = lib.create_agent(scripted(lib, replies), [lib.add], checkpointer=lib.Saver(),
                                 middleware=[lib.mw.HumanInTheLoopMiddleware({"add": True})])
        out = agent.invoke(QUESTION, config)
        pauses = []
        for decisions in decisions_for:
            [pause] = out["__interrupt__"]
            pauses.append(pause.value)
            out = agent.invoke(command(resume={"decisions": decisions}), config)
        results[lib.name] = (normal(out["messages"]), pauses, "__interrupt__" in out)
    return results["rag"], results["langchain"]


@pytest.mark.parametrize("decision", [
    {"type": "approve"},
    {"type": "reject"},
    {"type": "reject", "message": "not now"},
    {"type": "respond", "message": "It is 42."},
    {"type": "edit", "edited_action": {"name": "add", "args": {"a": 40, "b": 2}}},
], ids=["approve", "reject", "reject with reason", "respond", "edit"])
def test_a_reviewed_call_pauses_and_resumes_as_in_langchain(decision):
    ours, theirs = review([[decision]], rounds(1))
    assert ours == theirs
    messages, [pause], still_paused = ours
    assert pause["action_requests"][0]["name"] == "add" and not still_paused
    assert messages[-1]["text"] == "done"


def test_several_calls_are_reviewed_in_one_pause_with_one_decision_each():
    decisions = [{"type": "approve"}, {"type": "reject"}]
    ours, theirs = review([decisions], rounds(1, calls=2))
    assert ours == theirs
    assert len(ours[1][0]["action_requests"]) == 2


def test_a_decision_the_config_does_not_allow_is_refused():
    from rag.agents.middleware import HumanInTheLoopMiddleware
    from rag.errors import ValidationError
    from rag.graph import Command

    agent = OURS.create_agent(scripted(OURS, rounds(1)), [OURS.add], checkpointer=OURS.Saver(),
                              middleware=[HumanInTheLoopMiddleware({"add": {"allowed_decisions": ["approve"]}})])
    config = {"configurable": {"thread_id": "t"}}
    agent.invoke(QUESTION, config)
    with pytest.raises(ValidationError, match="Decision type 'reject' is not allowed for tool 'add'"):
        agent.invoke(Command(resume={"decisions": [{"type": "reject"}]}), config)


# -- summarization, personal data, context editing -----------------------------------------
def summarizer_model(lib, text="Earlier: sums were done."):
    return lib.Fake(messages=iter([lib.AIMessage(text)] * 10))


@pytest.mark.parametrize("trigger,keep", [(("messages", 4), ("messages", 2)), (("messages", 6), ("messages", 3)),
                                          ({"messages": 5}, ("messages", 1))])
def test_summarization_replaces_old_messages_as_langchain(trigger, keep):
    def build(lib):
        return [lib.mw.SummarizationMiddleware(summarizer_model(lib), trigger=trigger, keep=keep)]
    ours, theirs = both(rounds(3), build)
    assert normal(ours["messages"]) == normal(theirs["messages"])
    assert ours["messages"][0].text.startswith("Here is a summary of the conversation to date:")


def test_summarization_never_keeps_a_tool_answer_without_its_call():
    ours, theirs = both(rounds(3, calls=2), lambda lib: [
        lib.mw.SummarizationMiddleware(summarizer_model(lib), trigger=("messages", 4), keep=("messages", 2))])
    assert normal(ours["messages"]) == normal(theirs["messages"])
    for position, message in enumerate(ours["messages"]):
        if message.type == "tool":
            assert any(m.type == "ai" and message.tool_call_id in {c["id"] for c in m.tool_calls}
                       for m in ours["messages"][:position])


def test_summarization_takes_langchains_deprecated_arguments():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ours, theirs = both(rounds(3), lambda lib: [lib.mw.SummarizationMiddleware(
            summarizer_model(lib), max_tokens_before_summary=20, messages_to_keep=2)])
    assert normal(ours["messages"]) == normal(theirs["messages"])


def test_a_failing_summary_model_keeps_the_history(caplog):
    from rag.agents.middleware import SummarizationMiddleware

    class Broken(OURS.Fake):
        def _generate(self, *args, **kwargs):
            raise ConnectionError("summary server down")

    agent = OURS.create_agent(scripted(OURS, rounds(2)), [OURS.add], middleware=[
        SummarizationMiddleware(Broken(messages=iter([])), trigger=("messages", 2), keep=("messages", 1))])
    out = agent.invoke(QUESTION)
    assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "ai", "tool", "ai"]
    assert "summary model failed" in caplog.text


PERSONAL = "Mail ann@example.org from 192.168.1.20, card 4111 1111 1111 1111, see https://example.org/x"


@pytest.mark.parametrize("pii_type", ["email", "ip", "credit_card", "url"])
@pytest.mark.parametrize("strategy", ["redact", "mask", "hash"])
def test_personal_data_in_the_input_is_treated_as_langchain(pii_type, strategy):
    question = {"messages": [("human", PERSONAL)]}
    ours, theirs = both([("ok", [])], lambda lib: [lib.mw.PIIMiddleware(pii_type, strategy=strategy)], question)
    assert normal(ours["messages"]) == normal(theirs["messages"])
    assert ours["messages"][0].text != PERSONAL


def test_personal_data_in_outputs_and_tool_results_and_custom_patterns_is_treated_as_langchain():
    replies = [("", [("add", {"a": 4111, "b": 0}, "c1")]), ("Write to bob@example.com, ticket TK-12345", [])]

    def build(lib):
        return [lib.mw.PIIMiddleware("email", apply_to_output=True, apply_to_input=False),
                lib.mw.PIIMiddleware("ticket", detector=r"TK-\d+", strategy="mask", apply_to_output=True),
                lib.mw.PIIMiddleware("ip", apply_to_tool_results=True)]
    ours, theirs = both(replies, build)
    assert normal(ours["messages"]) == normal(theirs["messages"])
    assert ours["messages"][-1].text == "Write to [REDACTED_EMAIL], ticket ****2345"


def test_blocked_personal_data_raises():
    for lib in SIDES:
        agent = lib.create_agent(scripted(lib, [("ok", [])]), [lib.add],
                                 middleware=[lib.mw.PIIMiddleware("email", strategy="block")])
        with pytest.raises(Exception, match=r"Detected 1 instance\(s\) of email in text content"):
            agent.invoke({"messages": [("human", "I am ann@example.org")]})


@pytest.mark.parametrize("keep,inputs", [(1, False), (0, True), (2, False)])
def test_context_editing_clears_old_tool_results_from_what_the_model_sees(keep, inputs):
    seen = {}
    for lib in SIDES:
        log = []

        def spy(self, request, handler, log=log):
            log.append([(m.type, m.text, [c["args"] for c in getattr(m, "tool_calls", [])]) for m in request.messages])
            return handler(request)
        middleware = [lib.mw.ContextEditingMiddleware(edits=[lib.mw.ClearToolUsesEdit(
                          trigger=10, keep=keep, clear_tool_inputs=inputs)]),
                      type("Spy", (lib.mw.AgentMiddleware,), {"wrap_model_call": spy})()]
        out = lib.create_agent(scripted(lib, rounds(3)), [lib.add], middleware=middleware).invoke(QUESTION)
        seen[lib.name] = (log, normal(out["messages"]))
    assert seen["rag"] == seen["langchain"]
    assert any(text == "[cleared]" for _, text, _ in seen["rag"][0][-1])


def test_a_resumed_run_counts_its_model_calls_afresh_as_langchain():
    # LangGraph does not save untracked values, so a resumed run starts its run count at 0.
    from langgraph.types import Command as LgCommand

    from rag.graph import Command
    config = {"configurable": {"thread_id": "limits"}}
    seen = {}
    for lib in SIDES:
        command = Command if lib is OURS else LgCommand
        agent = lib.create_agent(scripted(lib, rounds(3)), [lib.add], checkpointer=lib.Saver(), middleware=[
            lib.mw.ModelCallLimitMiddleware(run_limit=2), lib.mw.HumanInTheLoopMiddleware({"add": True})])
        agent.invoke(QUESTION, config)
        out = agent.invoke(command(resume={"decisions": [{"type": "approve"}]}), config)
        seen[lib.name] = (normal(out["messages"]), "__interrupt__" in out)
    assert seen["rag"] == seen["langchain"]


def test_summarization_on_the_async_path_gives_langchains_messages():
    import asyncio

    out = {}
    for lib in SIDES:
        agent = lib.create_agent(scripted(lib, rounds(3)), [lib.add], middleware=[
            lib.mw.SummarizationMiddleware(summarizer_model(lib), trigger=("messages", 4), keep=("messages", 2))])
        out[lib.name] = normal(asyncio.run(agent.ainvoke(QUESTION))["messages"])
    assert out["rag"] == out["langchain"]
    assert out["rag"][0]["text"].startswith("Here is a summary")
