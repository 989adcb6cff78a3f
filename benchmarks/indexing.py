"""Indexing benchmark (issue 16, "Measure"): ``rag index`` as a user runs it, in child processes.

    python benchmarks/indexing.py                 # everything (20-30 minutes on 2 cores)
    python benchmarks/indexing.py --quick         # a smoke run on a few files (a minute or two)
    python benchmarks/indexing.py --parts noop kill

Corpus: Debian's PostgreSQL 15 manual (``apt-get install -y postgresql-doc-15``;
``/usr/share/doc/postgresql-doc-15/html``, 1,169 HTML files). Every measured run is a fresh
child process (``python -m rag index ...``, or the LangChain pipeline through this script's
``--child-langchain``), so wall time, peak RSS and bytes written are each run's own:

- wall time: from spawning the child to its exit;
- peak RSS: the child's ``ru_maxrss`` (``os.wait4``);
- bytes written: the child's ``/proc/PID/io``, read after it exits and before it is reaped
  (``waitid(WNOWAIT)``). ``wchar`` counts every byte passed to write calls; what went to
  stdout/stderr (pipes) is subtracted, so the figure is what was written to files.
  ``write_bytes`` counts page-cache pages dirtied (4 KiB granularity); pipes do not count.
  Each run also diffs the index folder (size, mtime_ns, inode of every file) before and after.

Parts (``--parts``; all by default):

noop    "before" (``--before-tree``, default ``/tmp/rag-before``: a worktree of 3cd640a, the
        commit before the segment format; create it with ``git worktree add /tmp/rag-before
        3cd640a``) against "after" (this tree, or ``--after-tree``). Same copy of the corpus,
        ``--embeddings hashing``: one build each, then ``--repeats`` no-op re-runs, the two
        trees alternating (medians); then one paragraph is added to one file and each tree
        re-indexes once; then where a no-op run's time goes (interpreter start, imports,
        ``Index.open_or_create``, ``update``; fresh children, medians).
build   bytes written by a full build against the final index folder size (every build the
        other parts make: hashing on the corpus and its copies, the local model on a subset).
kill    ``--embeddings local`` on the first files of the corpus (about ``--kill-chunks``
        chunks, copied to a temporary folder): a reference build; then a fresh ``rag index``
        whose stderr is a pseudo-terminal (so it draws its progress bar, which this script
        reads) is SIGKILLed once half of the chunks are embedded; then a re-run. The share is
        the re-run's ``chunks`` (chunks embedded) over the total. The same again through
        ``Index.update`` with ``checkpoint_chunks`` set to each ``--kill-checkpoints`` value.
rss     peak RSS of ``rag index`` with hashing embeddings at 1x and ``--copies`` x the corpus
        (copies made unique by a per-copy token at the start of every paragraph, list item,
        table cell, definition and preformatted block), against the resident size of a fresh
        child that only opens the built index (``Index.open``, ``gc.collect``): "net" is the
        peak minus that. An ``Index.update`` child also reports its RSS at each progress call,
        the peak reached by the last one, and the time spent after it (the final commit).
langchain  LangChain's pipeline (DirectoryLoader + BSHTMLLoader + RecursiveCharacterTextSplitter
        (1000, 200) + FAISS.from_documents + save_local; langchain-community 0.4.2,
        langchain-text-splitters 1.1.3) against ``rag index FOLDER``, on the first
        ``--langchain-files`` HTML files, with our ``LocalEmbeddings`` (``--langchain-repeats``
        runs per side) and ``HashingEmbeddings`` (3 runs per side: the pipeline alone) wrapped
        as a LangChain ``Embeddings`` subclass; sides alternate; medians. Model tokens are the
        MiniLM tokenizer's count over each side's chunks (truncated at 256), the work the
        model does.

Nothing here asserts a time. The script exits 1 if a child fails unexpectedly.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

REPO = Path(__file__).resolve().parents[1]
# The repository, not benchmarks/, first (as the other benchmarks do); a child of this script
# runs the tree under measurement (Tree.env names it).
sys.path[0] = os.environ.get("RAG_BENCH_TREE", str(REPO))

from rag.process_defaults import apply_process_defaults  # noqa: E402  (after the path fix)

DEFAULT_CORPUS = Path("/usr/share/doc/postgresql-doc-15/html")
BEFORE_COMMIT = "3cd640a"
_EMBED_PROGRESS = re.compile(rb"embed\s+(\d+)")


# ---------------------------------------------------------------------------- child processes


@dataclass
class Child:
    """One finished child process and what it cost."""

    argv: list[str]
    returncode: int
    wall: float
    maxrss_mib: float
    io: dict[str, int]
    stdout: bytes
    stderr: bytes
    killed_at: Optional[float] = None
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def file_wchar(self) -> int:
        """Bytes passed to write calls, less what went to stdout and stderr."""
        return self.io.get("wchar", 0) - len(self.stdout) - len(self.stderr)

    @property
    def write_bytes(self) -> int:
        return self.io.get("write_bytes", 0) - self.io.get("cancelled_write_bytes", 0)

    def summary_json(self) -> dict[str, Any]:
        try:
            return json.loads(self.stdout)
        except ValueError:
            raise SystemExit(f"not a JSON summary from {' '.join(self.argv)}:\n{self.stdout[-2000:]!r}\n"
                             f"stderr: {self.stderr[-2000:]!r}") from None


def _read_io(pid: int) -> dict[str, int]:
    try:
        with open(f"/proc/{pid}/io") as handle:
            return {key: int(value) for key, value in (line.split(": ") for line in handle if ": " in line)}
    except OSError:
        return {}


def _drain(stream: Any, sink: bytearray, on_data: Optional[Callable[[bytes], None]] = None) -> None:
    while True:
        try:
            data = os.read(stream, 65536) if isinstance(stream, int) else stream.read1(65536)
        except OSError:  # a pseudo-terminal's master raises EIO once the child is gone
            break
        if not data:
            break
        sink.extend(data)
        if on_data is not None:
            on_data(bytes(sink))


def run_child(argv: list[str], *, cwd: Path, env: dict[str, str], tty_stderr: bool = False,
              kill_when: Optional[Callable[[bytes, float], bool]] = None, poll: float = 0.05,
              check: bool = True) -> Child:
    """Run ``argv`` to its end (or SIGKILL it once ``kill_when(stderr so far, elapsed)`` is true)."""
    stdout, stderr = bytearray(), bytearray()
    master = slave = None
    if tty_stderr:
        master, slave = pty.openpty()
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=slave if tty_stderr else subprocess.PIPE)
    if slave is not None:
        os.close(slave)
    readers = [threading.Thread(target=_drain, args=(process.stdout, stdout), daemon=True),
               threading.Thread(target=_drain, args=(master if tty_stderr else process.stderr, stderr), daemon=True)]
    for reader in readers:
        reader.start()
    killed_at = None
    while True:
        done = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
        if done is not None and done.si_pid == process.pid:
            break
        elapsed = time.perf_counter() - started
        if kill_when is not None and killed_at is None and kill_when(bytes(stderr), elapsed):
            os.kill(process.pid, signal.SIGKILL)
            killed_at = elapsed
        time.sleep(poll)
    wall = time.perf_counter() - started
    io = _read_io(process.pid)  # still a zombie: its counters are final
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join(timeout=5)
    if master is not None:
        os.close(master)
    child = Child(argv, process.returncode, wall, usage.ru_maxrss / 1024, io, bytes(stdout), bytes(stderr), killed_at)
    if check and killed_at is None and child.returncode != 0:
        raise SystemExit(f"child failed ({child.returncode}): {' '.join(argv)}\n{child.stderr[-3000:].decode(errors='replace')}")
    return child


@dataclass(frozen=True)
class Tree:
    """A checkout whose ``rag`` a child runs (``PYTHONPATH`` and working directory)."""

    name: str
    path: Path

    def env(self, *, write_bytecode: bool = False) -> dict[str, str]:
        env = dict(os.environ, PYTHONPATH=str(self.path), RAG_BENCH_TREE=str(self.path), PYTHONUNBUFFERED="1")
        if not write_bytecode:
            # A timed run must not write .pyc files (other people edit this tree meanwhile):
            # they would count as bytes written. The first (build) run of a tree writes them.
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

    def rag_index(self, sources: list[Path], index: Path, embeddings: str, **options: Any) -> Child:
        argv = [sys.executable, "-m", "rag", "index", *map(str, sources), "--index", str(index),
                "--embeddings", embeddings, "--json"]
        return run_child(argv, cwd=self.path, env=self.env(write_bytecode=options.pop("write_bytecode", False)),
                         **options)

    def revision(self) -> str:
        try:
            described = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=self.path, capture_output=True,
                                       text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"
        return described


# ---------------------------------------------------------------------------- folders


def snapshot(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Every file under ``folder``: relative path -> (size, mtime_ns, inode)."""
    if not folder.exists():
        return {}
    out = {}
    for path in folder.rglob("*"):
        if path.is_file():
            stat = path.stat()
            out[str(path.relative_to(folder))] = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    return out


