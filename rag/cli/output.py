"""What the command line prints: update summaries, ranked results, answers, index facts
and benchmark tables, as text or JSON. Printing only: the data comes from ``rag.index``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, IO, Any, Optional, Sequence, Union

from rag.documents import Document

if TYPE_CHECKING:
    from rag.evaluation.runner import BenchmarkResult
    from rag.index.answer import Answer, Source
    from rag.index.answer_bench import AnswerBenchResult
    from rag.index.dryrun import DryRun
    from rag.index.info import IndexInfo
    from rag.index.update import UpdateSummary

__all__ = ["print_summary", "print_dry_run", "print_results", "print_info", "print_answer", "print_bench", "print_answer_bench",
           "print_explanation", "explanation", "snippet"]


def snippet(text: str, width: int = 100) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _out(stream: Optional[IO[str]]) -> IO[str]:
    return stream if stream is not None else sys.stdout


def print_summary(summary: UpdateSummary, index: Union[str, Path], *, as_json: bool = False, stream: Optional[IO[str]] = None) -> None:
    """An :class:`~rag.index.UpdateSummary`. The command line calls unchanged sources
    "skipped" (text and JSON), as it always has."""
    out = _out(stream)
    if as_json:
        data = summary.to_json()
        data["skipped"] = data.pop("unchanged")
        print(json.dumps({"index": str(index), **data}, indent=2), file=out)
        return
    print(
        f"Indexed into {index} with {summary.embeddings} embeddings in {summary.seconds:.2f} s: "
        f"{summary.documents} documents read, {summary.chunks} chunks embedded, {summary.total_chunks} chunks in the index.",
        file=out,
    )
    print(f"Sources: {summary.added} added, {summary.updated} updated, {summary.unchanged} unchanged (skipped), "
          f"{summary.deleted} deleted.", file=out)
    for root in summary.empty_roots:
        print(f"Nothing to index in {root}: no file in it was selected (it is empty, or --glob/--exclude/.ragignore "
              "left out every file).", file=out)
    if summary.failed:
        _print_reasons(f"failed: {len(summary.failed)} (left as they were in the index)", summary.failed, out,
                       limit=None)
    if summary.skipped_files:
        _print_reasons(f"skipped: {len(summary.skipped_files)} file(s) or folder(s) not indexed:",
                       summary.skipped_files, out)


def _print_reasons(heading: str, rows: Sequence[tuple[str, str]], out: IO[str], limit: Optional[int] = 20) -> None:
    """``heading``, then ``source: reason`` lines, the first ``limit`` of them (None: all)."""
    print(heading, file=out)
    for source, reason in rows[:limit]:
        print(f"  {source}: {reason}", file=out)
    if limit is not None and len(rows) > limit:
        print(f"  ... and {len(rows) - limit} more (--json lists all)", file=out)


def print_dry_run(plan: DryRun, *, as_json: bool = False, stream: Optional[IO[str]] = None) -> None:
    """A :class:`~rag.index.dryrun.DryRun`: per type, then totals and what is left out."""
    out = _out(stream)
    if as_json:
        print(json.dumps(plan.to_json(), indent=2), file=out)
        return
    print("Dry run: nothing is written.", file=out)
    print(f"{'type':<8} {'files':>7} {'size':>10} {'~chunks':>9} {'~embed time':>12}", file=out)
    for row in plan.types:
        print(f"{row.suffix or '(none)':<8} {row.files:>7} {_human_bytes(row.bytes):>10} {row.chunks:>9} "
              f"{row.seconds:>11.0f}s", file=out)
    print(f"{'total':<8} {plan.files:>7} {'':>10} {plan.chunks:>9} {plan.seconds:>11.0f}s"
          f"   (model: {plan.rate:.1f} chunks/s measured on a sample)", file=out)
    if plan.files:
        print(_estimate_quality(plan), file=out)
    elif not plan.not_estimated:
        print("Nothing to index: no file was selected.", file=out)
    if plan.unchanged:
        print(f"Unchanged since the index read them (not read again): {plan.unchanged} file(s), "
              f"{_human_bytes(plan.unchanged_bytes)}", file=out)
    if plan.not_estimated:
        print("Not estimated (fetched only when indexed): " + ", ".join(plan.not_estimated), file=out)
    if plan.skipped:
        _print_reasons(f"Left out: {len(plan.skipped)} file(s) or folder(s):", plan.skipped, out)


def _estimate_quality(plan: DryRun) -> str:
    """How good a dry run's chunk count is, in a sentence."""
    margin, sampled = plan.chunks_margin, plan.sampled_files
    if sampled == plan.files and margin == 0:
        return f"Chunks counted exactly: all {plan.files} file(s) were loaded and split."
    how = f"{sampled} of {plan.files} file(s) loaded and split"
    if margin is None:
        return f"Chunks estimated from {how}: too few samples of some type for a margin; a rough guide."
    share = 100 * margin / plan.chunks if plan.chunks else 0.0
    return f"Chunks estimated from {how}: {plan.chunks} +/- {margin:.0f} (95%, +/-{share:.0f}%)."


