"""How ``rag trace list`` and ``rag trace show`` print: one line per trace, a tree per trace."""

from __future__ import annotations

import json
from typing import Any, Iterator

__all__ = ["format_trace_list", "format_trace_tree", "format_projects"]


def _short(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _ms(value: Any) -> str:
    return "-" if value is None else f"{value:.1f} ms"


def format_trace_list(traces: list[dict[str, Any]]) -> str:
    """One line per trace: start time (UTC), id (first 8 characters, what ``rag trace
    show`` takes), project, name, latency, tokens, status."""
    if not traces:
        return "no traces (record some with RAG_TRACING=1, e.g. RAG_TRACING=1 rag ask QUESTION)"
    lines = []
    for trace in traces:
        status = "ok" if trace["status"] == "success" else f"ERROR {_short(trace.get('error') or '', 60)}"
        tokens = f"{trace['total_tokens']} tok" if trace.get("total_tokens") else "-"
        lines.append(f"{trace['start_time'][:19].replace('T', ' ')}  {trace['trace_id'][:8]}  {trace['project']}  "
                     f"{trace['name']}  {_ms(trace['duration_ms'])}  {tokens}  {trace['runs']} runs  {status}")
    return "\n".join(lines)


def _documents(outputs: Any) -> list[dict[str, Any]]:
    documents = outputs.get("documents") if isinstance(outputs, dict) else None
    return [d for d in documents if isinstance(d, dict)] if isinstance(documents, list) else []


def _run_lines(run: dict[str, Any], max_chars: int) -> Iterator[str]:
    indent = "  " * run["depth"]
    head = f"{indent}{run['name']} [{run['run_type']}]  {_ms(run['duration_ms'])}"
    if run.get("total_tokens"):
        head += f"  tokens in={run.get('input_tokens') or 0} out={run.get('output_tokens') or 0}"
    if run["status"] == "error":
        head += f"  ERROR {run['error']}"
    yield head
    detail = indent + "    "
    if run.get("inputs") is not None:
        yield f"{detail}in:  {_short(run['inputs'], max_chars)}"
    documents = _documents(run.get("outputs"))
    if documents:
        for number, document in enumerate(documents, start=1):
            source = (document.get("metadata") or {}).get("source", "?")
            yield f"{detail}[{number}] {source}: {_short(document.get('page_content', ''), max_chars)}"
    elif run.get("outputs") is not None:
        yield f"{detail}out: {_short(run['outputs'], max_chars)}"
    for note in run.get("notes") or []:
        yield f"{detail}note: {note}"
    for item in run.get("feedback") or []:
        comment = f" ({item['comment']})" if item.get("comment") else ""
        yield f"{detail}feedback {item['key']}={item['score']}{comment}"


def format_trace_tree(found: dict[str, Any], max_chars: int = 200) -> str:
    """A trace (as :meth:`rag.tracing.TraceStore.get_trace` returns it) as an indented tree:
    each run's name, type, duration, tokens and error, then its inputs, outputs (a
    retriever's documents with their sources), notes and feedback, cut to ``max_chars``."""
    trace = found["trace"]
    head = (f"trace {trace.get('trace_id', '?')}  project {trace.get('project', '?')}  "
            f"started {trace.get('start_time', '?')}")
    lines = [head]
    for run in found["runs"]:
        lines.extend(_run_lines(run, max_chars))
    return "\n".join(lines)


def format_projects(projects: list[dict[str, Any]]) -> str:
    """One line per project: traces, failed, mean latency, mean tokens, feedback means."""
    if not projects:
        return "no traces recorded yet"
    lines = []
    for row in projects:
        scores = "  ".join(f"{key}={value['mean']:.3f} (n={value['count']})"
                           for key, value in sorted(row["feedback"].items()) if value["mean"] is not None)
        tokens = "-" if row["mean_tokens"] is None else f"{row['mean_tokens']:.1f}"
        lines.append(f"{row['project']}  {row['traces']} traces  {row['errors']} failed  mean {_ms(row['mean_ms'])}  "
                     f"mean tokens {tokens}" + (f"  {scores}" if scores else ""))
    return "\n".join(lines)
