"""The ``rag`` command's arguments: the parser of every subcommand, and the argparse types
that turn a bad value into a usage error (exit 2) naming the value and what was expected.

Each subcommand module that owns its arguments (``chat``, ``trace``) adds its own parser;
the rest are declared here, next to one another, so that their flags stay consistent.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, TypeVar

from rag.evaluation.configurations import CONFIGURATIONS
from rag.hybrid import FUSIONS
from rag.index.config import ANSWER_K, BENCH_TYPES, SEARCH_TYPES
from rag.index.registry import store_names
from rag.cli.chat import add_chat_parser
from rag.cli.common import add_allow_embeddings, add_index_arguments
from rag.cli.trace import add_trace_parser

__all__ = ["build_parser"]


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
