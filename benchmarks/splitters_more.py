"""Throughput of the preset, JSX, JSON and sentence-transformer splitters against LangChain's, same run.

    python benchmarks/splitters_more.py [--corpus PATH] [--repeats N] [--limit DOCS] [--only NAME...]

Every input is built from a BEIR ``corpus.jsonl`` (default: SciFact in ``../shared/data``
beside the repository), read where it is: per document, Markdown (a title heading, an
"Abstract" heading, paragraphs of three sentences, a rule, a fenced id), LaTeX
(``\\section`` and paragraphs), a Python module (a function whose docstring is the
abstract), a React component (a tag per paragraph), a JSON record with the abstract as a
list of sentences, and JSON objects of 100 records keyed by id. For every configuration
both implementations split every input; the chunks must be identical (the script exits 1
otherwise). Passes alternate between the two to share the machine's noise. "cold" is a
splitter's first pass (our caches empty), "warm" its best later pass. Throughput is MB of
input (UTF-8; JSON as ``json.dumps`` writes it) per second.

The token splitter's reference is ``langchain_text_splitters.base.split_text_on_tokens``
with a ``Tokenizer`` on the same all-MiniLM-L6-v2 ``tokenizers.Tokenizer`` (LangChain's
``SentenceTransformersTokenTextSplitter`` needs the sentence_transformers model itself).
Needs ``pip install langchain-text-splitters==1.1.3`` and ``tokenizers``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEFAULT_CORPUS = REPO.parent / "shared" / "data" / "beir" / "scifact" / "corpus.jsonl"
_SENTENCE_END = re.compile(r"(?<=\.) ")


def load_records(corpus: Path, limit: int | None) -> list[dict[str, Any]]:
    records = []
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            records.append(json.loads(line))
            if limit is not None and len(records) >= limit:
                break
    return records


def paragraphs(text: str) -> list[str]:
    sentences = _SENTENCE_END.split(text)
    return [" ".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3)]


def markdown(record: dict[str, Any]) -> str:
    body = "\n\n".join(paragraphs(record["text"]))
    return f"# {record['title']}\n\n## Abstract\n\n{body}\n\n---\n\n```\n{record['_id']}\n```\n"


def latex(record: dict[str, Any]) -> str:
    body = "\n\n".join(paragraphs(record["text"]))
    return f"\\section{{{record['title']}}}\n\n{body}\n\n$$n = {record['_id']}$$\n"


def python(record: dict[str, Any]) -> str:
    body = "\n    ".join(_SENTENCE_END.split(record["text"]))
    return (
        f"class Document{record['_id']}:\n    title = {record['title']!r}\n\n"
        f"def abstract_{record['_id']}():\n    \"\"\"{body}\"\"\"\n    return {record['_id']}\n"
    )


def jsx(record: dict[str, Any]) -> str:
    body = "".join(f"      <Paragraph>{p}</Paragraph>\n" for p in paragraphs(record["text"]))
    return (
        f"export const Document{record['_id']} = () => {{\n  const id = {record['_id']};\n"
        f"  return (\n    <Article id={{id}}>\n      <Title>{record['title']}</Title>\n"
        f"{body}    </Article>\n  );\n}};\n"
    )


def json_record(record: dict[str, Any]) -> dict[str, Any]:
    return {"_id": record["_id"], "title": record["title"],
            "sentences": _SENTENCE_END.split(record["text"]), "metadata": record["metadata"]}


def json_groups(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {r["_id"]: {"title": r["title"], "text": r["text"]} for r in records[i : i + 100]}
        for i in range(0, len(records), 100)
    ]


Split = Callable[[Any], Any]


def configurations(records: list[dict[str, Any]]) -> list[tuple[str, list[Any], Split, Split]]:
    """(name, inputs, LangChain's split, ours) for every configuration measured."""
    import langchain_text_splitters as lc
    from langchain_text_splitters.base import Tokenizer, split_text_on_tokens

    import splitters
    from splitters.sentence_transformers import minilm_tokenizer

    texts = {
        "markdown": [markdown(r) for r in records],
        "latex": [latex(r) for r in records],
        "python": [python(r) for r in records],
        "jsx": [jsx(r) for r in records],
        "abstracts": [f"{r['title']}\n\n{r['text']}" for r in records],
    }
    json_records = [json_record(r) for r in records]
    groups = json_groups(records)
    configs: list[tuple[str, list[Any], Split, Split]] = []

    def text_pair(name: str, kind: str, reference: Any, ours: Any) -> None:
        configs.append((name, texts[kind], reference.split_text, ours.split_text))

    for size in ((1000, 200), (200, 20)):
        kwargs = dict(chunk_size=size[0], chunk_overlap=size[1])
        text_pair(f"MarkdownTextSplitter{size}", "markdown", lc.MarkdownTextSplitter(**kwargs),
                  splitters.MarkdownTextSplitter(**kwargs))
    for size in ((1000, 200), (200, 20)):
        kwargs = dict(chunk_size=size[0], chunk_overlap=size[1])
        text_pair(f"LatexTextSplitter{size}", "latex", lc.LatexTextSplitter(**kwargs),
                  splitters.LatexTextSplitter(**kwargs))
    for size in ((1000, 200), (200, 20)):
        kwargs = dict(chunk_size=size[0], chunk_overlap=size[1])
        text_pair(f"PythonCodeTextSplitter{size}", "python", lc.PythonCodeTextSplitter(**kwargs),
                  splitters.PythonCodeTextSplitter(**kwargs))
    for size in ((2000, 0), (300, 50)):
        kwargs = dict(chunk_size=size[0], chunk_overlap=size[1])
        text_pair(f"JSFrameworkTextSplitter{size}", "jsx", lc.JSFrameworkTextSplitter(**kwargs),
                  splitters.JSFrameworkTextSplitter(**kwargs))
    for size in (1000, 300):
        reference, ours = lc.RecursiveJsonSplitter(size), splitters.RecursiveJsonSplitter(size)
        configs.append((
            f"RecursiveJsonSplitter({size}) lists", json_records,
            lambda data, r=reference: r.split_text(data, convert_lists=True),
            lambda data, o=ours: o.split_text(data, convert_lists=True),
        ))
    reference, ours = lc.RecursiveJsonSplitter(), splitters.RecursiveJsonSplitter()
    configs.append(("RecursiveJsonSplitter(2000) groups", groups, reference.split_text, ours.split_text))
    configs.append((
        "RecursiveJsonSplitter(2000) groups, unicode", groups,
        lambda data: reference.split_text(data, ensure_ascii=False),
        lambda data: ours.split_text(data, ensure_ascii=False),
    ))
    tokenizer = minilm_tokenizer()
    wrapped = Tokenizer(
        chunk_overlap=50, tokens_per_chunk=254,
        decode=lambda ids: tokenizer.decode(ids, skip_special_tokens=False),
        encode=lambda text: tokenizer.encode(text).ids[1:-1],
    )
    configs.append((
        "SentenceTransformersToken(254, 50)", texts["abstracts"],
        lambda text: split_text_on_tokens(text=text, tokenizer=wrapped),
        splitters.SentenceTransformersTokenTextSplitter().split_text,
    ))
    return configs


def input_megabytes(inputs: list[Any]) -> float:
    return sum(len((x if isinstance(x, str) else json.dumps(x)).encode("utf-8")) for x in inputs) / 1e6


def timed_pass(split: Split, inputs: list[Any]) -> tuple[float, list[Any]]:
    started = time.perf_counter()
    chunks = [split(item) for item in inputs]
    return time.perf_counter() - started, chunks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=3, help="passes per splitter (>= 2)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents")
    parser.add_argument("--only", nargs="*", default=None, help="configurations whose name contains one of these")
    args = parser.parse_args(argv)
    if not args.corpus.exists():
        parser.error(f"corpus not found: {args.corpus} (pass --corpus PATH)")
    if args.repeats < 2:
        parser.error(f"--repeats must be at least 2 (cold + warm), got {args.repeats}")
    try:
        import langchain_text_splitters  # noqa: F401
    except ImportError:
        parser.error("needs LangChain to compare: pip install langchain-text-splitters==1.1.3")

    records = load_records(args.corpus, args.limit)
    print(f"corpus: {args.corpus} ({len(records)} documents)")
    print(f"{'configuration':<44} {'MB':>5} {'chunks':>7} {'LangChain MB/s':>15} {'ours MB/s':>15} {'ratio':>12}")
    print(f"{'':<44} {'':>5} {'':>7} {'cold / warm':>15} {'cold / warm':>15} {'cold / warm':>12}")
    identical = True
    for name, inputs, reference, ours in configurations(records):
        if args.only and not any(part in name for part in args.only):
            continue
        megabytes = input_megabytes(inputs)
        reference_times, our_times = [], []
        for _ in range(args.repeats):
            elapsed, reference_chunks = timed_pass(reference, inputs)
            reference_times.append(elapsed)
            elapsed, our_chunks = timed_pass(ours, inputs)
            our_times.append(elapsed)
            if our_chunks != reference_chunks:
                identical = False
                print(f"  {name}: chunks differ from LangChain's")
        chunk_count = sum(map(len, our_chunks))
        ref_cold, ref_warm = megabytes / reference_times[0], megabytes / min(reference_times[1:])
        our_cold, our_warm = megabytes / our_times[0], megabytes / min(our_times[1:])
        print(
            f"{name:<44} {megabytes:>5.2f} {chunk_count:>7} {ref_cold:>6.1f} / {ref_warm:<6.1f} "
            f"{our_cold:>6.1f} / {our_warm:<6.1f} {our_cold / ref_cold:>4.1f}x / {our_warm / ref_warm:.1f}x"
        )
    print("chunks identical to LangChain's:", "yes" if identical else "NO")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
