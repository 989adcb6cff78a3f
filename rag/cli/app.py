"""The ``rag`` command: argument parsing, dispatch, exit codes.

Exit codes: 0 on success; 1 on an error; 2 on a usage error (argparse's own); 130 when
interrupted. An error is reported in one line on stderr, with the traceback only under
``--verbose``:

- ``rag: error: ...`` for a user error: a :class:`~rag.errors.RagError` (bad input, missing
  index, model server refused, extra not installed...) or an ``OSError`` (file system,
  network). The message says what to fix.
- ``rag: internal error: ValueError: ... (run with --verbose for the traceback)`` for
  anything else: a bare ``ValueError``, ``KeyError``, ``TypeError``... reaching here is a
  bug, since every error a user can cause is raised as a ``RagError``. It exits 1 too:
  scripts test for success, and a bug is no more the caller's to handle than a bad input.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, TypeVar

from rag.errors import RagError
from rag.evaluation.configurations import CONFIGURATIONS
from rag.hybrid import FUSIONS
from rag.index.config import ANSWER_K, BENCH_TYPES, SEARCH_TYPES
from rag.index.registry import store_names
from rag.cli.bench import run_bench
from rag.cli.chat import add_chat_parser, run_chat
from rag.cli.common import RagCliError, add_allow_embeddings, add_index_arguments, index_target, open_index
from rag.cli.serve import run_serve
from rag.cli.trace import add_trace_parser, run_trace
from rag.process_defaults import apply_process_defaults

if TYPE_CHECKING:
    from rag.index.update import UpdateSummary
    from rag.runnables import RunnableConfig

__all__ = ["main", "build_parser"]


_Number = TypeVar("_Number", int, float)


def _number_type(convert: Callable[[str], _Number], accept: Callable[[_Number], bool], expected: str
                 ) -> Callable[[str], _Number]:
    """An argparse type: ``convert`` the text, then check it; the message names ``expected``."""

    def parse(text: str) -> _Number:
        value: Optional[_Number]
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not accept(value):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return parse


_positive_int = _number_type(int, lambda v: v >= 1, "a positive integer")
_non_negative_int = _number_type(int, lambda v: v >= 0, "an integer >= 0")
_unit_float = _number_type(float, lambda v: 0 <= v <= 1, "a number between 0 and 1")


def _text(text: str) -> str:
    """An argparse type: a query or question with something in it (blank is a usage error)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a non-empty text, got a blank one")
    return text


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from rag._optional import DISTRIBUTION

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "unknown (not installed)"


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked for (importlib.metadata costs tens of ms
    of start-up that every other command would pay)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show the program's version number and exit", **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"{parser.prog} {_version()}")  # stdout, as argparse's own version action
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rag", description="Index files and websites, search them and ask questions, offline by default."
    )
    parser.add_argument("--verbose", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_index(sub: argparse.ArgumentParser) -> None:
        add_index_arguments(sub)
        # SUPPRESS: a subcommand's default must not undo `rag --verbose COMMAND`.
        sub.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")

    index = commands.add_parser("index", help="load, split, embed and store sources (incremental)")
    index.add_argument("sources", nargs="+", metavar="SOURCE", help="file, folder, URL, sitemap URL, or BEIR dataset (--beir)")
    with_index(index)
    index.add_argument("--crawl", type=_non_negative_int, metavar="DEPTH", help="crawl: follow links up to DEPTH hops from each URL (0 = the page only)")
    index.add_argument("--sitemap", action="store_true", help="treat URLs as sitemaps")
    index.add_argument("--glob", metavar="PATTERN", help="files to load from folders (default: document types "
                       "such as HTML, Markdown, text, PDF, less generated output such as Sphinx's _static/)")
    index.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                       help="leave out matching files or folders (gitignore syntax, repeatable; .ragignore files are read too)")
    index.add_argument("--prune", action="store_true", help="with --glob: also delete from the index the files the "
                       "glob does not match (without it such an update is refused; --exclude always deletes)")
    index.add_argument("--dry-run", action="store_true", help="list what would be indexed (files, bytes, estimated "
                       "chunks and embedding time per type) and write nothing")
    index.add_argument("--beir", action="store_true", help="each SOURCE is a BEIR dataset folder: every corpus document "
                       "is a source of its own (for rag bench --index)")
    index.add_argument("--chunk-size", type=_positive_int, metavar="N",
                       help="characters per chunk (default 1000, or the index's own; a change re-chunks everything)")
    index.add_argument("--chunk-overlap", type=_non_negative_int, metavar="N",
                       help="overlap in characters (default 200, or the index's own)")
    index.add_argument("--embeddings", metavar="local|hashing|openai:MODEL",
                       help="embedding model (default: local when installed, else hashing; an existing index keeps its own)")
    index.add_argument("--store", choices=store_names(), help="vector store (default faiss)")
    index.add_argument("--fusion", choices=FUSIONS, help="how hybrid search fuses dense and BM25 results: "
                       "union-zscore or union-minmax (every candidate scored by both sides, each side normalised "
                       "over them all), rrf (reciprocal rank), zscore or minmax (each side normalised over its own "
                       "candidates); saved with the index (default for a new index: union-zscore, see "
                       "rag.hybrid.HybridConfig; an existing index keeps its own unless this is given)")
    index.add_argument("--json", action="store_true", help="print the summary as JSON")
    index.add_argument("--strict", action="store_true", help="exit 1 if any source failed (default: only if all did)")
    index.add_argument("--device", choices=("cpu", "cuda", "auto"),
                       help="where a local model runs: auto (default: a CUDA GPU when onnxruntime-gpu finds one, "
                            "else the CPU), cuda (an error without one) or cpu")
    index.add_argument("--batch-size", type=_positive_int, metavar="N",
                       help="texts per model call for a local model (default 1 on the CPU, 64 on a GPU)")
    fan_out = index.add_mutually_exclusive_group()
    fan_out.add_argument("--workers", type=_positive_int, metavar="N",
                         help="embed in N local worker processes (each with cores/N model threads)")
    fan_out.add_argument("--cluster", metavar="tcp://HOST:PORT",
                         help="embed on a Dask cluster, this scheduler (extra 'cluster'); this process still writes")

    search = commands.add_parser("search", help="ranked chunks for a query")
    search.add_argument("query", metavar="QUERY", type=_text)
    with_index(search)
    search.add_argument("--k", type=_positive_int, default=4, help="results (default 4)")
    search.add_argument("--type", dest="search_type", default="hybrid",
                        choices=SEARCH_TYPES, help="search type (default hybrid)")
    search.add_argument("--threshold", type=_unit_float, help="minimum relevance for --type threshold")
    search.add_argument("--json", action="store_true", help="print results as JSON")
    add_allow_embeddings(search)

    bench = commands.add_parser("bench", help="retrieval quality on a BEIR-format dataset (nDCG@10, recall, MRR, MAP), "
                                "or answer quality on a QA set (--answers)")
    bench.add_argument("dataset", type=Path, nargs="?", metavar="DATASET_DIR",
                       help="folder with corpus.jsonl, queries.jsonl, qrels/test.tsv")
    bench.add_argument("--answers", type=Path, metavar="QA.tsv", help="ask each question of QA.tsv (question, key "
                       "phrases, expected source paths; tab-separated) of --index and check the answers: key phrase "
                       "present, expected source cited, quotes verbatim in the cited sources")
    bench.add_argument("--k", type=_positive_int, default=ANSWER_K,
                       help=f"chunks retrieved per question with --answers (default {ANSWER_K})")
    bench.add_argument("--model", metavar="NAME", help="with --answers: answer with this OpenAI-compatible chat model "
                       "(default: the offline answerer)")
    bench.add_argument("--base-url", metavar="URL", help="with --model: the model server (default: OpenAI, or $OPENAI_BASE_URL)")
    bench.add_argument("--project", metavar="NAME", help="with --answers: record each question's run in the trace "
                       "store under project NAME, its checks as feedback (compare versions: rag trace projects)")
    add_index_arguments(bench, index_help="measure this index's configuration: its own contents when it holds the "
                        "dataset (rag index DATASET --beir), else a fresh copy built alike (also --store-uri URI)")
    bench.add_argument("--embeddings", metavar="local|hashing|openai:MODEL", help="embedding model (default: local when installed)")
    bench.add_argument("--store", choices=store_names(), help="vector store (default faiss)")
    bench.add_argument("--chunk-size", type=_positive_int, metavar="N", help="characters per chunk (default 1000)")
    bench.add_argument("--chunk-overlap", type=_non_negative_int, metavar="N", help="overlap in characters (default 200)")
    bench.add_argument("--type", dest="search_type", default="hybrid", choices=BENCH_TYPES,
                       help="search type to measure (default hybrid)")
    bench.add_argument("--config", action="append", metavar="NAME",
                       help="a named evaluation configuration instead (repeatable): " + ", ".join(CONFIGURATIONS))
    bench.add_argument("--json", action="store_true", help="print results as JSON")
    bench.add_argument("--save-run", type=Path, metavar="FILE", help="write each query's ranked document ids to FILE "
                       "(JSON: {query id: [document ids]})")
    bench.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")

    ask = commands.add_parser("ask", help="answer a question from the index, with numbered sources")
    ask.add_argument("question", metavar="QUESTION", type=_text)
    with_index(ask)
    ask.add_argument("--k", type=_positive_int, default=ANSWER_K, help=f"chunks retrieved (default {ANSWER_K})")
    ask.add_argument("--model", metavar="NAME", help="an OpenAI-compatible chat model; without it the answer is "
                     "extracted offline and nothing leaves this machine")
    ask.add_argument("--base-url", metavar="URL", help="the model server (default: OpenAI, or $OPENAI_BASE_URL)")
    ask.add_argument("--stream", action="store_true", help="print the answer as it is produced")
    ask.add_argument("--json", action="store_true", help="print answer and sources as JSON")
    ask.add_argument("--explain", action="store_true", help="after an offline answer, show each quote's score as "
                     "the contribution of each feature (weight x value)")
    add_allow_embeddings(ask)
    ask.add_argument("--trace", type=Path, metavar="FILE", help="append the run's trace to FILE (see rag trace)")

    add_chat_parser(commands, _positive_int)

    add_trace_parser(commands)

    serve = commands.add_parser("serve", help="serve the index over HTTP: search, ask, an OpenAI-compatible API "
                                "and a playground page")
    with_index(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine "
                       "only; any other needs an API key or --insecure)")
    serve.add_argument("--port", type=_non_negative_int, default=8000, help="port (default 8000; 0 picks a free one)")
    add_allow_embeddings(serve)
    serve.add_argument("--k", type=_positive_int, default=ANSWER_K,
                       help=f"chunks retrieved per answer (as rag ask), results per search (default {ANSWER_K})")
    serve.add_argument("--model", metavar="NAME", help="an OpenAI-compatible chat model to answer with (default: "
                       "extracted offline)")
    serve.add_argument("--base-url", metavar="URL", help="the model server (default: OpenAI, or $OPENAI_BASE_URL)")
    serve.add_argument("--api-key-file", type=Path, metavar="FILE", help="require this key (the file's first line) "
                       "as 'Authorization: Bearer KEY' (default $RAG_API_KEY; never on the command line, where ps shows it)")
    serve.add_argument("--insecure", action="store_true", help="serve a non-loopback --host without an API key")
    serve.add_argument("--max-body-bytes", type=_positive_int, default=1 << 20,
                       help="larger request bodies get 413 (default 1048576)")
    serve.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                       help="let pages from ORIGIN call the API (repeatable; default none: CORS off)")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="answer requests for Host NAME too (repeatable; default: loopback names only, "
                       "against DNS rebinding; '*' for any)")
    serve.add_argument("--max-batch", type=_positive_int, default=100, metavar="N",
                       help="inputs per /batch request (default 100; more get 413)")
    serve.add_argument("--max-query-chars", type=_positive_int, default=10_000, metavar="N",
                       help="characters per query or question (default and most 10000; longer get 422)")

    info = commands.add_parser("info", help="what an index holds")
    with_index(info)
    info.add_argument("--json", action="store_true", help="print as JSON")

    return parser