def print_results(
    results: Sequence[tuple[Document, float]], *, as_json: bool = False, score_name: str = "relevance",
    stream: Optional[IO[str]] = None,
) -> None:
    out = _out(stream)
    if as_json:
        rows = [
            {"rank": rank, score_name: round(score, 6), "source": d.metadata.get("source"), "id": d.id,
             "page_content": d.page_content, "metadata": d.metadata}
            for rank, (d, score) in enumerate(results, start=1)
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False, default=str), file=out)
        return
    if not results:
        print("No matching chunks.", file=out)
        return
    for rank, (document, score) in enumerate(results, start=1):
        title = document.metadata.get("title")
        where = document.metadata.get("source", "?")
        print(f"{rank}. [{score_name} {score:.3f}] {where}" + (f"  ({title})" if title else ""), file=out)
        print(f"   {snippet(document.page_content)}", file=out)


def _source_line(source: Source) -> str:
    """``[n] title — path#anchor (§ section)``, or the character range for indexes built
    without section metadata."""
    title = f"{source.title} — " if source.title else ""
    where = []
    if source.section and source.section != source.title:
        where.append(f"§ {source.section}")
    if not source.anchor and source.start is not None:
        where.append(f"characters {source.start}-{source.end}")
    return f"  [{source.n}] {title}{source.location}" + (f" ({', '.join(where)})" if where else "")


def print_answer(answer: Answer, *, as_json: bool = False, streamed: bool = False, stream: Optional[IO[str]] = None) -> None:
    """An :class:`~rag.index.Answer`: the answer (unless it was ``streamed`` already), then
    the sources it cites, the others retrieved, and any citation removed; or the whole as
    JSON."""
    out = _out(stream)
    if as_json:
        print(json.dumps(answer.to_json(), indent=2, ensure_ascii=False), file=out)
        return
    if not streamed:
        print(answer.answer, file=out)
    sources = answer.sources
    cited = [source for source in sources if source.cited]
    others = [source for source in sources if not source.cited]
    if cited:
        print("\nSources:", file=out)
        for source in cited:
            print(_source_line(source), file=out)
    if others:
        print("\nAlso retrieved:" if cited else "\nRetrieved (not cited):", file=out)
        for source in others:
            print(_source_line(source), file=out)
    if answer.invalid_citations:
        numbers = ", ".join(f"[{n}]" for n in answer.invalid_citations)
        print(f"\nRemoved citation(s) {numbers}: no source has that number"
              + (" (they remain in the streamed text above)" if streamed else "") + ".", file=out)


def explanation(passages: Sequence[Any]) -> list[dict[str, Any]]:
    """Each quoted unit of an offline answer (a :class:`~rag.chains.Passage`) with its score
    and what each feature added to it, as JSON-ready dicts."""
    return [{"citation": p.citation, "kind": p.kind, "score": p.relevance, "text": p.text,
             "contributions": {name: round(value, 4) for name, value in p.contributions}} for p in passages]


def print_explanation(passages: Sequence[Any], *, stream: Optional[IO[str]] = None) -> None:
    """Why each quote was chosen: its score, then each feature's contribution (weight x
    value), largest first."""
    out = _out(stream)
    print("\nWhy these quotes (score = sum of weight x feature):", file=out)
    for passage in passages:
        parts = sorted(passage.contributions, key=lambda item: -abs(item[1]))
        shown = ", ".join(f"{name} {value:+.3f}" for name, value in parts if abs(value) >= 0.0005)
        print(f"[{passage.citation}] {passage.relevance:.3f} {snippet(passage.text, 60)!r}: {shown or 'no feature'}",
              file=out)


