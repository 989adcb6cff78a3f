"""Is the non-model pipeline linear in corpus size? (issue 18, item 3)

    python benchmarks/pipeline_scaling.py [--corpus DIR] [--files 200] [--scales 1 4 16] [--repeats 2] [--json OUT]

``rag index FOLDER --embeddings hashing`` (loading, HTML text extraction, splitting,
hashing embeddings, BM25 postings, checkpoints, FAISS) on the first ``--files`` HTML files
of the corpus (Debian's PostgreSQL 15 manual) and on 4 and 16 copies of them, each copy
made unique by a token at the start of every paragraph, list item, table cell and
preformatted block (``benchmarks/indexing.py``'s ``unique_copy``), so that no chunk is
reused from another copy. Each run is a fresh child (wall time, peak RSS); scales
alternate within each repeat; best of ``--repeats``. Reported: seconds per chunk at each
scale over seconds per chunk at 1x (1.00 = linear).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from indexing import Tree, copy_files, fresh, html_files, unique_copy  # noqa: E402

DEFAULT_CORPUS = Path("/usr/share/doc/postgresql-doc-15/html")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    tree = Tree("ours", Path(__file__).resolve().parents[1])
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        base = copy_files(html_files(args.corpus)[: args.files], work / "base")
        folders = {}
        for scale in args.scales:
            folder = fresh(work / f"x{scale}")
            folder.mkdir()
            for copy in range(scale):
                unique_copy(base, folder / f"copy{copy:02d}", copy)
            folders[scale] = folder
        print(f"{args.files} files x {args.scales}; load average {os.getloadavg()}", flush=True)
        best: dict[int, dict] = {}
        for repeat in range(args.repeats):
            for scale in args.scales if repeat % 2 == 0 else reversed(args.scales):
                out = fresh(work / f"index-x{scale}")
                child = tree.rag_index([folders[scale]], out, "hashing")
                summary = child.summary_json()
                chunks, seconds = summary["total_chunks"], summary["seconds"]
                shutil.rmtree(out, ignore_errors=True)
                print(f"  {scale:3d}x {chunks:7,} chunks {child.wall:7.2f} s (update {seconds:.2f} s) "
                      f"{child.maxrss_mib:6.0f} MiB", flush=True)
                if scale not in best or child.wall < best[scale]["wall"]:
                    best[scale] = {"wall": child.wall, "update_seconds": seconds, "chunks": chunks,
                                   "rss_mib": child.maxrss_mib}
    one = best[args.scales[0]]
    print("\n| scale | chunks | wall (best) | update() | chunks/s (update) | time per chunk vs 1x: wall, update | "
          "peak RSS |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for scale in args.scales:
        run = best[scale]
        relative = (run["wall"] / run["chunks"]) / (one["wall"] / one["chunks"])
        update = (run["update_seconds"] / run["chunks"]) / (one["update_seconds"] / one["chunks"])
        run["per_chunk_vs_first"], run["update_per_chunk_vs_first"] = relative, update
        print(f"| {scale}x | {run['chunks']:,} | {run['wall']:.1f} s | {run['update_seconds']:.1f} s | "
              f"{run['chunks'] / run['update_seconds']:,.0f} | {relative:.2f}, {update:.2f} | {run['rss_mib']:,.0f} MiB |")
    print(f"load average after {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps({str(k): v for k, v in best.items()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
