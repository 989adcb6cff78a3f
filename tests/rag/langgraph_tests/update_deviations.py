"""Rewrites ``langgraph_deviations.py`` and the counts in ``DEVIATIONS.md`` from a run of
the imported tests with no deviations applied:

    LANGGRAPH_DEVIATIONS=off pytest tests/rag/langgraph_tests --junitxml=/tmp/lg.xml
    python tests/rag/langgraph_tests/update_deviations.py /tmp/lg.xml

Each failing test gets the reason of the first :data:`KINDS` rule its error or name
matches (what rag.graph does not offer, or the behaviour that differs), followed by the
error's first line; a parametrised test whose cases all fail for one reason is listed once.
Run it again after a fix: strict xfails that start passing fail the suite until then.
"""

from __future__ import annotations

import collections
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).parent

#: (kind, reason, pattern on "<file>::<test> <error>"), first match wins.
KINDS = [
    ("JSON_CHECKPOINTS", "deliberate: the state holds an object (a pydantic model, a dataclass) that JSON "
     "checkpoints do not save; rag.graph saves plain data, messages and Documents, with pickle off",
     r"cannot be saved in a checkpoint"),
    ("EVENTS", "astream_events as LangGraph's: version='v1' and its exact event sequence for tasks and nested "
     "graphs (graph:step tags, ls_integration metadata) are not offered; rag.graph streams events version='v2'",
     r"test_imp_exception|test_imp_task|astream_events supports|test_pregel_async\.py::test_nested_graph\b"),
    ("LOOP_SPY", "spies on LangGraph's PregelLoop (put_writes calls, reference counts) or copies a compiled graph's "
     "internal nodes; rag.graph's loop is its own (the behaviour checked, no redundant writes, has our own spec)",
     r"put_writes|refcount|has no attribute 'copy'"),
    ("PREGEL_INTERNALS", "LangGraph's low-level Pregel API, channels and runtime internals (Pregel, NodeBuilder, "
     "channels, PregelLoop, DeltaChannel) are not offered; rag.graph exposes StateGraph and the functional API",
     r"langgraph\.(pregel|channels|_internal|runtime|managed)|NodeBuilder|DeltaChannel|'StateGraph' object has no "
     r"attribute 'managed'"),
    ("SAVER_INTERNALS", "deliberate: exercises LangGraph's saver internals or raw checkpoint layout (channel "
     "versions, get_next_version, per-channel pending writes, blobs, jsonplus/pickle serde, empty_checkpoint); "
     "rag.graph's savers keep LangGraph's four-method interface with JSON checkpoints, pickle off, a task's result "
     "saved as one write",
     r"jsonplus|empty_checkpoint|serde|checkpoint\.base\.|get_next_version|_warned_unregistered|TestSqliteSaver|"
     r"TestMemorySaver|TestBaseFallback|TestInMemorySaverDelta|TestPreDeltaBlob|test_memory\.py::|test_sqlite\.py::|"
     r"test_pending_writes_resume|test_checkpoint_errors"),
    ("CHECKPOINTER_REQUIRED", "deliberate: interrupt() without a checkpointer: LangGraph raises only when resuming; "
     "rag.graph refuses the pause at once with CheckpointerRequiredError (an earlier error)",
     r"CheckpointerRequiredError"),
    ("UNKNOWN_KEYS", "deliberate: a graph input, Command update or node update holding a key that no channel "
     "has is refused by name (LangGraph drops it silently)", r"which is not in the state"),
    ("SUBGRAPH_SAVER", "deliberate: a subgraph compiled with a checkpointer of its own under a checkpointed "
     "parent is refused naming the node (LangGraph silently uses the parent's)",
     r"compiled with a checkpointer of its own"),
    ("STRICT_INPUTS", "deliberate: a ToolMessage with an empty tool_call_id (it answers no call) and a tool called "
     "with an argument it does not take are refused naming the value; LangChain accepts the first and drops the "
     "second", r"ToolMessage needs the id|invalid arguments for tool"),
    ("STATE_HELPERS", "calls LangGraph's private state helpers (_warn_invalid_state_schema, _is_field_channel, "
     "_get_node_name) or reads graph.channels; rag.graph refuses a bad schema with an error instead of a warning",
     r"_get_node_name|_warn_invalid_state_schema|_is_field_channel|has no attribute 'channels'|DID NOT WARN"),
    ("CANCELLATION", "deliberate: cancelling an async run: LangGraph cancels the checkpoint write in flight; "
     "rag.graph finishes saving the step it ran, so a cancelled run leaves its last step saved",
     r"Checkpoint put is not cancelled|test_cancel_graph_astream"),
    ("LANGCHAIN_OBJECTS", "the test hands LangChain's own objects (langchain_core fake chat models, prompt "
     "sequences, messages, tools, tracers) to rag.graph, which composes this project's runnables and messages",
     r"StructuredTool|FakeMessagesListChatModel|FakeFunctionChatModel|FakeChatModel|Unsupported message type|"
     r"FakeTracer|got RunnableSequence|wrote list \[AIMessage|langchain_core|ToolNode|prebuilt"),
    ("BEHAVIOUR", "a behaviour that differs from LangGraph's, not analysed yet", r"."),
]