def _human_bytes(count: int) -> str:
    size = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{count} B"


def print_info(info: IndexInfo, *, as_json: bool = False, stream: Optional[IO[str]] = None) -> None:
    """An :class:`~rag.index.IndexInfo`."""
    out = _out(stream)
    facts = info.to_json()
    if as_json:
        print(json.dumps(facts, indent=2), file=out)
        return
    print(f"Index      {facts['index']}", file=out)
    print(f"Embeddings {facts['embeddings']} ({facts['model_id']}, {facts['dimension']} dimensions)", file=out)
    print(f"Store      {facts['store']} + BM25" if facts["bm25"] else f"Store      {facts['store']}", file=out)
    print(f"Contents   {facts['sources']} sources, {facts['chunks']} chunks "
          f"(chunk size {facts['chunk_size']}, overlap {facts['chunk_overlap']})", file=out)
    hybrid = facts["hybrid"]
    fusion = hybrid.get("fusion", "rrf")
    how = f"reciprocal rank (c = {hybrid['c']:g})" if fusion == "rrf" else f"{fusion} scores"
    print(f"Hybrid     {how}, weights {hybrid['weights']}, {hybrid['fetch_k']} per side", file=out)
    print(f"On disk    {_human_bytes(facts['size_on_disk_bytes'])}", file=out)
    for root in facts["roots"]:
        print(f"Root       {root}", file=out)


def print_bench(results: Sequence[BenchmarkResult], *, as_json: bool = False, stream: Optional[IO[str]] = None) -> None:
    """:class:`~rag.evaluation.BenchmarkResult` rows as a Markdown table or JSON."""
    out = _out(stream)
    if as_json:
        rows = [{"system": r.system, "dataset": r.dataset, "documents": r.documents, **r.metrics.to_dict(),
                 "index_seconds": round(r.index_seconds, 3), "query_seconds": round(r.query_seconds, 3)} for r in results]
        print(json.dumps(rows, indent=2), file=out)
        return
    print("| system | nDCG@10 | Recall@10 | Recall@100 | MRR@10 | MAP@100 | index s | query s |", file=out)
    print("|---|---|---|---|---|---|---|---|", file=out)
    for r in results:
        m = r.metrics
        print(f"| {r.system} | {m.ndcg_at_10:.3f} | {m.recall_at_10:.3f} | {m.recall_at_100:.3f} | {m.mrr_at_10:.3f} | "
              f"{m.map_at_100:.3f} | {r.index_seconds:.1f} | {r.query_seconds:.2f} |", file=out)
    if results:
        print(f"\n{results[0].dataset}: {results[0].documents} documents, {results[0].metrics.queries} judged queries", file=out)


def _mark(value: bool) -> str:
    return "yes" if value else "no"


def print_answer_bench(result: AnswerBenchResult, *, as_json: bool = False, stream: Optional[IO[str]] = None) -> None:
    """An :class:`~rag.index.answer_bench.AnswerBenchResult`: one row per question, then
    the overall figures; or the whole as JSON."""
    out = _out(stream)
    if as_json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False), file=out)
        return
    print("| # | key phrase | source cited | verbatim units | question |", file=out)
    print("|---|---|---|---|---|", file=out)
    for number, score in enumerate(result.scores, start=1):
        invalid = f" ({len(score.invalid)} invalid)" if score.invalid else ""
        print(f"| {number} | {_mark(score.key_phrase)} | {_mark(score.source_cited)} | "
              f"{score.verbatim}/{score.units}{invalid} | {snippet(score.question, 70)} |", file=out)
    totals = result.totals
    precision = "n/a (nothing quoted)" if totals.precision is None else f"{totals.precision:.1%}"
    print(f"\n{result.model} answers to {totals.questions} questions in {totals.seconds:.1f} s: key phrase "
          f"{totals.key_phrase:.1%}, expected source cited {totals.source_cited:.1%} (retrieved {totals.retrieved:.1%}), "
          f"citation precision "
          f"{precision} ({totals.units} quoted units)", file=out)
