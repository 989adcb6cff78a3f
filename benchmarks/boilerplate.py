"""Boilerplate by repetition against trafilatura, on real HTML manuals, side by side.

    python benchmarks/boilerplate.py                      # the three manuals below
    python benchmarks/boilerplate.py --manual git=/usr/share/doc/git-doc --no-trafilatura

For each manual (the HTML pages an index of its folder reads), three extractions are
split as ``rag index`` splits (1000/200 characters):

- ``ours``: :class:`loaders.ReadableHTMLLoader` (structural chrome: nav, sidebars,
  DocBook navigation tables, page footers), as indexed before boilerplate removal;
- ``ours+repetition``: the same, then :func:`rag.index.boilerplate.remove_boilerplate`
  (blocks repeated on more than ``max(3, share x pages)`` pages of one folder), for
  several shares (the default rule is the one written in the module);
- ``ours, chrome kept`` and ``ours, chrome kept+repetition``: the loader with
  ``drop_chrome=False`` (no element rules at all), before and after removal by the
  default rule: what repetition alone finds on a site whose chrome no rule knows;
- ``trafilatura``: ``trafilatura.extract`` of each page (tables and formatting kept;
  ``pip install trafilatura``, only for this comparison).

Reported per manual and extraction: chunks; *chrome chunks*, the chunks whose first 60
characters (white space collapsed) begin chunks of more than 20 pages; words kept;
*key phrases kept*, of the question sets in ``benchmarks/data`` whose expected source
page is in the manual, those still found on that page (so content lost shows); and
seconds to extract (load, or load plus removal). With ``--index``, also what the
removal costs ``rag index`` (hashing embeddings, a copy of the manual in a temporary
folder): seconds for a first index, an unchanged re-index and a re-index after one page
changed, with boilerplate removal as shipped and turned off (the folder pass skipped),
alternating. Written to ``benchmarks/results/boilerplate.json``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repository, not benchmarks/

from loaders import ReadableHTMLLoader  # noqa: E402
from loaders.html import HTML_SUFFIXES  # noqa: E402
from loaders.selection import select_files  # noqa: E402
from rag import Document  # noqa: E402
from rag.index.boilerplate import BoilerplateRule, remove_boilerplate  # noqa: E402
from splitters import RecursiveCharacterTextSplitter  # noqa: E402

DATA = Path(__file__).parent / "data"
RESULTS = Path(__file__).parent / "results" / "boilerplate.json"
MANUALS = {
    "postgresql": "/usr/share/doc/postgresql-doc-15/html",
    "git": "/usr/share/doc/git-doc",
    "python": "/usr/share/doc/python3.11/html",
}
#: Question sets whose key phrases are checked on each manual's pages.
QUESTION_SETS = {"postgresql": ["postgresql_qa.tsv", "postgresql_qa_heldout.tsv"], "git": ["git_qa.tsv"]}
SHARES = (0.05, 0.1, 0.2, 0.3, 0.5)
PREFIX, PAGES = 60, 20


def pages_of(root: str) -> list[Path]:
    """The HTML pages an index of ``root`` reads (its folder selection), in order."""
    return sorted(path for path in select_files(root).files if path.suffix.lower() in HTML_SUFFIXES)


def ours(paths: list[Path], drop_chrome: bool = True) -> list[Document]:
    return [document for path in paths for document in ReadableHTMLLoader(path, drop_chrome=drop_chrome).load()]


def trafilatura_pages(paths: list[Path]) -> list[Document]:
    import trafilatura

    documents = []
    for path in paths:
        html = path.read_bytes().decode("utf-8", "replace")
        text = trafilatura.extract(html, include_tables=True, include_formatting=False, include_comments=False,
                                   favor_precision=False) or ""
        documents.append(Document(text, {"source": str(path)}))
    return documents


def normalized(text: str) -> str:
    return " ".join(text.split())


def chrome_chunks(chunks: list[Document]) -> int:
    """Chunks whose first :data:`PREFIX` characters begin chunks of more than :data:`PAGES` pages."""
    pages_by_prefix: dict[str, set[str]] = defaultdict(set)
    for chunk in chunks:
        pages_by_prefix[normalized(chunk.page_content)[:PREFIX]].add(chunk.metadata["source"])
    return sum(1 for chunk in chunks if len(pages_by_prefix[normalized(chunk.page_content)[:PREFIX]]) > PAGES)


def key_phrases(manual: str) -> list[tuple[str, list[str]]]:
    """``(page file name, alternatives)`` for each question of the manual's sets."""
    rows = []
    for name in QUESTION_SETS.get(manual, []):
        with open(DATA / name, newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                for page in row["sources"].split("|"):
                    rows.append((page, [normalized(p) for p in row["key_phrases"].split("|")]))
    return rows


def phrases_kept(documents: list[Document], phrases: list[tuple[str, list[str]]]) -> int:
    by_page = {Path(d.metadata["source"]).name: normalized(d.page_content) for d in documents}
    return sum(1 for page, alternatives in phrases
               if page in by_page and any(alt in by_page[page] for alt in alternatives))


def measure(name: str, documents: list[Document], seconds: float, phrases: list[tuple[str, list[str]]],
            splitter: RecursiveCharacterTextSplitter) -> dict[str, Any]:
    chunks = splitter.split_documents(documents)
    row = {"extraction": name, "chunks": len(chunks), "chrome_chunks": chrome_chunks(chunks),
           "words": sum(len(d.page_content.split()) for d in documents), "seconds": round(seconds, 2)}
    if phrases:
        row["key_phrases_kept"] = f"{phrases_kept(documents, phrases)}/{len(phrases)}"
    return row


def timed(function: Callable[[], list[Document]]) -> tuple[list[Document], float]:
    began = time.perf_counter()
    result = function()
    return result, time.perf_counter() - began


def run_manual(manual: str, root: str, use_trafilatura: bool) -> dict[str, Any]:
    paths = pages_of(root)
    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200, add_start_index=True)
    phrases = key_phrases(manual)
    # Keep only the key phrases the structural extraction finds: what a rule can lose.
    documents, load_seconds = timed(lambda: ours(paths))
    phrases = [(page, alts) for page, alts in phrases if phrases_kept(documents, [(page, alts)])]
    rows = [measure("ours", documents, load_seconds, phrases, splitter)]
    default = BoilerplateRule()
    for share in sorted(set(SHARES) | {default.min_share}):
        rule = BoilerplateRule(min_pages=default.min_pages, min_share=share)
        stripped, removal_seconds = timed(lambda: remove_boilerplate(documents, rule))
        label = f"ours+repetition share={share}" + (" (default)" if rule == default else "")
        row = measure(label, stripped, load_seconds + removal_seconds, phrases, splitter)
        row["removal_seconds"] = round(removal_seconds, 2)
        rows.append(row)
    raw, raw_seconds = timed(lambda: ours(paths, drop_chrome=False))
    rows.append(measure("ours, chrome kept", raw, raw_seconds, phrases, splitter))
    stripped, removal_seconds = timed(lambda: remove_boilerplate(raw, default))
    row = measure("ours, chrome kept+repetition (default)", stripped, raw_seconds + removal_seconds, phrases, splitter)
    row["removal_seconds"] = round(removal_seconds, 2)
    rows.append(row)
    if use_trafilatura:
        extracted, extract_seconds = timed(lambda: trafilatura_pages(paths))
        rows.append(measure("trafilatura", extracted, extract_seconds, phrases, splitter))
    return {"manual": manual, "root": root, "pages": len(paths), "rows": rows}


