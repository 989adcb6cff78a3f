"""The ``rag`` commands that are thin shells over :mod:`rag.index`: ``index``, ``search``,
``info`` and ``ask``. Each takes the parsed arguments, prints, and returns the exit status;
what each needs beyond the index is imported inside it, so that ``rag search`` starts
without loaders, parsers or HTTP clients.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, Optional

from rag.cli.common import RagCliError, index_target, open_index

if TYPE_CHECKING:
    from rag.index.update import UpdateSummary
    from rag.runnables import RunnableConfig

__all__ = ["run_index", "run_search", "run_info", "run_ask"]


def _exit_status(summary: UpdateSummary, strict: bool) -> int:
    nothing_read = summary.added + summary.updated + summary.unchanged == 0
    if summary.failed and (nothing_read or strict):
        print(f"rag: error: {len(summary.failed)} source(s) failed" + (" and none could be read" if nothing_read else
              " (--strict)"), file=sys.stderr)
        return 1
    return 0


def run_index(args: argparse.Namespace) -> int:
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


def run_search(args: argparse.Namespace) -> int:
    from rag.cli.output import print_results
    from rag.index.request import SearchRequest

    request = SearchRequest(args.query, k=args.k, search_type=args.search_type, threshold=args.threshold)
    index = open_index(args, warm_up=request.search_type != "bm25")  # bm25 embeds no query
    results = index.search_request(request)
    print_results(results, as_json=args.json, score_name=request.score_name(index.config.hybrid))
    return 0


def run_info(args: argparse.Namespace) -> int:
    from rag.cli.output import print_info

    print_info(open_index(args).info(), as_json=args.json)
    return 0


def run_ask(args: argparse.Namespace) -> int:
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