def _reason(where: str, message: str) -> tuple[str, str]:
    text = f"{where} {message}"
    for kind, reason, pattern in KINDS:
        if re.search(pattern, text, re.IGNORECASE):
            first = re.sub(r"\s+", " ", message.split("\n")[0]).strip()[:160]
            return kind, f"{reason} [{first}]" if first else reason
    raise AssertionError("the last rule matches everything")


def _owned_elsewhere() -> set[str]:
    """Test ids kept by hand in the other lists beside this script (prebuilt_deviations.py,
    store_deviations.py): those folders' and files' entries are not rewritten here."""
    import importlib.util

    owned: set[str] = set()
    for path in HERE.glob("*_deviations.py"):
        if path.stem in ("langgraph_deviations", "update_deviations"):
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        owned.update(module.DEVIATIONS)
    return owned


def main(junit: str) -> None:
    owned = _owned_elsewhere()
    cases: dict[str, dict[str, tuple[str, str] | None]] = collections.defaultdict(dict)
    for case in ET.parse(junit).iter("testcase"):
        module = case.get("classname", "").split(".")
        file = next((f"{module[i - 1]}/{module[i]}.py" for i in range(len(module))
                     if module[i].startswith("test_")), None)
        if file is None or file.startswith("prebuilt/"):  # prebuilt_deviations.py is kept by hand
            continue
        name = case.get("name", "")
        classes = module[module.index(file.split("/")[1][:-3]) + 1:]
        test = "::".join([*classes, name])
        failed = [c for c in case if c.tag in ("failure", "error")]
        message = (failed[0].get("message") or "") if failed else ""
        base = test.split("[")[0]
        if f"{file}::{test}" in owned or f"{file}::{base}" in owned:
            continue
        cases[f"{file}::{base}"][f"{file}::{test}"] = _reason(f"{file}::{test}", message) if failed else None
    results_by_kind = collections.Counter(outcome[0] for results in cases.values()
                                          for outcome in results.values() if outcome is not None)
    passed = sum(outcome is None for results in cases.values() for outcome in results.values())
    by_kind: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)
    for base, results in sorted(cases.items()):
        outcomes = set(results.values())
        if len(outcomes) == 1 and None not in outcomes:
            kind, reason = outcomes.pop()  # type: ignore[misc]
            by_kind[kind].append((base, reason))
            continue
        for test, outcome in sorted(results.items()):
            if outcome is not None:
                by_kind[outcome[0]].append((test, outcome[1]))
    lines = ['"""LangGraph\'s tests that cannot pass against rag.graph, each with its reason (written by',
             "update_deviations.py from a run; DEVIATIONS.md groups and counts them). conftest.py runs them as",
             'strict xfails: reported with the reason, and an error if one starts passing."""', "",
             "DEVIATIONS: dict[str, str] = {"]
    for kind, _, _ in KINDS:
        if by_kind.get(kind):
            lines.append(f"    # {kind}: {len(by_kind[kind])}")
            lines += [f"    {test!r}: {reason!r}," for test, reason in by_kind[kind]]
    lines.append("}")
    (HERE / "langgraph_deviations.py").write_text("\n".join(lines) + "\n")
    _write_markdown(by_kind, results_by_kind, passed)
    for kind, _, _ in KINDS:
        print(kind, len(by_kind.get(kind, [])), results_by_kind.get(kind, 0))


def _write_markdown(by_kind: dict[str, list[tuple[str, str]]], results: collections.Counter, passed: int) -> None:
    total = sum(results.values())
    lines = [
        "# LangGraph's own tests against rag.graph: what cannot pass, and why",
        "",
        "Files copied unchanged from the sdists of langgraph 1.2.22, langgraph-checkpoint 4.3.2 and",
        "langgraph-checkpoint-sqlite 3.1.2 (versions and sha256 in MANIFEST.json), run through import",
        "renames only (langgraph_renames.py). Every test below is a strict xfail with its reason",
        "(langgraph_deviations.py, written by update_deviations.py from a run): reported, never",
        "skipped, and an error if it starts passing. Fixtures are ours (conftest.py): the",
        "in-memory and SQLite savers, durability 'sync', 'async' and 'exit' as LangGraph's conftest.",
        "",
        f"Results: {passed} pass, {total} expected failures.",
        "",
        "| kind | entries | results | reason |",
        "|---|---|---|---|",
    ]
    for kind, reason, _ in KINDS:
        if by_kind.get(kind):
            lines.append(f"| {kind} | {len(by_kind[kind])} | {results[kind]} | {reason} |")
    lines += ["", "An entry is a test (all its parametrised cases) or one case; results count cases.",
              "Deliberate differences (kept, documented in the README's \"Where we differ\" and its page): those marked",
              "deliberate, and LOOP_SPY, PREGEL_INTERNALS and STATE_HELPERS (LangGraph's private internals and",
              "low-level API) and LANGCHAIN_OBJECTS (LangChain's own classes). Not built: EVENTS",
              "(astream_events version='v1').",
              "The prebuilt folder's list is prebuilt_deviations.py and the stores' is store_deviations.py (by hand).", ""]
    for kind, reason, _ in KINDS:
        if by_kind.get(kind):
            lines += [f"## {kind} ({len(by_kind[kind])} entries, {results[kind]} results)", "", reason, ""]
            lines += [f"- `{test}`" for test, _ in by_kind[kind]]
            lines.append("")
    (HERE / "DEVIATIONS.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