def _exit_status(summary: UpdateSummary, strict: bool) -> int:
    nothing_read = summary.added + summary.updated + summary.unchanged == 0
    if summary.failed and (nothing_read or strict):
        print(f"rag: error: {len(summary.failed)} source(s) failed" + (" and none could be read" if nothing_read else
              " (--strict)"), file=sys.stderr)
        return 1
    return 0


def _run_index(args: argparse.Namespace) -> int:
    from rag.cli.output import print_summary
    from rag.cli.progress import ProgressBars
    from rag.index import Index

    if args.chunk_size is not None and args.chunk_overlap is not None and args.chunk_overlap >= args.chunk_size:
        raise RagCliError(f"--chunk-overlap ({args.chunk_overlap}) must be smaller than --chunk-size ({args.chunk_size})")
    where = index_target(args)
    index = Index.open_or_create(where.target, embeddings=args.embeddings, store=args.store,
                                 collection=where.collection, token=where.token)
    with index:
        if args.dry_run:
            from rag.cli.output import print_dry_run

            plan = index.dry_run(args.sources, crawl=args.crawl, sitemap=args.sitemap, glob=args.glob,
                                 exclude=args.exclude, beir=args.beir, chunk_size=args.chunk_size,
                                 chunk_overlap=args.chunk_overlap)
            print_dry_run(plan, as_json=args.json)
            return 0
        if args.fusion is not None and args.fusion != index.config.hybrid.fusion:
            from dataclasses import replace

            index.configure(hybrid=replace(index.config.hybrid, fusion=args.fusion))
        bars = ProgressBars()

        def waiting() -> None:
            print(f"rag: waiting for another rag index run on {index.where} to finish...", file=sys.stderr)

        try:
            summary = index.update(args.sources, crawl=args.crawl, sitemap=args.sitemap, glob=args.glob,
                                   exclude=args.exclude, beir=args.beir, workers=args.workers, cluster=args.cluster,
                                   chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap, progress=bars,
                                   on_wait=waiting, prune=args.prune, device=args.device,
                                   batch_size=args.batch_size)
        finally:
            bars.close()
    print_summary(summary, index.where, as_json=args.json)
    return _exit_status(summary, args.strict)