def folder_diff(before: dict[str, tuple[int, int, int]], after: dict[str, tuple[int, int, int]]) -> dict[str, int]:
    changed = [name for name, facts in after.items() if before.get(name) != facts]
    return {"files_new_or_changed": len(changed), "bytes_new_or_changed": sum(after[name][0] for name in changed),
            "files_removed": len(set(before) - set(after))}


def folder_bytes(folder: Path) -> int:
    return sum(size for size, _, _ in snapshot(folder).values())


def fresh(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def html_files(corpus: Path) -> list[Path]:
    return sorted(path for path in corpus.iterdir() if path.is_file() and path.suffix == ".html")


def copy_files(files: list[Path], target: Path) -> Path:
    fresh(target).mkdir(parents=True)
    for path in files:
        shutil.copy2(path, target / path.name)
    return target


_BLOCK = re.compile(rb"(<(?:p|li|td|dt|dd|pre)\b[^>]*>)", re.IGNORECASE)


def unique_copy(corpus: Path, target: Path, copy: int) -> int:
    """The corpus under ``target``, a token naming the copy at the start of every paragraph,
    list item, table cell and preformatted block (so no chunk equals another copy's)."""
    token = f"zqcopy{copy:02d}tok ".encode()
    fresh(target).mkdir(parents=True)
    blocks = 0
    for path in sorted(corpus.iterdir()):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.suffix == ".html":
            data, count = _BLOCK.subn(lambda match: match.group(1) + token, data)
            blocks += count
        (target / path.name).write_bytes(data)
    return blocks


# ---------------------------------------------------------------------------- formatting


def mib(count: float) -> str:
    return f"{count / 2**20:,.1f} MiB"


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def show(title: str, rows: list[list[str]], header: list[str]) -> None:
    print(f"\n## {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(" --- " for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    sys.stdout.flush()


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- parts


def part_noop(args: argparse.Namespace, before: Tree, after: Tree, work: Path, corpus: Path,
              results: dict[str, Any]) -> None:
    trees = [before, after]
    source = copy_files(sorted(p for p in corpus.iterdir() if p.is_file()), work / "noop-src")
    runs: dict[str, dict[str, Any]] = {}
    for tree in trees:
        index = fresh(work / f"noop-{tree.name}")
        log(f"noop: {tree.name} build of {source} (a copy of {corpus})")
        build = tree.rag_index([source], index, "hashing", write_bytecode=True)
        size = folder_bytes(index)
        runs[tree.name] = {"index": index, "build": build, "size": size, "noops": []}
    for repeat in range(args.repeats):
        for tree in trees if repeat % 2 == 0 else trees[::-1]:
            index = runs[tree.name]["index"]
            state = snapshot(index)
            child = tree.rag_index([source], index, "hashing")
            child.notes["diff"] = folder_diff(state, snapshot(index))
            runs[tree.name]["noops"].append(child)
            log(f"noop: {tree.name} re-run {repeat + 1}: {child.wall:.2f} s")
    # One paragraph added to one file: what a run with a change reads and writes.
    edited = html_files(source)[len(html_files(source)) // 2]
    data = edited.read_bytes()
    edited.write_bytes(data.replace(b"</body>", b"<p>An added paragraph: zqeditedtok.</p></body>", 1))
    for tree in trees:
        index = runs[tree.name]["index"]
        state = snapshot(index)
        child = tree.rag_index([source], index, "hashing")
        child.notes["diff"] = folder_diff(state, snapshot(index))
        runs[tree.name]["edit"] = child
        log(f"noop: {tree.name} run after editing {edited.name}: {child.wall:.2f} s")

    rows = []
    for tree in trees:
        run = runs[tree.name]
        for label, children in (("no-op", run["noops"]), (f"1 file edited", [run["edit"]])):
            summary = children[-1].summary_json()
            rows.append([
                f"{tree.name} ({tree.revision()})", label,
                f"{median([c.wall for c in children]):.2f} s ({', '.join(f'{c.wall:.2f}' for c in children)})",
                f"{median([c.summary_json()['seconds'] for c in children]):.3f} s",
                f"{median([c.file_wchar for c in children]):,.0f}",
                f"{median([c.write_bytes for c in children]):,.0f}",
                f"{median([c.notes['diff']['files_new_or_changed'] for c in children]):.0f} / "
                f"{median([c.notes['diff']['bytes_new_or_changed'] for c in children]):,.0f}",
                mib(median([c.io.get("rchar", 0) for c in children])),
                f"{median([c.maxrss_mib for c in children]):.0f} MiB",
                f"{summary.get('documents')} / {summary.get('skipped')}",
            ])
    walls = {tree.name: median([c.wall for c in runs[tree.name]["noops"]]) for tree in trees}
    seconds = {tree.name: median([c.summary_json()["seconds"] for c in runs[tree.name]["noops"]]) for tree in trees}
    show(f"No-op re-index, {corpus} (copied; --embeddings hashing; median of {args.repeats}), then one file edited",
         rows, ["tree", "run", "wall", "update() seconds", "bytes written (wchar - stdio)", "write_bytes",
                "index files / bytes new or changed", "read (rchar)", "peak RSS", "documents read / unchanged"])
    print(f"\nno-op speed-up after vs before: {walls['before'] / walls['after']:.1f}x wall, "
          f"{seconds['before'] / seconds['after']:.1f}x update() seconds")
    results["noop"] = {tree.name: {
        "revision": tree.revision(),
        **{key: [c.wall for c in runs[tree.name]["noops"]] for key in ("wall",)},
        "update_seconds": [c.summary_json()["seconds"] for c in runs[tree.name]["noops"]],
        "file_wchar": [c.file_wchar for c in runs[tree.name]["noops"]],
        "write_bytes": [c.write_bytes for c in runs[tree.name]["noops"]],
        "rchar": [c.io.get("rchar", 0) for c in runs[tree.name]["noops"]],
        "diff": [c.notes["diff"] for c in runs[tree.name]["noops"]],
        "maxrss_mib": [c.maxrss_mib for c in runs[tree.name]["noops"]],
        "edit": {"wall": runs[tree.name]["edit"].wall, "update_seconds": runs[tree.name]["edit"].summary_json()["seconds"],
                 "file_wchar": runs[tree.name]["edit"].file_wchar, "write_bytes": runs[tree.name]["edit"].write_bytes,
                 "diff": runs[tree.name]["edit"].notes["diff"], "index_bytes": folder_bytes(runs[tree.name]["index"])},
    } for tree in trees}
    breakdown = {tree.name: noop_breakdown(tree, runs[tree.name]["index"], source, args.repeats) for tree in trees}
    show("Where a no-op run's time goes (fresh children, medians; the index already holds the edit)", [
        [tree.name, *(f"{breakdown[tree.name][key]:.3f} s" for key in ("python startup", "import", "open", "update"))]
        for tree in trees], ["tree", "python -c pass", "import rag.cli.app + rag.index", "Index.open_or_create", "update()"])
    results["noop"]["breakdown"] = breakdown
    results["noop"]["ratio_wall"] = walls["before"] / walls["after"]
    results["noop"]["ratio_update_seconds"] = seconds["before"] / seconds["after"]
    results["builds"] = results.get("builds", [])
    for tree in trees:
        run = runs[tree.name]
        results["builds"].append(build_row(f"{tree.name}, hashing, {corpus.name} ({len(html_files(corpus))} HTML)",
                                           run["build"], run["size"]))


_NOOP_BREAKDOWN = r"""
import json, sys, time
began = time.perf_counter()
from rag.process_defaults import apply_process_defaults
apply_process_defaults()
import rag.cli.app
from rag.index import Index
imported = time.perf_counter()
index = Index.open_or_create(sys.argv[1])  # what rag index calls
opened = time.perf_counter()
summary = index.update([sys.argv[2]])
updated = time.perf_counter()
print(json.dumps({"import": imported - began, "open": opened - imported, "update": updated - opened,
                  "read": summary.documents}))
"""


def noop_breakdown(tree: Tree, index: Path, source: Path, repeats: int) -> dict[str, float]:
    """Where a no-op run's wall time goes: interpreter start (``python -c pass``), imports,
    ``Index.open_or_create`` (as ``rag index``), ``update`` (medians of ``repeats`` fresh children)."""
    startup = [run_child([sys.executable, "-c", "pass"], cwd=tree.path, env=tree.env()).wall for _ in range(repeats)]
    parts = [run_child([sys.executable, "-c", _NOOP_BREAKDOWN, str(index), str(source)], cwd=tree.path,
                       env=tree.env()).summary_json() for _ in range(repeats)]
    return {"python startup": median(startup), **{key: median([p[key] for p in parts])
                                                  for key in ("import", "open", "update")}}


def build_row(label: str, child: Child, size: int) -> dict[str, Any]:
    summary = child.summary_json()
    return {"label": label, "wall": child.wall, "chunks": summary.get("total_chunks"), "file_wchar": child.file_wchar,
            "write_bytes": child.write_bytes, "index_bytes": size, "maxrss_mib": child.maxrss_mib}


def show_builds(results: dict[str, Any]) -> None:
    rows = [[b["label"], f"{b['chunks']:,}", f"{b['wall']:.1f} s", mib(b["file_wchar"]), mib(b["write_bytes"]),
             mib(b["index_bytes"]), f"{b['file_wchar'] / b['index_bytes']:.2f}x",
             f"{b['write_bytes'] / b['index_bytes']:.2f}x"] for b in results.get("builds", [])]
    show("Bytes written by a full build against the final index size", rows,
         ["build", "chunks", "wall", "written (wchar - stdio)", "write_bytes", "final index folder",
          "wchar / size", "write_bytes / size"])


def chunks_per_file(after: Tree, work: Path, files: list[Path]) -> dict[str, int]:
    """Chunks of each file (a hashing index of ``files``: chunking does not depend on the model)."""
    source = copy_files(files, work / "count-src")
    index = fresh(work / "count-index")
    after.rag_index([source], index, "hashing", write_bytecode=True)
    code = ("import json, sys; from rag.index import Index; "
            "print(json.dumps({k: len(v) for k, v in Index.open(sys.argv[1]).sources().items()}))")
    child = run_child([sys.executable, "-c", code, str(index)], cwd=after.path, env=after.env())
    counts = json.loads(child.stdout)
    return {Path(source_path).name: count for source_path, count in counts.items()}


def first_files(files: list[Path], counts: dict[str, int], chunks: int) -> list[Path]:
    chosen, total = [], 0
    for path in files:
        if total >= chunks:
            break
        if path.name in counts:  # files the index leaves out (generated pages) are not copied
            chosen.append(path)
            total += counts[path.name]
    return chosen


def _kill_and_rerun(label: str, run: Callable[..., Child], index: Path, total: int, tree: Tree) -> dict[str, Any]:
    """Build into a fresh ``index``, SIGKILL once half of ``total`` chunks are embedded (as
    the child's progress output says), check that the interrupted index opens (``Index.open``
    in a fresh child), then re-run; the re-run's ``chunks`` were embedded again."""
    target = total // 2

    def half_embedded(stderr: bytes, elapsed: float) -> bool:
        found = _EMBED_PROGRESS.findall(stderr)
        return bool(found) and int(found[-1]) >= target

    log(f"kill ({label}): build, SIGKILL once {target} chunks are embedded")
    killed = run(fresh(index), kill_when=half_embedded, poll=0.02)
    progress = _EMBED_PROGRESS.findall(killed.stderr)
    embedded = int(progress[-1]) if progress else 0
    try:
        manifest = json.loads((index / "manifest.json").read_text())
        committed = sum(part["rows"] for part in manifest.get("segments") or [])
    except (OSError, ValueError):
        committed = 0
    opened = run_child([sys.executable, "-c", _OPEN_ONLY, str(index)], cwd=tree.path, env=tree.env(), check=False)
    if opened.returncode == 0:
        loaded: Any = opened.summary_json()["chunks"]
    elif b"IndexNotFoundError" in opened.stderr and committed == 0:
        loaded = "no index yet (nothing committed)"
    else:
        loaded = f"error: {opened.stderr[-300:].decode(errors='replace')}"
    log(f"kill ({label}): killed at {killed.killed_at:.1f} s, {embedded} embedded, {committed} committed, "
        f"Index.open: {loaded}; re-run")
    rerun = run(index)
    summary = rerun.summary_json()
    return {"label": label, "chunks": total, "killed_at": killed.killed_at, "killed_returncode": killed.returncode,
            "embedded_at_kill": embedded, "committed_at_kill": committed, "opened_after_kill": loaded,
            "rerun_chunks": summary["chunks"],
            "share": summary["chunks"] / total, "total_after_rerun": summary["total_chunks"], "rerun_wall": rerun.wall}


def part_kill(args: argparse.Namespace, after: Tree, work: Path, corpus: Path, results: dict[str, Any]) -> None:
    files = html_files(corpus)
    counts = chunks_per_file(after, work, files)
    chosen = first_files(files, counts, args.kill_chunks)
    total = sum(counts[path.name] for path in chosen)
    source = copy_files(chosen, work / "kill-src")
    log(f"kill: {len(chosen)} files, {total} chunks; reference build (local model)")
    reference_index = fresh(work / "kill-reference")
    reference = after.rag_index([source], reference_index, "local", write_bytecode=True)
    results.setdefault("builds", []).append(build_row(f"after, local, first {len(chosen)} files", reference,
                                                      folder_bytes(reference_index)))
    log(f"kill: reference {reference.wall:.1f} s, {reference.summary_json()['chunks']} chunks embedded")

    def cli(index: Path, **options: Any) -> Child:  # rag index draws its progress bar on a terminal only
        return after.rag_index([source], index, "local", tty_stderr=True, **options)

    rows = [_kill_and_rerun("rag index (checkpoint every 512 chunks)", cli, work / "kill-index", total, after)]
    for every in args.kill_checkpoints:
        def library(index: Path, every: int = every, **options: Any) -> Child:
            return update_child(after, [source], index, "local", checkpoint_chunks=every, **options)

        rows.append(_kill_and_rerun(f"Index.update, checkpoint_chunks={every}", library, work / f"kill-{every}", total, after))
    show(f"SIGKILL at about half of the embedding, then a re-run (--embeddings local, first {len(chosen)} files, "
         f"reference build {reference.wall:.1f} s)", [[
             r["label"], f"{r['chunks']:,}", f"{r['killed_at']:.1f} s (rc {r['killed_returncode']})",
             f"{r['embedded_at_kill']:,} ({r['embedded_at_kill'] / total:.0%})",
             f"{r['committed_at_kill']:,} ({r['committed_at_kill'] / total:.0%})", str(r["opened_after_kill"]),
             f"{r['rerun_chunks']:,}",
             f"{r['share']:.1%}", f"{r['total_after_rerun']:,}", f"{r['rerun_wall']:.1f} s"] for r in rows],
         ["run", "chunks", "killed after", "embedded when killed", "committed when killed",
          "chunks Index.open loads after the kill", "re-run embedded",
          "share embedded again", "chunks after re-run", "re-run wall"])
    results["kill"] = {"files": len(chosen), "chunks": total, "reference_wall": reference.wall, "runs": rows}


# ---------------------------------------------------------------------------- library children

_OPEN_ONLY = r"""
import gc, json, sys
from rag.process_defaults import apply_process_defaults
apply_process_defaults()
from rag.index import Index
index = Index.open(sys.argv[1])
gc.collect()
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(json.dumps({"chunks": len(index), "resident_mib": int(status["VmRSS"].split()[0]) / 1024}))
"""


def _status_mib(field_name: str) -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field_name + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def update_child(tree: Tree, sources: list[Path], index: Path, embeddings: str, *, checkpoint_chunks: int = 0,
                 **options: Any) -> Child:
    """``Index.update`` in a child process (this script's ``--child-update``): prints ``embed N``
    progress lines on stderr and a JSON summary with memory figures on stdout."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--child-update", str(index), embeddings,
            str(checkpoint_chunks), *map(str, sources)]
    return run_child(argv, cwd=tree.path, env=tree.env(), **options)


def child_update(index_path: str, embeddings: str, checkpoint_chunks: str, *sources: str) -> None:
    import gc

    from rag.index import Index

    index = Index.open_or_create(index_path, embeddings=embeddings)
    if int(checkpoint_chunks):
        index.checkpoint_chunks = int(checkpoint_chunks)
    began = time.perf_counter()
    stream = {"max_mib": 0.0, "hwm_mib": 0.0, "last": began}

    def progress(stage: str, done: int, total: int) -> None:
        stream["max_mib"] = max(stream["max_mib"], _status_mib("VmRSS"))
        stream["hwm_mib"] = _status_mib("VmHWM")  # the peak so far, transients between calls included
        stream["last"] = time.perf_counter()
        if stage == "embed":
            print(f"embed {done}", file=sys.stderr, flush=True)

    summary = index.update(list(sources), progress=progress)
    ended = time.perf_counter()
    peak = _status_mib("VmHWM")
    gc.collect()
    print(json.dumps({**summary.to_json(), "streaming_max_mib": stream["max_mib"],
                      "streaming_hwm_mib": stream["hwm_mib"], "peak_mib": peak,
                      "resident_after_mib": _status_mib("VmRSS"), "update_seconds": ended - began,
                      "after_last_progress_seconds": ended - stream["last"]}))


def part_rss(args: argparse.Namespace, after: Tree, work: Path, corpus: Path, results: dict[str, Any]) -> None:
    copies_root = work / "copies"
    copies = []
    for copy in range(args.copies):
        target = copies_root / f"copy{copy:02d}"
        blocks = unique_copy(corpus, target, copy)
        copies.append(target)
    log(f"rss: {args.copies} copies under {copies_root} ({blocks:,} tokened blocks per copy)")
    rows, measured = [], {}
    for label, sources in (("1x", copies[:1]), (f"{args.copies}x", copies)):
        index = fresh(work / f"rss-{label}")
        log(f"rss: rag index {label}")
        build = after.rag_index(sources, index, "hashing", write_bytecode=True)
        size = folder_bytes(index)
        results.setdefault("builds", []).append(build_row(f"after, hashing, {label} tokened copies", build, size))
        opened = run_child([sys.executable, "-c", _OPEN_ONLY, str(index)], cwd=after.path, env=after.env())
        open_resident = opened.summary_json()["resident_mib"]
        log(f"rss: Index.update {label} (library child: streaming phase and resident size)")
        library = update_child(after, sources, fresh(work / f"rss-{label}-library"), "hashing")
        lib = library.summary_json()
        chunks = build.summary_json()["total_chunks"]
        measured[label] = {
            "chunks": chunks, "wall": build.wall, "peak_mib": build.maxrss_mib, "index_bytes": size,
            "open_peak_mib": opened.maxrss_mib, "open_resident_mib": open_resident,
            "net_mib": build.maxrss_mib - open_resident,
            "library_peak_mib": lib["peak_mib"], "library_streaming_max_mib": lib["streaming_max_mib"],
            "library_resident_after_mib": lib["resident_after_mib"],
            "library_streaming_hwm_mib": lib["streaming_hwm_mib"],
            "library_update_seconds": lib["update_seconds"],
            "library_after_last_progress_seconds": lib["after_last_progress_seconds"],
        }
        m = measured[label]
        rows.append([label, f"{chunks:,}", f"{build.wall:.1f} s", mib(size), f"{m['peak_mib']:,.0f} MiB",
                     f"{open_resident:,.0f} MiB (peak {opened.maxrss_mib:,.0f})", f"{m['net_mib']:,.0f} MiB",
                     f"{m['library_streaming_max_mib']:,.0f} / {m['library_streaming_hwm_mib']:,.0f} / "
                     f"{m['library_peak_mib']:,.0f} MiB",
                     f"{m['library_after_last_progress_seconds']:.1f} of {m['library_update_seconds']:.1f} s"])
    show("Peak RSS of indexing (--embeddings hashing)", rows,
         ["corpus", "chunks", "rag index wall", "index folder", "rag index peak RSS (raw)",
          "resident after Index.open (fresh child)", "net: peak - resident after open",
          "Index.update child: RSS while streaming (max at progress calls) / peak by the last progress call / peak",
          "final commit (after last progress)"])
    one, many = measured["1x"], measured[f"{args.copies}x"]
    def ratio(key: str) -> str:
        return f"{many[key] / one[key]:.2f}x" if one[key] > 0 else "n/a"

    print(f"\n{args.copies}x / 1x: chunks {ratio('chunks')}; raw peak {ratio('peak_mib')}; "
          f"net (peak - resident after open) {ratio('net_mib')}")
    results["rss"] = measured


def langchain_child(folder: Path, out: Path, model: str) -> None:
    """LangChain's pipeline, as a user would write it, with our model behind its Embeddings."""
    from langchain_community.document_loaders import BSHTMLLoader, DirectoryLoader
    from langchain_community.vectorstores import FAISS as LangChainFAISS
    from langchain_core.embeddings import Embeddings as LangChainEmbeddings
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from rag.embeddings import HashingEmbeddings, LocalEmbeddings

    class Wrapped(LangChainEmbeddings):
        def __init__(self) -> None:
            self.inner = LocalEmbeddings() if model == "local" else HashingEmbeddings()

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return self.inner.embed_documents(texts)  # lists already, as LangChain's

        def embed_query(self, text: str) -> list[float]:
            return self.inner.embed_query(text)

    began = time.perf_counter()
    documents = DirectoryLoader(str(folder), glob="**/*.html", loader_cls=BSHTMLLoader).load()
    chunks = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).split_documents(documents)
    store = LangChainFAISS.from_documents(chunks, Wrapped())
    store.save_local(str(out))
    seconds = time.perf_counter() - began
    print(json.dumps({"documents": len(documents), "total_chunks": len(chunks), "seconds": seconds,
                      "tokens": _tokens([chunk.page_content for chunk in chunks])}))


def _tokens(texts: list[str]) -> int:
    """Tokens the MiniLM model sees for ``texts`` (truncated at its 256)."""
    from rag.embeddings import LocalEmbeddings

    _, tokenizer = LocalEmbeddings()._load()
    return sum(len(encoding.ids) for encoding in tokenizer.encode_batch(texts))


_INDEX_TOKENS = r"""
import json, sys
from rag.embeddings import LocalEmbeddings
from rag.index import Index
index = Index.open(sys.argv[1])
ids = [chunk_id for chunk_ids in index.sources().values() for chunk_id in chunk_ids]
texts = [d.page_content for d in index.backend._state.store.get_by_ids(ids)]
_, tokenizer = LocalEmbeddings()._load()
print(json.dumps({"tokens": sum(len(e.ids) for e in tokenizer.encode_batch(texts))}))
"""


def part_langchain(args: argparse.Namespace, after: Tree, work: Path, corpus: Path, results: dict[str, Any]) -> None:
    files = html_files(corpus)[: args.langchain_files]
    source = copy_files(files, work / "langchain-src")
    log(f"langchain: {len(files)} files")
    results["langchain"] = {"files": len(files)}
    for model, repeats in (("hashing", 3), ("local", args.langchain_repeats)):
        sides: dict[str, list[tuple[Child, int]]] = {"langchain": [], "ours": []}
        for repeat in range(repeats):
            order = ["langchain", "ours"] if repeat % 2 == 0 else ["ours", "langchain"]
            for side in order:
                out = fresh(work / f"langchain-{side}-{model}")
                if side == "ours":
                    child = after.rag_index([source], out, model, write_bytecode=repeat == 0)
                else:
                    child = run_child([sys.executable, str(Path(__file__).resolve()), "--child-langchain", str(source),
                                       str(out), model], cwd=after.path, env=after.env(write_bytecode=repeat == 0))
                sides[side].append((child, folder_bytes(out)))
                log(f"langchain: {model} {side} {child.wall:.1f} s, {child.maxrss_mib:.0f} MiB")
        tokens = {"langchain": sides["langchain"][-1][0].summary_json()["tokens"]}
        tokens["ours"] = json.loads(run_child([sys.executable, "-c", _INDEX_TOKENS, str(work / f"langchain-ours-{model}")],
                                              cwd=after.path, env=after.env()).stdout)["tokens"]
        rows, figures = [], {}
        for side in ("langchain", "ours"):
            runs = sides[side]
            chunks = runs[-1][0].summary_json()["total_chunks"]
            wall = median([c.wall for c, _ in runs])
            rss = median([c.maxrss_mib for c, _ in runs])
            figures[side] = {"wall": wall, "rss": rss, "chunks": chunks, "tokens": tokens[side],
                             "walls": [c.wall for c, _ in runs], "rsss": [c.maxrss_mib for c, _ in runs],
                             "folder_bytes": runs[-1][1]}
            rows.append([side, f"{chunks:,}", f"{tokens[side]:,}",
                         f"{wall:.1f} s ({', '.join(f'{c.wall:.1f}' for c, _ in runs)})",
                         f"{chunks / wall:.1f}", f"{tokens[side] / wall:,.0f}", f"{rss:,.0f} MiB", mib(runs[-1][1])])
        show(f"End to end, {len(files)} HTML files, {model} embeddings on both sides (median of {repeats})", rows,
             ["pipeline", "chunks", "model tokens", "wall", "chunks/s", "tokens/s", "peak RSS", "saved folder"])
        lc, ours = figures["langchain"], figures["ours"]
        print(f"\nLangChain / ours ({model}): wall {lc['wall'] / ours['wall']:.2f}x, peak RSS {lc['rss'] / ours['rss']:.2f}x, "
              f"time per model token {(lc['wall'] / lc['tokens']) / (ours['wall'] / ours['tokens']):.2f}x")
        results["langchain"][model] = figures


# ---------------------------------------------------------------------------- main

PARTS = ("noop", "build", "kill", "rss", "langchain")


def main() -> int:
    apply_process_defaults()
    if sys.argv[1:2] == ["--child-update"]:
        child_update(*sys.argv[2:])
        return 0
    if sys.argv[1:2] == ["--child-langchain"]:
        langchain_child(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"HTML folder (default {DEFAULT_CORPUS})")
    parser.add_argument("--before-tree", type=Path, default=Path("/tmp/rag-before"),
                        help=f"a worktree of {BEFORE_COMMIT} (git worktree add /tmp/rag-before {BEFORE_COMMIT})")
    parser.add_argument("--after-tree", type=Path, default=REPO, help="the checkout measured as 'after' (default: this one)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/rag-indexing-bench"),
                        help="scratch folder for copies and indexes (emptied first)")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--repeats", type=int, default=3, help="no-op re-runs per tree (median; default 3)")
    parser.add_argument("--kill-chunks", type=int, default=1500, help="chunks in the kill test's subset (default 1500)")
    parser.add_argument("--kill-checkpoints", type=int, nargs="*", default=[64], metavar="N",
                        help="also kill Index.update with checkpoint_chunks=N (library, default 64; none: skip)")
    parser.add_argument("--copies", type=int, default=16, help="copies of the corpus for the RSS test (default 16)")
    parser.add_argument("--langchain-files", type=int, default=120, help="HTML files for the LangChain comparison")
    parser.add_argument("--langchain-repeats", type=int, default=3,
                        help="runs per side with the local model (alternating; median; default 3)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write every figure as JSON")
    parser.add_argument("--quick", action="store_true", help="smoke run: 40 files, 1 repeat, 2 copies, small subsets")
    args = parser.parse_args()

    work = args.work
    fresh(work).mkdir(parents=True)
    corpus = args.corpus
    if not corpus.is_dir():
        parser.error(f"no corpus at {corpus}: apt-get install -y postgresql-doc-15, or pass --corpus DIR")
    if args.quick:
        corpus = copy_files(html_files(corpus)[:40], work / "quick-corpus")
        args.repeats, args.copies, args.kill_chunks, args.langchain_files = 1, 2, 200, 10
        args.langchain_repeats = 1
    after = Tree("after", args.after_tree.resolve())
    before = Tree("before", args.before_tree)
    if "noop" in args.parts and not (before.path / "rag" / "index").is_dir():
        parser.error(f"no 'before' tree at {before.path}: git worktree add {before.path} {BEFORE_COMMIT}")

    print(f"# Indexing benchmark, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, Python "
          f"{sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}; after = {after.revision()}")
    results: dict[str, Any] = {"corpus": str(corpus), "quick": args.quick, "after": after.revision()}
    started = time.perf_counter()
    if "noop" in args.parts:
        part_noop(args, before, after, work, corpus, results)
    if "kill" in args.parts:
        part_kill(args, after, work, corpus, results)
    if "rss" in args.parts:
        part_rss(args, after, work, corpus, results)
    if "build" in args.parts:
        if not results.get("builds"):  # noop, kill and rss not run: one hashing build of this tree
            index = fresh(work / "build-after")
            results["builds"] = [build_row(f"after, hashing, {corpus.name}",
                                           after.rag_index([corpus], index, "hashing", write_bytecode=True),
                                           folder_bytes(index))]
        show_builds(results)
    if "langchain" in args.parts:
        part_langchain(args, after, work, corpus, results)
    print(f"\ntotal {time.perf_counter() - started:.0f} s, load average at the end {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
