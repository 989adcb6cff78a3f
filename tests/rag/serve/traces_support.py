"""A trace store holding real runs: two questions asked of a small index (one project) and
a failed run (another), for the /traces routes and page."""

from __future__ import annotations

from pathlib import Path

from rag.runnables import RunnableLambda
from rag.tracing import StoreTracer

from tests.rag.serve.index_server import build_index


def _fail(question: str) -> str:
    raise RuntimeError(f"the model server refused {question!r}")


def record_traces(folder: Path) -> tuple[Path, list[str]]:
    """The database's path and the trace ids: [cats, dogs, failed]."""
    index = build_index(folder)
    tracer = StoreTracer(folder / "traces.sqlite3", project_name="docs-qa")
    chain = index.chain(k=2)
    for question in ("Why do cats purr?", "Where do dogs come from?"):
        chain.invoke({"input": question}, {"callbacks": [tracer], "run_name": "ask"})
    failing = StoreTracer(folder / "traces.sqlite3", project_name="broken")
    try:
        RunnableLambda(_fail, name="flaky").invoke("q", {"callbacks": [failing]})
    except RuntimeError:
        pass
    assert tracer.flush() and failing.flush()
    oldest_first = sorted(tracer.store.list_traces(), key=lambda row: row["start_us"])
    return tracer.store.path, [row["trace_id"] for row in oldest_first]
