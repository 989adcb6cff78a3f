"""Per-step overhead of the classic AgentExecutor (and of LLMChain / ConversationChain
calls) against langchain_classic 1.0.8's, with the same scripted fake models.

Each agent run takes ``--steps`` steps (a ReAct reply naming a tool, the tool's
observation) and then a final answer; the tool returns its input upper-cased and the
models are scripted fakes (ours: ``FakeListChatModel``; theirs: langchain-core's), so what
is measured is the executor's own machinery: planning through the runnable agent
(scratchpad, prompt, parser), tool dispatch, callbacks, memory. Cases: the text ReAct
agent (planned with stream, as AgentExecutor does by default, and with invoke), the
tool-calling agent (invoke: LangChain's fake cannot stream tool calls), and with a
callback handler listening. Reports microseconds per step (median of ``--repeats``
alternating runs; best in brackets) and the ratio langchain_classic / ours (above 1: we
are faster). The chain cases report microseconds per call.

    python benchmarks/classic_agent_steps.py [--steps 20] [--repeats 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
warnings.filterwarnings("ignore")

import langchain_classic.agents as lc_agents  # noqa: E402
import langchain_classic.chains as lc_chains  # noqa: E402
import langchain_classic.memory as lc_memory  # noqa: E402
from langchain_core.callbacks import BaseCallbackHandler as LcHandler  # noqa: E402
from langchain_core.language_models import FakeListChatModel as LcFakeList  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel as LcGeneric  # noqa: E402
from langchain_core.messages import AIMessage as LcAIMessage  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate as LcChatPrompt  # noqa: E402
from langchain_core.prompts import MessagesPlaceholder as LcPlaceholder  # noqa: E402
from langchain_core.prompts import PromptTemplate as LcPrompt  # noqa: E402
from langchain_core.tools import Tool as LcTool  # noqa: E402

import rag.classic.agents as our_agents  # noqa: E402
import rag.classic.chains as our_chains  # noqa: E402
import rag.classic.memory as our_memory  # noqa: E402
from rag.callbacks import BaseCallbackHandler  # noqa: E402
from rag.messages import AIMessage  # noqa: E402
from rag.models import FakeListChatModel, GenericFakeChatModel  # noqa: E402
from rag.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate  # noqa: E402
from rag.tools import Tool  # noqa: E402

# langchain_classic turns its deprecation warnings back on when imported; silence them so
# neither side pays for printing warnings.
warnings.filterwarnings("ignore")

REACT = "Tools:\n{tools}\nNames: {tool_names}\nQuestion: {input}\n{agent_scratchpad}"


class _Counting:
    """A handler that counts the events it sees (so callbacks are really dispatched)."""

    def __init__(self) -> None:
        self.count = 0

    def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
        self.count += 1

    def on_tool_start(self, *args: Any, **kwargs: Any) -> None:
        self.count += 1

    def on_agent_action(self, *args: Any, **kwargs: Any) -> None:
        self.count += 1


class LcCounting(_Counting, LcHandler):
    pass


class OurCounting(_Counting, BaseCallbackHandler):
    pass


class LcScripted(LcGeneric):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def react_replies(steps: int) -> list[str]:
    return [f"Thought: step {i}\nAction: shout\nAction Input: word {i}" for i in range(steps)] + ["Final Answer: done"]


def react_case(side: str, steps: int, stream: bool, listen: bool) -> Callable[[], Any]:
    """A function running one agent run on a fresh executor."""
    if side == "ours":
        tool = Tool("shout", lambda tool_input: tool_input.upper(), "Say it loudly.")
        make_model, agents, prompt, handler = FakeListChatModel, our_agents, PromptTemplate, OurCounting
    else:
        tool = LcTool(name="shout", func=lambda text: text.upper(), description="Say it loudly.")
        make_model, agents, prompt, handler = (lambda responses: LcFakeList(responses=responses)), lc_agents, \
            LcPrompt, LcCounting

    def run() -> Any:
        agent = agents.create_react_agent(make_model(react_replies(steps)), [tool], prompt.from_template(REACT))
        executor = agents.AgentExecutor(agent=agent, tools=[tool], stream_runnable=stream, max_iterations=steps + 1)
        config = {"callbacks": [handler()]} if listen else None
        out = executor.invoke({"input": "go"}, config)
        assert out["output"] == "done", out
    return run


def tool_calling_case(side: str, steps: int, listen: bool) -> Callable[[], Any]:
    def script(cls: Any) -> list[Any]:
        return [cls("", tool_calls=[{"name": "shout", "args": {"__arg1": f"w{i}"}, "id": f"c{i}"}])
                for i in range(steps)] + [cls("done")]

    if side == "ours":
        tool = Tool("shout", lambda tool_input: tool_input.upper(), "Say it loudly.")

        def make() -> Any:
            prompt = ChatPromptTemplate.from_messages([("human", "{input}"), MessagesPlaceholder("agent_scratchpad")])
            model = GenericFakeChatModel(messages=iter(script(AIMessage)))
            return our_agents.AgentExecutor(agent=our_agents.create_tool_calling_agent(model, [tool], prompt),
                                            tools=[tool], stream_runnable=False, max_iterations=steps + 1)
        handler: Any = OurCounting
    else:
        tool = LcTool(name="shout", func=lambda text: text.upper(), description="Say it loudly.")

        def make() -> Any:
            prompt = LcChatPrompt.from_messages([("human", "{input}"), LcPlaceholder("agent_scratchpad")])
            model = LcScripted(messages=iter(script(LcAIMessage)))
            return lc_agents.AgentExecutor(agent=lc_agents.create_tool_calling_agent(model, [tool], prompt),
                                           tools=[tool], stream_runnable=False, max_iterations=steps + 1)
        handler = LcCounting

    def run() -> Any:
        out = make().invoke({"input": "go"}, {"callbacks": [handler()]} if listen else None)
        assert out["output"] == "done", out
    return run


def conversation_case(side: str, turns: int) -> Callable[[], Any]:
    chains, memory, prompt, make_model = ((our_chains, our_memory, PromptTemplate, FakeListChatModel) if side == "ours"
                                          else (lc_chains, lc_memory, LcPrompt,
                                                lambda responses: LcFakeList(responses=responses)))

    def run() -> Any:
        chain = chains.ConversationChain(llm=make_model([f"reply {i}" for i in range(turns)]),
                                         memory=memory.ConversationBufferWindowMemory(k=3),
                                         prompt=prompt.from_template("{history}\nHuman: {input}\nAI:"))
        for i in range(turns):
            chain.invoke({"input": f"turn {i}"})
    return run


def timed(run: Callable[[], Any]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def compare(label: str, ours: Callable[[], Any], theirs: Callable[[], Any], per: int, repeats: int) -> None:
    timed(ours), timed(theirs)  # warm-up
    samples: dict[str, list[float]] = {"ours": [], "lc": []}
    for _ in range(repeats):
        samples["ours"].append(timed(ours) / per * 1e6)
        samples["lc"].append(timed(theirs) / per * 1e6)
    med = {k: statistics.median(v) for k, v in samples.items()}
    cells = {k: f"{med[k]:.0f} [{min(samples[k]):.0f}]" for k in med}
    print(f"{label:<44}{cells['ours']:>14}{cells['lc']:>20}{med['lc'] / med['ours']:>9.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="agent steps per run (and conversation turns)")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    steps = args.steps
    print(f"µs per agent step ({steps} steps per run) or per chain call; median of {args.repeats} alternating "
          "runs (best in brackets)")
    print(f"{'case':<44}{'rag.classic':>14}{'langchain_classic':>20}{'ratio':>10}")
    for stream in (True, False):
        for listen in (False, True):
            label = f"ReAct agent, {'stream' if stream else 'invoke'}, {'a handler' if listen else 'no handler'}"
            compare(label, react_case("ours", steps, stream, listen), react_case("lc", steps, stream, listen),
                    steps + 1, args.repeats)
    for listen in (False, True):
        compare(f"tool-calling agent, {'a handler' if listen else 'no handler'}",
                tool_calling_case("ours", steps, listen), tool_calling_case("lc", steps, listen), steps + 1,
                args.repeats)
    compare("ConversationChain + window memory, per turn", conversation_case("ours", steps),
            conversation_case("lc", steps), steps, args.repeats)


if __name__ == "__main__":
    main()
