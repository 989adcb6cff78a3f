"""Per-step cost of a state graph by state type: TypedDict, pydantic model, dataclass, root list.

The same two-node loop as ``graph_steps.py`` (``a`` increments ``n``, ``b`` appends ``n``
to a list reduced with ``operator.add``; a conditional edge loops until ``--steps`` node
steps ran), without a checkpointer and with the in-memory saver. Prints microseconds per
node step of CPU time (median of ``--repeats`` runs). To compare two versions of rag.graph, run it
under each one's checkout, alternating, e.g.::

    git archive <commit> rag | tar -x -C /tmp/before
    for i in 1 2 3; do PYTHONPATH=/tmp/before python benchmarks/graph_state_types.py --kinds typeddict; \
        python benchmarks/graph_state_types.py --kinds typeddict; done

(kinds a version does not offer are reported as "not offered").
"""

from __future__ import annotations

import argparse
import json
import operator
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Callable, TypedDict

# benchmarks/stores.py would shadow the stores package; the checkout comes after PYTHONPATH,
# so a PYTHONPATH naming another version's rag/ is the one measured.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p != _HERE] + [str(Path(_HERE).parent)]


class DictState(TypedDict):
    n: int
    seen: Annotated[list, operator.add]


@dataclass
class DataState:
    n: int = 0
    seen: Annotated[list, operator.add] = field(default_factory=list)


def _graph(kind: str, steps: int) -> tuple[Any, Any]:
    from rag.graph import END, START, StateGraph

    if kind == "root":
        graph = StateGraph(Annotated[list, operator.add])
        graph.add_node("a", lambda s: [len(s)]).add_node("b", lambda s: [len(s)])
        graph.add_edge(START, "a").add_edge("a", "b")
        graph.add_conditional_edges("b", lambda s: "a" if len(s) < steps else END)
        return graph, []
    if kind == "pydantic":
        import pydantic

        class ModelState(pydantic.BaseModel):
            n: int = 0
            seen: Annotated[list, operator.add] = []

        schema: Any = ModelState
    else:
        schema = DictState if kind == "typeddict" else DataState

    def read(state: Any, key: str) -> Any:
        return state[key] if isinstance(state, dict) else getattr(state, key)

    graph = StateGraph(schema)
    graph.add_node("a", lambda s: {"n": read(s, "n") + 1})
    graph.add_node("b", lambda s: {"seen": [read(s, "n")]})
    graph.add_edge(START, "a").add_edge("a", "b")
    graph.add_conditional_edges("b", lambda s: "a" if read(s, "n") * 2 < steps else END)
    return graph, {"n": 0, "seen": []}


def _time(run: Callable[[], Any], steps: int, repeats: int) -> float:
    # CPU time of this process, not wall time: the machines here are shared, and one task
    # per step runs inline (no thread), so CPU time is the graph's own cost.
    timings = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        timings.append((time.process_time() - start) / steps * 1e6)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200, help="node steps per timed run")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--kinds", default="typeddict,pydantic,dataclass,root")
    args = parser.parse_args()
    from rag.graph.checkpoint import InMemorySaver

    results: dict[str, Any] = {}
    for kind in args.kinds.split(","):
        try:
            graph, start = _graph(kind, args.steps)
        except Exception as exc:  # an older rag.graph without this state type
            results[kind] = f"not offered ({type(exc).__name__})"
            continue
        limit = {"recursion_limit": args.steps + 10}
        plain = graph.compile()
        saved = graph.compile(checkpointer=InMemorySaver())
        counter = iter(range(10**9))
        results[kind] = {
            "no saver us/step": round(_time(lambda: plain.invoke(start, limit), args.steps, args.repeats), 1),
            "in-memory us/step": round(_time(
                lambda: saved.invoke(start, {**limit, "configurable": {"thread_id": str(next(counter))}}),
                args.steps, args.repeats), 1),
        }
    print(json.dumps(results))


if __name__ == "__main__":
    main()
