"""What indexing a documentation folder embeds: the old whole-folder load against
``select_files`` + the main-content HTML loader, side by side on the same folders.

    python benchmarks/folder_selection.py                     # Debian's manuals, if installed
    python benchmarks/folder_selection.py /path/to/site ...   # any folders

"before": every non-hidden file (``DirectoryLoader``'s default glob), HTML through
``BSHTMLLoader`` (LangChain's all-text extraction), as ``rag index FOLDER`` read a folder
before issue 16. "after": :func:`loaders.selection.select_files` and ``DirectoryLoader``'s
suffix loaders (HTML through ``ReadableHTMLLoader``). Both are split with
``RecursiveCharacterTextSplitter(1000, 200)``. A chunk counts as chrome when it holds a
sidebar/footer phrase ("Next topic", "Report a Bug", "Show Source"), a ``¶``, a DocBook
"Prev Up ... Next" table or an AsciiDoc "Last updated" footer; chunks of files the selection leaves out count as left out.
Selection time is the best of 5 walks, against ``DirectoryLoader.file_paths()``.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repository, not benchmarks/

from benchmarks._timing import best_of
from loaders import BSHTMLLoader, DirectoryLoader
from loaders.selection import select_files
from splitters import RecursiveCharacterTextSplitter

MANUALS = [
    "/usr/share/doc/python3.11/html",
    "/usr/share/doc/postgresql-doc-15/html",
    "/usr/share/doc/git-doc",
]
CHROME = ("Next topic", "Previous topic", "Report a Bug", "Show Source", "\u00b6")
# DocBook's navigation tables ("Prev Up Home Next", as get_text joins them or as table
# cells " | ") and AsciiDoc's footer ("Last updated 2024-05-31 00:35:55 UTC").
CHROME_LINES = re.compile(
    r"\bPrev[\s|\u00a0]*Up\b|\bPrev\b[^\n]*\|[^\n]*\bNext\b|Last updated\s+\d{4}-\d\d-\d\d"
)


def is_chrome(text: str) -> bool:
    return any(mark in text for mark in CHROME) or CHROME_LINES.search(text) is not None


def measure(folder: Path) -> None:
    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
    old = DirectoryLoader(
        folder,
        silent_errors=True,
        suffix_loaders={".html": BSHTMLLoader, ".htm": BSHTMLLoader},
    )
    started = time.perf_counter()
    before = splitter.split_documents(old.load())
    before_seconds = time.perf_counter() - started

    selection = select_files(folder)
    kept = {str(path) for path in selection.files}
    new = DirectoryLoader(folder, silent_errors=True)
    started = time.perf_counter()
    documents = [doc for path in selection.files for doc in new.load_path(path) or []]
    after = splitter.split_documents(documents)
    after_seconds = time.perf_counter() - started

    left_out = sum(1 for chunk in before if chunk.metadata["source"] not in kept)
    chrome_before = sum(1 for chunk in before if is_chrome(chunk.page_content))
    chrome_after = sum(1 for chunk in after if is_chrome(chunk.page_content))
    walk = best_of(lambda: select_files(folder))
    glob = best_of(lambda: DirectoryLoader(folder).file_paths())

    print(f"\n{folder}")
    print(f"  files       before {len(old.file_paths()):>6,}   after {len(selection.files):>6,}"
          f"   ({len(selection.skipped)} skips listed)")
    print(f"  chunks      before {len(before):>6,}   after {len(after):>6,}"
          f"   ({1 - len(after) / max(1, len(before)):.0%} fewer)")
    print(f"  of those, from files now left out: {left_out:,} "
          f"({left_out / max(1, len(before)):.0%} of before)")
    print(f"  chunks with chrome   before {chrome_before:>6,}   after {chrome_after:>6,}")
    print(f"  load + split         before {before_seconds:6.1f} s  after {after_seconds:6.1f} s")
    print(f"  selection walk       select_files {walk * 1000:6.1f} ms   "
          f"DirectoryLoader.file_paths {glob * 1000:6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", type=Path)
    args = parser.parse_args()
    folders = args.folders or [Path(path) for path in MANUALS if Path(path).is_dir()]
    if not folders:
        sys.exit("no folder given and none of Debian's manuals installed: "
                 "apt-get install python3.11-doc postgresql-doc-15 git-doc")
    for folder in folders:
        measure(folder)


if __name__ == "__main__":
    main()
