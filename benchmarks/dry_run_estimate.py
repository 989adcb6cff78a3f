"""How good ``rag index --dry-run``'s estimate is: its predicted chunks against the chunks a
real update makes of the same folders (``hashing`` embeddings: the chunk count does not
depend on the model), with the margin the dry run states.

    python benchmarks/dry_run_estimate.py                     # Debian's manuals, if installed
    python benchmarks/dry_run_estimate.py /path/to/folder ... # any folders

Prints one JSON line per folder: files, predicted chunks (and the stated 95% margin, when
the dry run gives one), actual chunks, the error in percent, the seconds each took.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repository, not benchmarks/

from rag.index import Index

MANUALS = ["/usr/share/doc/postgresql-doc-15/html", "/usr/share/doc/python3.11/html", "/usr/share/doc/git-doc"]


def measure(folder: str) -> dict:
    work = Path(tempfile.mkdtemp())
    try:
        index = Index.create(work / "ix", embeddings="hashing")
        began = time.perf_counter()
        plan = index.dry_run([folder])
        planned_seconds = time.perf_counter() - began
        began = time.perf_counter()
        summary = index.update([folder])
        update_seconds = time.perf_counter() - began
    finally:
        shutil.rmtree(work, ignore_errors=True)
    actual = summary.total_chunks
    return {"folder": folder, "files": plan.files, "predicted": plan.chunks,
            "margin": getattr(plan, "chunks_margin", None), "actual": actual,
            "error_percent": round(100 * (plan.chunks - actual) / max(actual, 1), 1),
            "dry_run_seconds": round(planned_seconds, 2), "update_seconds": round(update_seconds, 1)}


if __name__ == "__main__":
    for folder in sys.argv[1:] or [m for m in MANUALS if Path(m).is_dir()]:
        print(json.dumps(measure(folder)), flush=True)