@contextmanager
def removal_off():
    """``rag index`` without boilerplate removal: no folder pass, nothing removed."""
    from rag.index.site_pages import SitePlan
    from rag.index.update import Updater

    real = Updater._folder_plan, Updater._plan
    Updater._folder_plan = lambda self, root, force=False: None  # type: ignore[method-assign]
    Updater._plan = lambda self, root: SitePlan()  # type: ignore[method-assign]
    try:
        yield
    finally:
        Updater._folder_plan, Updater._plan = real  # type: ignore[method-assign]


def index_timings(root: str, rounds: int = 2) -> dict[str, Any]:
    """Best seconds of ``rag index`` steps on a copy of ``root``, removal on and off."""
    from rag.index import Index

    best: dict[str, float] = defaultdict(lambda: float("inf"))
    chunks: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "manual"
        shutil.copytree(root, copy, symlinks=True)
        old = time.time() - 3600  # older than an update's same-second guard
        for path in copy.rglob("*"):
            if path.is_file() and not path.is_symlink():
                os.utime(path, (old, old))
        page = pages_of(str(copy))[len(pages_of(str(copy))) // 2]
        for round_number in range(rounds):
            for mode in ("on", "off"):
                context = removal_off() if mode == "off" else contextmanager(lambda: (yield))()
                with context:
                    index = Index.create(Path(scratch) / f"ix-{mode}-{round_number}", embeddings="hashing")
                    for step in ("first", "unchanged", "one page changed"):
                        if step == "one page changed":
                            stamp = old + 60 * (round_number * 2 + (mode == "off") + 1)
                            os.utime(page, (stamp, stamp))
                        began = time.perf_counter()
                        summary = index.update([str(copy)])
                        best[f"{step}, removal {mode}"] = min(best[f"{step}, removal {mode}"],
                                                              time.perf_counter() - began)
                        if step == "first":
                            chunks[f"removal {mode}"] = summary.total_chunks
                    index.close()
    return {"seconds": {key: round(value, 2) for key, value in best.items()}, "chunks": chunks,
            "rounds": rounds, "embeddings": "hashing"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manual", action="append", default=[], metavar="NAME=FOLDER",
                        help="a manual to measure (repeatable); default: PostgreSQL, git and Python's")
    parser.add_argument("--no-trafilatura", action="store_true", help="leave trafilatura out")
    parser.add_argument("--index", action="store_true", help="also time rag index with removal on and off")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    manuals = dict(item.split("=", 1) for item in args.manual) or MANUALS
    results = []
    for manual, root in manuals.items():
        if not Path(root).is_dir():
            print(f"{manual}: {root} is not there, skipped", file=sys.stderr)
            continue
        result = run_manual(manual, root, not args.no_trafilatura)
        if args.index:
            result["index"] = index_timings(root)
        results.append(result)
        print(f"\n{manual} ({result['pages']} pages, {root})")
        for row in result["rows"]:
            print("  " + "  ".join(f"{key}={value}" for key, value in row.items()))
        if "index" in result:
            print("  rag index:", result["index"])
    rule = BoilerplateRule()
    payload = {"benchmark": "boilerplate", "chrome_chunk": f"first {PREFIX} characters begin chunks of more "
               f"than {PAGES} pages", "chunking": "1000/200 characters", "default_rule":
               {"min_pages": rule.min_pages, "min_share": rule.min_share},
               "machine": f"{platform.machine()}, Python {platform.python_version()}, shared and noisy",
               "manuals": results}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    temporary = args.output.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(payload, indent=2) + "\n")
    temporary.replace(args.output)  # never a half-written result
    print(f"\nwritten: {args.output}")


if __name__ == "__main__":
    main()
