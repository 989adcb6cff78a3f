"""Peak memory of indexing one large file, and how many checkpoints it commits on the way.

    python benchmarks/large_file_memory.py            # a 50 MB text file, hashing embeddings
    python benchmarks/large_file_memory.py --mb 20

Each run is a fresh process (peak RSS, ``ru_maxrss``, only grows): it writes the file
(paragraphs of words, deterministic), creates an index with ``hashing`` embeddings and
updates it with the file. Prints JSON: the file's size, the peak RSS before the update
(imports done) and after it, the chunks and the commits (manifest swaps) of the update.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import sys
import tempfile
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repository, not benchmarks/

from rag.index import Index
from rag.index.segments import SegmentFolder


def write_file(path: Path, megabytes: int, seed: int = 35) -> None:
    rng = random.Random(seed)
    words = [f"w{n}" for n in range(5000)] + "the a of and to in is it that".split() * 200
    with open(path, "w", encoding="utf-8") as handle:
        written = 0
        while written < megabytes * 1_000_000:
            paragraph = " ".join(rng.choices(words, k=rng.randint(30, 200))) + ".\n\n"
            handle.write(paragraph)
            written += len(paragraph)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=50)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp())
    try:
        source = work / "large.txt"
        write_file(source, args.mb)
        index = Index.create(work / "ix", embeddings="hashing")
        commits = []
        real = SegmentFolder.write_manifest

        def counted(self, data):
            commits.append(1)
            return real(self, data)

        SegmentFolder.write_manifest = counted  # type: ignore[method-assign]
        before = peak_mb()
        summary = index.update([str(source)])
        print(json.dumps({"file_mb": round(source.stat().st_size / 1e6, 1), "peak_rss_mb_before_update": round(before),
                          "peak_rss_mb": round(peak_mb()), "chunks": summary.chunks, "commits": len(commits)}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