def _run_search(args: argparse.Namespace) -> int:
    from rag.cli.output import print_results
    from rag.index.request import SearchRequest

    request = SearchRequest(args.query, k=args.k, search_type=args.search_type, threshold=args.threshold)
    index = open_index(args, warm_up=request.search_type != "bm25")  # bm25 embeds no query
    results = index.search_request(request)
    print_results(results, as_json=args.json, score_name=request.score_name(index.config.hybrid))
    return 0


def _run_info(args: argparse.Namespace) -> int:
    from rag.cli.output import print_info

    print_info(open_index(args).info(), as_json=args.json)
    return 0


def _run_ask(args: argparse.Namespace) -> int:
    from rag.cli.output import print_answer
    from rag.index import Answer

    if args.base_url and not args.model:
        raise RagCliError("--base-url needs --model NAME: without a model the answer is extracted offline")
    if args.explain and args.model:
        raise RagCliError("--explain shows how the offline answer chose its quotes: leave out --model")
    index = open_index(args, warm_up=True)
    llm = None
    if args.model is not None:
        from rag.models import ChatOpenAI

        llm = ChatOpenAI(model=args.model, base_url=args.base_url)
    # Named, for the trace store too ($RAG_TRACING=1) as for --trace FILE.
    config: Optional[RunnableConfig] = {"run_name": "rag ask"}
    if args.trace is not None:
        from rag.callbacks import FileTracer

        config = {"callbacks": [FileTracer(args.trace)], "run_name": "rag ask"}
    chain = index.chain(k=args.k, llm=llm)
    streamed = args.stream and not args.json
    if streamed:
        result: dict[str, Any] = {"input": args.question, "context": [], "answer": ""}
        for chunk in chain.stream({"input": args.question}, config):
            if "context" in chunk:
                result["context"] = chunk["context"]
            if "answer" in chunk:
                result["answer"] += chunk["answer"]
                sys.stdout.write(chunk["answer"])
                sys.stdout.flush()
        sys.stdout.write("\n")
    else:
        result = chain.invoke({"input": args.question}, config)
    answer = Answer.from_result(result)
    if not args.explain:
        print_answer(answer, as_json=args.json, streamed=streamed)
        return 0
    from dataclasses import replace

    from rag.chains import ExtractiveAnswerer
    from rag.cli.output import explanation, print_explanation

    # Scored again, as the chain scored them: the chain returns text, not its features.
    quotes = ExtractiveAnswerer(embeddings=index.embeddings).passages(args.question, answer.context)
    # A quote cites its passage's position in the context; the answer, the number it was given.
    quotes = [replace(quote, citation=answer.context[quote.citation - 1].metadata.get("n", quote.citation))
              for quote in quotes]
    if args.json:
        print(json.dumps({**answer.to_json(), "explain": explanation(quotes)}, indent=2, ensure_ascii=False))
    else:
        print_answer(answer, streamed=streamed)
        print_explanation(quotes)
    return 0


