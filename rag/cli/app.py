"""The ``rag`` command: argument parsing, dispatch, exit codes.

Exit codes: 0 on success, 1 on a user error (one line on stderr, no traceback unless
``--verbose``), 2 on a usage error (argparse's own).
"""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from rag.errors import RagError

from rag.cli.workspace import default_index_path

__all__ = ["main", "build_parser"]


def _number_type(convert: Callable[[str], Any], accept: Callable[[Any], bool], expected: str) -> Callable[[str], Any]:
    """An argparse type: ``convert`` the text, then check it; the message names ``expected``."""

    def parse(text: str) -> Any:
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rag", description="Index files and websites, search them and ask questions, offline by default."
    )
    parser.add_argument("--verbose", action="store_true", help="show tracebacks on errors")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_index(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--index", type=Path, default=None, help="index folder (default ./.rag, or $RAG_INDEX)")
        # SUPPRESS: a subcommand's default must not undo `rag --verbose COMMAND`.
        sub.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")

    index = commands.add_parser("index", help="load, split, embed and store sources (incremental)")
    index.add_argument("sources", nargs="+", metavar="SOURCE", help="file, folder, URL, or sitemap URL")
    with_index(index)
    index.add_argument("--crawl", type=_non_negative_int, metavar="DEPTH", help="crawl: follow links up to DEPTH hops from each URL (0 = the page only)")
    index.add_argument("--sitemap", action="store_true", help="treat URLs as sitemaps")
    index.add_argument("--glob", metavar="PATTERN", help="files to load from folders (default: every visible file)")
    index.add_argument("--chunk-size", type=_positive_int, default=1000, metavar="N", help="characters per chunk (default 1000)")
    index.add_argument("--chunk-overlap", type=_non_negative_int, default=200, metavar="N", help="overlap in characters (default 200)")
    index.add_argument("--embeddings", metavar="local|hashing|openai:MODEL",
                       help="embedding model (default: local when installed, else hashing; an existing index keeps its own)")
    index.add_argument("--store", choices=("faiss", "memory"), help="vector store (default faiss)")
    index.add_argument("--json", action="store_true", help="print the summary as JSON")

    search = commands.add_parser("search", help="ranked chunks for a query")
    search.add_argument("query", metavar="QUERY")
    with_index(search)
    search.add_argument("--k", type=_positive_int, default=4, help="results (default 4)")
    search.add_argument("--type", dest="search_type", default="hybrid",
                        choices=("hybrid", "similarity", "mmr", "threshold"), help="search type (default hybrid)")
    search.add_argument("--threshold", type=_unit_float, help="minimum relevance for --type threshold")
    search.add_argument("--json", action="store_true", help="print results as JSON")

    bench = commands.add_parser("bench", help="retrieval quality on a BEIR-format dataset (nDCG@10, recall, MRR, MAP)")
    bench.add_argument("dataset", type=Path, metavar="DATASET_DIR", help="folder with corpus.jsonl, queries.jsonl, qrels/test.tsv")
    bench.add_argument("--embeddings", choices=("local", "hashing"), help="embedding model (default: local when installed)")
    bench.add_argument("--type", dest="search_type", default="hybrid", choices=("hybrid", "similarity", "mmr", "bm25"),
                       help="retrieval to measure (default hybrid)")
    bench.add_argument("--config", action="append", metavar="NAME",
                       help="a named configuration instead (repeatable): hashing, bm25-nostem, bm25, minilm-faiss, "
                            "minilm-memory, minilm-mmr, hybrid")
    bench.add_argument("--json", action="store_true", help="print results as JSON")
    bench.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")

    ask = commands.add_parser("ask", help="answer a question from the index, with numbered sources")
    ask.add_argument("question", metavar="QUESTION")
    with_index(ask)
    ask.add_argument("--k", type=_positive_int, default=4, help="passages retrieved (default 4)")
    ask.add_argument("--model", metavar="NAME", help="an OpenAI-compatible chat model; without it the answer is "
                     "extracted offline and nothing leaves this machine")
    ask.add_argument("--base-url", metavar="URL", help="the model server (default: OpenAI, or $OPENAI_BASE_URL)")
    ask.add_argument("--stream", action="store_true", help="print the answer as it is produced")
    ask.add_argument("--json", action="store_true", help="print answer and sources as JSON")
    ask.add_argument("--trace", type=Path, metavar="FILE", help="append the run's trace to FILE (see rag trace)")

    trace = commands.add_parser("trace", help="print traces recorded with --trace as indented trees")
    trace.add_argument("file", type=Path, metavar="FILE")
    trace.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")

    info = commands.add_parser("info", help="what an index holds")
    with_index(info)
    info.add_argument("--json", action="store_true", help="print as JSON")

    demo = commands.add_parser("demo", help="index the shipped sample documents and answer sample questions")
    demo.add_argument("--index", type=Path, default=Path(".rag/demo"), help="index folder (default .rag/demo)")
    demo.add_argument("--k", type=_positive_int, default=3, help="results per question (default 3)")
    demo.add_argument("queries", nargs="*", help="questions (default: three sample questions)")
    demo.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    return parser


def _index_path(args: argparse.Namespace) -> Path:
    return args.index if args.index is not None else default_index_path()


def _run_index(args: argparse.Namespace) -> int:
    from rag.cli.indexing import IndexOptions, run_index
    from rag.cli.output import print_summary

    options = IndexOptions(
        index=_index_path(args), crawl=args.crawl, sitemap=args.sitemap, glob=args.glob,
        chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap, embeddings=args.embeddings, store=args.store,
    )
    if options.chunk_overlap >= options.chunk_size:
        raise RagCliError(f"--chunk-overlap ({options.chunk_overlap}) must be smaller than --chunk-size ({options.chunk_size})")
    summary = run_index(args.sources, options)
    print_summary(summary, options.index, as_json=args.json)
    return 0


def _open(args: argparse.Namespace) -> Any:
    from rag.cli.workspace import Workspace

    path = _index_path(args)
    if not Workspace.exists(path):
        raise RagCliError(f"no index at {path}; create one with: rag index SOURCE --index {path}")
    return Workspace.open(path)


def _run_search(args: argparse.Namespace) -> int:
    from rag.cli.output import print_results
    from rag.cli.searching import search

    workspace = _open(args)
    results = search(workspace, args.query, k=args.k, search_type=args.search_type, threshold=args.threshold)
    print_results(results, as_json=args.json, score_name="rrf" if args.search_type == "hybrid" else "relevance")
    return 0


def _run_info(args: argparse.Namespace) -> int:
    from rag.cli.output import print_info

    print_info(_open(args), as_json=args.json)
    return 0


def _run_ask(args: argparse.Namespace) -> int:
    from rag.cli.asking import ask, build_chain

    if args.base_url and not args.model:
        raise RagCliError("--base-url needs --model NAME: without a model the answer is extracted offline")
    chain = build_chain(_open(args), k=args.k, model=args.model, base_url=args.base_url)
    config = None
    if args.trace is not None:
        from rag.callbacks import FileTracer

        config = {"callbacks": [FileTracer(args.trace)], "run_name": "rag ask"}
    ask(chain, args.question, stream=args.stream, as_json=args.json, config=config)
    return 0


def _run_trace(args: argparse.Namespace) -> int:
    from rag.callbacks import print_trace

    if not args.file.is_file():
        raise RagCliError(f"no trace file at {args.file}; record one with: rag ask QUESTION --trace {args.file}")
    print_trace(args.file)
    return 0


def _run_bench(args: argparse.Namespace) -> int:
    from rag.cli.benching import configuration_for, print_bench, run_bench

    names = args.config or [configuration_for(args.embeddings, args.search_type)]
    print_bench(run_bench(args.dataset, names), as_json=args.json)
    return 0


def _run_demo(args: argparse.Namespace) -> int:
    from rag.cli.demo import DEMO_QUERIES, run_demo

    run_demo(args.index, args.queries or DEMO_QUERIES, args.k)
    return 0


class RagCliError(RagError):
    """A user error found by the command line itself."""


_COMMANDS = {
    "index": _run_index,
    "search": _run_search,
    "ask": _run_ask,
    "bench": _run_bench,
    "info": _run_info,
    "trace": _run_trace,
    "demo": _run_demo,
}


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("rag: interrupted", file=sys.stderr)
        return 130
    except (RagError, OSError, ValueError, KeyError, ImportError) as exc:
        if args.verbose:
            traceback.print_exc()
        # A plain KeyError's str() is the repr of its key; show the message itself.
        plain_key_error = isinstance(exc, KeyError) and not isinstance(exc, RagError) and exc.args
        print(f"rag: error: {exc.args[0] if plain_key_error else exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug, not a user error: still one line unless --verbose
        if args.verbose:
            traceback.print_exc()
        print(f"rag: internal error: {type(exc).__name__}: {exc} (run with --verbose for the traceback)",
              file=sys.stderr)
        return 1
