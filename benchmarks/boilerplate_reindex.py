"""What re-indexing a manual's folder costs after one page changed, with boilerplate
removal on (issue 34): the folder's boilerplate is found over all its pages, and each
page's record keeps its block profiles, so only the changed page should be parsed.

    python benchmarks/boilerplate_reindex.py                       # PostgreSQL and git manuals
    RAG_BENCH_TREE=/path/to/older/checkout python benchmarks/boilerplate_reindex.py --output before.json

For each manual, on a copy in a temporary folder (files dated an hour back, older than
an update's same-second guard), with hashing embeddings (no model time): a first
index, then one page (the middle one) rewritten with one more word and re-indexed.
Reported: wall and CPU seconds (this process) of each step, and how many pages the
re-index parsed (``DirectoryLoader.load_path`` calls). ``RAG_BENCH_TREE`` names another
checkout (e.g. ``git archive`` of an older commit) to measure it the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The code measured: this repository, or the checkout RAG_BENCH_TREE names (not benchmarks/).
sys.path[0] = os.environ.get("RAG_BENCH_TREE", str(Path(__file__).resolve().parents[1]))

MANUALS = {"postgresql": ("/usr/share/doc/postgresql-doc-15/html", "*.html"),
           "git": ("/usr/share/doc/git-doc", "*.html")}


def copy_manual(root: str, pattern: str, target: Path) -> list[Path]:
    """The manual's top-level ``pattern`` files copied into ``target``, dated an hour back."""
    target.mkdir()
    old = time.time() - 3600
    copied = []
    for path in sorted(Path(root).glob(pattern)):
        if path.is_file():
            copy = target / path.name
            shutil.copyfile(path, copy)
            os.utime(copy, (old, old))
            copied.append(copy)
    return copied


def timed_update(index: Any, folder: Path) -> dict[str, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    index.update([str(folder)])
    return {"wall_s": round(time.perf_counter() - wall, 3), "cpu_s": round(time.process_time() - cpu, 3)}


def run_manual(root: str, pattern: str) -> dict[str, Any]:
    from loaders import DirectoryLoader
    from rag.index import Index

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "manual"
        pages = copy_manual(root, pattern, folder)
        index = Index.create(Path(scratch) / "ix", embeddings="hashing")
        first = timed_update(index, folder)
        page = pages[len(pages) // 2]
        page.write_text(page.read_text(errors="surrogateescape").replace("</body>", "<p>edited</p></body>", 1),
                        errors="surrogateescape")
        reads: list[str] = []
        real_load = DirectoryLoader.load_path
        DirectoryLoader.load_path = lambda self, path: reads.append(str(path)) or real_load(self, path)  # type: ignore
        try:
            one = timed_update(index, folder)
        finally:
            DirectoryLoader.load_path = real_load  # type: ignore[method-assign]
        index.close()
    return {"pages": len(pages), "first_index": first, "one_page_changed": one, "pages_parsed": len(reads)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manual", action="append", choices=sorted(MANUALS), help="default: all")
    parser.add_argument("--output", type=Path, help="also write the results here (JSON)")
    args = parser.parse_args()
    import rag

    results = {"rag": str(Path(rag.__file__).parent), "python": sys.version.split()[0], "embeddings": "hashing",
               "manuals": {name: run_manual(*MANUALS[name]) for name in (args.manual or sorted(MANUALS))}}
    print(json.dumps(results, indent=2))
    if args.output:
        args.output.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