_COMMANDS = {
    "index": _run_index,
    "search": _run_search,
    "ask": _run_ask,
    "chat": run_chat,
    "bench": run_bench,
    "info": _run_info,
    "trace": run_trace,
    "serve": run_serve,
}


def main(argv: Optional[Sequence[str]] = None) -> int:
    apply_process_defaults()
    # pymilvus logs each failed call ("RPC error: ...") through Python's last-resort
    # handler, a second line beside the error printed below; the command prints its own.
    quiet = logging.getLogger("pymilvus")
    if not any(isinstance(handler, logging.NullHandler) for handler in quiet.handlers):
        quiet.addHandler(logging.NullHandler())
    args = build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("rag: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader stopped reading (`rag search ... | head`): nothing is wrong, and the
        # output still buffered must not fail again at exit, so stdout goes to /dev/null.
        # 141 (128 + SIGPIPE) is what a shell reports for a tool a pipe has stopped.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (RagError, OSError) as exc:  # the user's to fix: bad input, a missing file, the network
        if args.verbose:
            traceback.print_exc()
        print(f"rag: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # anything else is a bug of ours, whatever its class (ValueError too)
        if args.verbose:
            traceback.print_exc()
        hint = "" if args.verbose else " (run with --verbose for the traceback)"
        print(f"rag: internal error: {type(exc).__name__}: {exc}{hint}", file=sys.stderr)
        return 1
