"""Per-round overhead of an agent against langchain 1.4's create_agent and LangGraph 1.2's
create_react_agent, with the same scripted fake model.

Each run answers one question in ``--rounds`` rounds (a model reply calling ``--calls``
tools, then the tools' step) and a final answer. The tool adds two integers, and the
models are scripted fakes (ours: ``GenericFakeChatModel``; theirs: langchain-core's
``GenericFakeChatModel`` with a ``bind_tools`` that returns itself), so what is measured is
the agents' own machinery: graph steps, message handling, tool dispatch, checkpoints.
Reports microseconds per round (median of ``--repeats`` alternating runs; best in
brackets) and the ratios peer / ours (above 1: we are faster).

A second table runs both ``create_agent`` s with three middleware (a model-call limit, a
tool-call limit and email redaction: five hook nodes per round) and reports what they add
per round to each side, and the ratio.

    pip install ".[bench]"        # langchain==1.4.7, langgraph==1.2.22
    python benchmarks/agent_steps.py [--rounds 20] [--repeats 7]
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

from langchain.agents import create_agent as lc_create_agent  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel as LcFake  # noqa: E402
from langchain_core.messages import AIMessage as LcAIMessage  # noqa: E402
from langchain_core.tools import tool as lc_tool  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver as LgSaver  # noqa: E402
from langgraph.prebuilt import create_react_agent as lg_create_react_agent  # noqa: E402

from langchain.agents import middleware as lc_middleware  # noqa: E402

from rag.agents import create_agent  # noqa: E402
from rag.agents import middleware as our_middleware  # noqa: E402
from rag.graph.checkpoint.memory import InMemorySaver  # noqa: E402
from rag.messages import AIMessage  # noqa: E402
from rag.models import GenericFakeChatModel  # noqa: E402
from rag.tools import tool  # noqa: E402


class LcScripted(LcFake):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@lc_tool("add")
def lc_add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def script(cls: type, rounds: int, calls: int) -> list[Any]:
    replies = [cls("", tool_calls=[{"name": "add", "args": {"a": r, "b": c}, "id": f"c{r}-{c}"} for c in range(calls)])
               for r in range(rounds)]
    return [*replies, cls("done")]


def ours(rounds: int, calls: int, saver: bool) -> Callable[[], Any]:
    replies = script(AIMessage, rounds, calls)

    def make() -> Any:
        model = GenericFakeChatModel(messages=iter(replies))
        return create_agent(model, [add], max_model_calls=rounds + 1,
                            checkpointer=InMemorySaver() if saver else None)
    return make


def langchain(rounds: int, calls: int, saver: bool) -> Callable[[], Any]:
    def make() -> Any:
        model = LcScripted(messages=iter(script(LcAIMessage, rounds, calls)))
        return lc_create_agent(model, [lc_add], checkpointer=LgSaver() if saver else None)
    return make


def langgraph(rounds: int, calls: int, saver: bool) -> Callable[[], Any]:
    def make() -> Any:
        model = LcScripted(messages=iter(script(LcAIMessage, rounds, calls)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lg_create_react_agent(model, [lc_add], checkpointer=LgSaver() if saver else None)
    return make


def three_middleware(lib: Any) -> list[Any]:
    """The same three middleware on either side (limits high enough never to stop a run)."""
    return [lib.ModelCallLimitMiddleware(run_limit=100_000), lib.ToolCallLimitMiddleware(run_limit=100_000),
            lib.PIIMiddleware("email")]


def ours_with_middleware(rounds: int, calls: int, saver: bool) -> Callable[[], Any]:
    replies = script(AIMessage, rounds, calls)

    def make() -> Any:
        model = GenericFakeChatModel(messages=iter(replies))
        return create_agent(model, [add], max_model_calls=rounds + 1, middleware=three_middleware(our_middleware),
                            checkpointer=InMemorySaver() if saver else None)
    return make


def langchain_with_middleware(rounds: int, calls: int, saver: bool) -> Callable[[], Any]:
    def make() -> Any:
        model = LcScripted(messages=iter(script(LcAIMessage, rounds, calls)))
        return lc_create_agent(model, [lc_add], middleware=three_middleware(lc_middleware),
                               checkpointer=LgSaver() if saver else None)
    return make


def per_round(make: Callable[[], Any], rounds: int, calls: int) -> float:
    """Microseconds per round of one run on a fresh agent and thread."""
    agent = make()
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 10 * rounds + 10}
    start = time.perf_counter()
    out = agent.invoke({"messages": [("human", "add things")]}, config)
    elapsed = time.perf_counter() - start
    assert len(out["messages"]) == 2 + rounds * (1 + calls), len(out["messages"])
    return elapsed / rounds * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20, help="model-then-tools rounds per run")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(f"µs per round (a model reply + its tools step), {args.rounds} rounds per run, "
          f"median of {args.repeats} alternating runs (best in brackets)")
    print(f"{'case':<28}{'ours':>16}{'create_agent':>17}{'react_agent':>17}{'ratio LC':>10}{'ratio LG':>10}")
    for calls in (1, 4):
        for saver in (False, True):
            makers = {name: build(args.rounds, calls, saver)
                      for name, build in (("ours", ours), ("lc", langchain), ("lg", langgraph))}
            for make in makers.values():  # warm-up
                per_round(make, args.rounds, calls)
            samples: dict[str, list[float]] = {name: [] for name in makers}
            for _ in range(args.repeats):
                for name, make in makers.items():
                    samples[name].append(per_round(make, args.rounds, calls))
            med = {k: statistics.median(v) for k, v in samples.items()}
            cell = {k: f"{med[k]:.0f} [{min(samples[k]):.0f}]" for k in med}
            label = f"{calls} call{'s' if calls > 1 else ''}/round, {'in-memory saver' if saver else 'no saver'}"
            print(f"{label:<28}{cell['ours']:>16}{cell['lc']:>17}{cell['lg']:>17}"
                  f"{med['lc'] / med['ours']:>9.2f}x{med['lg'] / med['ours']:>9.2f}x")
    middleware_table(args.rounds, args.repeats)


def middleware_table(rounds: int, repeats: int) -> None:
    print(f"\nwith three middleware (ModelCallLimit, ToolCallLimit, PII email): µs per round, median of {repeats}")
    print(f"{'case':<28}{'ours':>10}{'+3 mw':>10}{'added':>8}{'create_agent':>14}{'+3 mw':>10}{'added':>8}"
          f"{'ratio +3 mw':>13}")
    for calls in (1, 4):
        for saver in (False, True):
            makers = {"ours": ours(rounds, calls, saver), "ours_mw": ours_with_middleware(rounds, calls, saver),
                      "lc": langchain(rounds, calls, saver), "lc_mw": langchain_with_middleware(rounds, calls, saver)}
            for make in makers.values():  # warm-up
                per_round(make, rounds, calls)
            samples: dict[str, list[float]] = {name: [] for name in makers}
            for _ in range(repeats):
                for name, make in makers.items():
                    samples[name].append(per_round(make, rounds, calls))
            med = {k: statistics.median(v) for k, v in samples.items()}
            added_ours, added_lc = med["ours_mw"] - med["ours"], med["lc_mw"] - med["lc"]
            label = f"{calls} call{'s' if calls > 1 else ''}/round, {'in-memory saver' if saver else 'no saver'}"
            # The added cost is a difference of medians: read it as a size, not to the microsecond.
            print(f"{label:<28}{med['ours']:>10.0f}{med['ours_mw']:>10.0f}{added_ours:>8.0f}{med['lc']:>14.0f}"
                  f"{med['lc_mw']:>10.0f}{added_lc:>8.0f}{med['lc_mw'] / med['ours_mw']:>12.2f}x")


if __name__ == "__main__":
    main()
