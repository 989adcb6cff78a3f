"""``rag trace``: read traces, from a ``--trace`` file or from the trace store.

- ``rag trace FILE.jsonl``: the run trees recorded with ``rag ask --trace FILE``;
- ``rag trace list``: one line per trace, newest first (``--project``, ``--name``,
  ``--errors``, ``--slower-than MS``, ``--since 2h|1d|2026-01-31``, ``--limit``, ``--json``);
- ``rag trace show ID``: the tree with timings, inputs and outputs (an id or its first 8+
  characters, of the trace or of any run in it);
- ``rag trace feedback ID --score 0|1 [--comment TEXT]``: a score stored beside the run;
- ``rag trace projects``: projects side by side (mean latency, tokens, feedback scores);
- ``rag trace export --otlp FILE.json``: OpenTelemetry JSON for Jaeger, Tempo or Phoenix;
- ``rag trace serve``: the ``/traces`` page over the store, without an index.

Every subcommand takes ``--db PATH`` (default ``$RAG_TRACING_DB``, else the cache folder's
``traces.sqlite3``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rag.cli.common import RagCliError

__all__ = ["add_trace_parser", "run_trace", "ACTIONS"]

ACTIONS = ("list", "show", "feedback", "projects", "export", "serve")


def add_trace_parser(commands: Any) -> None:
    """``rag trace ...`` on the main parser: the action (or a trace file) and its arguments,
    parsed by :func:`trace_parser` (so that ``rag trace FILE`` keeps working)."""
    trace = commands.add_parser("trace", help="read traces: rag trace FILE.jsonl (from --trace), or "
                                "rag trace list|show|feedback|projects|export|serve (the trace store; "
                                "rag trace list --help)")
    trace.add_argument("target", metavar="FILE|ACTION", help="a --trace file, or one of: " + ", ".join(ACTIONS))
    trace.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    trace.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")


def _since(text: str) -> int:
    from rag.tracing.store import since_micros

    try:
        return since_micros(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def _milliseconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected milliseconds (a number >= 0), got {text!r}")
    return value


def _score(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a score between 0 and 1 (0 = bad, 1 = good), got {text!r}")
    return value


def trace_parser() -> argparse.ArgumentParser:
    """The parser of ``rag trace ACTION ...``."""
    parser = argparse.ArgumentParser(prog="rag trace", description="Read the local trace store.")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    def sub(name: str, text: str) -> argparse.ArgumentParser:
        command = actions.add_parser(name, help=text, description=text)
        command.add_argument("--db", type=Path, metavar="PATH", help="the trace database (default $RAG_TRACING_DB, "
                             "else traces.sqlite3 in the cache folder)")
        command.add_argument("--verbose", action="store_true", help="show tracebacks on errors")
        return command

    listing = sub("list", "one line per trace, newest first: time, id, project, name, latency, tokens, status")
    listing.add_argument("--project", metavar="P", help="only this project")
    listing.add_argument("--name", metavar="N", help="only traces whose top run's name contains N")
    listing.add_argument("--errors", action="store_true", help="only failed traces")
    listing.add_argument("--slower-than", type=_milliseconds, metavar="MS", help="only traces slower than MS ms")
    listing.add_argument("--since", type=_since, metavar="WHEN", help="only traces started since WHEN: 30m, 2h, 7d, "
                         "or a date/time such as 2026-01-31T09:00 (UTC)")
    listing.add_argument("--limit", type=_positive, default=50, help="at most this many (default 50)")
    listing.add_argument("--json", action="store_true", help="print JSON lines, one trace each")
    show = sub("show", "a trace as a tree: timings, inputs, outputs, retrieved documents, errors, feedback")
    show.add_argument("id", metavar="ID", help="a trace or run id, or its first 8+ characters")
    show.add_argument("--max-chars", type=_positive, default=200, help="cut inputs and outputs to this (default 200)")
    show.add_argument("--json", action="store_true", help="print the trace's runs as JSON")
    feedback = sub("feedback", "store a score (and a comment) beside a run")
    feedback.add_argument("id", metavar="ID", help="a run id, or its first 8+ characters")
    feedback.add_argument("--score", type=_score, required=True, help="0 (bad) to 1 (good)")
    feedback.add_argument("--comment", help="a note kept with the score")
    feedback.add_argument("--key", default="user_score", help="what the score measures (default user_score)")
    projects = sub("projects", "projects side by side: traces, failures, mean latency and tokens, feedback means")
    projects.add_argument("--json", action="store_true", help="print JSON")
    export = sub("export", "write traces as OpenTelemetry JSON (OTLP), one span per run")
    export.add_argument("--otlp", type=Path, required=True, metavar="FILE.json", help="the file to write")
    export.add_argument("ids", nargs="*", metavar="ID", help="these traces (default: the listed ones)")
    export.add_argument("--project", metavar="P", help="only this project")
    export.add_argument("--since", type=_since, metavar="WHEN", help="only traces started since WHEN")
    export.add_argument("--limit", type=_positive, default=1000, help="at most this many traces (default 1000)")
    serve = sub("serve", "the /traces page over the trace store, without an index")
    serve.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1; any other needs an API key "
                       "or --insecure)")
    serve.add_argument("--port", type=int, default=8001, help="port (default 8001; 0 picks a free one)")
    serve.add_argument("--api-key-file", type=Path, metavar="FILE", help="require this key (the file's first line) "
                       "as 'Authorization: Bearer KEY' (default $RAG_API_KEY)")
    serve.add_argument("--insecure", action="store_true", help="serve a non-loopback --host without an API key")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="answer requests for Host NAME too (repeatable; default: loopback names and --host, "
                       "against DNS rebinding; '*' for any)")
    return parser


def _store(args: argparse.Namespace) -> Any:
    from rag.tracing import TraceStore, TraceStoreError, default_trace_db

    path = args.db if args.db is not None else default_trace_db()
    if args.db is not None and not path.exists():
        raise RagCliError(f"no trace database at {path}")
    try:
        return TraceStore(path, readonly=True)
    except TraceStoreError as exc:
        raise RagCliError(str(exc)) from exc


def _list(args: argparse.Namespace) -> int:
    from rag.cli.trace_output import format_trace_list

    traces = _store(args).list_traces(project=args.project, name=args.name, errors_only=args.errors,
                                      slower_than_ms=args.slower_than, since_us=args.since, limit=args.limit)
    if args.json:
        for trace in traces:
            print(json.dumps(trace, ensure_ascii=False))
    else:
        print(format_trace_list(traces))
    return 0


def _found(args: argparse.Namespace) -> Any:
    from rag.tracing import RunNotFoundError

    store = _store(args)
    try:
        return store, store.get_trace(args.id)
    except RunNotFoundError as exc:
        raise RagCliError(str(exc)) from exc


def _show(args: argparse.Namespace) -> int:
    from rag.cli.trace_output import format_trace_tree

    _, found = _found(args)
    print(json.dumps(found, ensure_ascii=False, indent=1) if args.json else format_trace_tree(found, args.max_chars))
    return 0


def _feedback(args: argparse.Namespace) -> int:
    from rag.tracing import RunNotFoundError

    store = _store(args)
    try:
        run_id = store.add_feedback(args.id, score=args.score, key=args.key, comment=args.comment)
    except RunNotFoundError as exc:
        raise RagCliError(str(exc)) from exc
    print(f"feedback {args.key}={args.score:g} stored for run {run_id}")
    return 0


def _projects(args: argparse.Namespace) -> int:
    from rag.cli.trace_output import format_projects

    rows = _store(args).projects()
    print(json.dumps(rows, ensure_ascii=False, indent=1) if args.json else format_projects(rows))
    return 0


def _export(args: argparse.Namespace) -> int:
    from rag.tracing import to_otlp

    store = _store(args)
    if args.ids:
        traces = [_found(argparse.Namespace(**{**vars(args), "id": one}))[1] for one in args.ids]
    else:
        listed = store.list_traces(project=args.project, since_us=args.since, limit=args.limit)
        traces = [store.get_trace(row["trace_id"]) for row in listed]
    document = to_otlp(traces)
    args.otlp.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    spans = sum(len(trace["runs"]) for trace in traces)
    print(f"wrote {len(traces)} traces ({spans} spans) to {args.otlp} as OTLP JSON", file=sys.stderr)
    return 0


def _serve(args: argparse.Namespace) -> int:
    from rag.cli.serve import read_api_key
    from rag.serve.background import serve_forever
    from rag.serve.security import check_exposure
    from rag.serve.traces import traces_app

    api_key = read_api_key(args.api_key_file)
    check_exposure(args.host, api_key, args.insecure)
    store = _store(args)
    # The address served on is a name clients use for it, as in rag serve.
    hosts = [*args.allowed_host, *([args.host] if args.host not in ("0.0.0.0", "::") else [])]
    app = traces_app(store, api_key=api_key, allowed_hosts=hosts)

    def ready(port: int) -> None:
        print(f"rag trace serve: {store.path} at http://{args.host}:{port}/traces"
              f"{' (API key required)' if api_key else ''}", file=sys.stderr, flush=True)

    serve_forever(app, host=args.host, port=args.port, on_ready=ready)
    return 0


_ACTIONS = {"list": _list, "show": _show, "feedback": _feedback, "projects": _projects, "export": _export,
            "serve": _serve}


def run_trace(args: argparse.Namespace) -> int:
    """``rag trace FILE`` prints a ``--trace`` file; ``rag trace ACTION ...`` reads the store."""
    if args.target in ACTIONS:
        parsed = trace_parser().parse_args([args.target, *args.rest])
        if parsed.verbose:
            args.verbose = True
        return _ACTIONS[parsed.action](parsed)
    from rag.callbacks import print_trace

    path = Path(args.target)
    if args.rest:
        raise RagCliError(f"rag trace FILE takes no other arguments (got {' '.join(args.rest)}); to read the trace "
                          f"store: rag trace {'|'.join(ACTIONS)}")
    if not path.is_file():
        raise RagCliError(f"no trace file at {path}; record one with: rag ask QUESTION --trace {path} "
                          f"(or read the trace store: rag trace list)")
    print_trace(path)
    return 0
