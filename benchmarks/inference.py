"""Inference at the limit (issue 18, items 1 and 2): our embedding path against a bare
onnxruntime session on the same model, and the int8-arithmetic model against today's.

    python benchmarks/inference.py [--html DIR] [--files 60] [--chunks 120] [--rounds 3] [--json OUT]

Texts: the chunks ``rag index`` embeds for the first ``--files`` HTML files of ``--html``
(default: Debian's PostgreSQL 15 manual), loaded and split exactly as an update does
(:func:`rag.index.sources.iter_root` + the index's splitter, 1,000 / 200 characters); the
first ``--chunks`` of them.

- bare: ``tokenizers`` + ``onnxruntime`` alone on those texts, tokenization included, texts
  sorted by token count and cut into batches of 1, 4, 16 and 32 (padded per batch),
  ``intra_op_num_threads`` = cores, idle threads spinning (onnxruntime's default) or not.
  The best of these is the baseline.
- ours: ``InlineEmbedder(LocalEmbeddings())`` (what ``rag index`` runs in-process: groups of
  ``EMBED_BATCH`` texts, the model's default batch size), for ``local`` and ``local-int8``.

Every configuration runs once per round, each round starting at the next configuration
(so load changes hit all alike), and each keeps its best round. Ratios are of chunks per second.
The load average is printed before and after. Nothing here asserts a time.
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT_HTML = Path("/usr/share/doc/postgresql-doc-15/html")
BARE_BATCHES = (1, 4, 16, 32)


def index_chunks(folder: Path, files: int) -> list[str]:
    """The chunk texts an update embeds for the first ``files`` HTML files of ``folder``."""
    from rag.index.config import IndexConfig
    from rag.index.sources import iter_root, parse_root
    from splitters import RecursiveCharacterTextSplitter

    config = IndexConfig("hashing")
    splitter = RecursiveCharacterTextSplitter(chunk_size=config.chunk_size, chunk_overlap=config.chunk_overlap,
                                              add_start_index=True)
    with tempfile.TemporaryDirectory() as scratch:
        for path in sorted(folder.glob("*.html"))[:files]:
            shutil.copy(path, scratch)
        texts = []
        for item in iter_root(parse_root(scratch), glob=None):
            if item.documents:
                texts += [chunk.page_content for chunk in splitter.split_documents(item.documents)]
    return texts


class Bare:
    """tokenizers + onnxruntime and nothing else (the baseline)."""

    def __init__(self, model: bytes, batch: int, spin: bool = True) -> None:
        import onnxruntime
        import tokenizers

        from rag.embeddings.local import _default_tokenizer_path

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = os.cpu_count() or 1
        options.log_severity_level = 3
        if not spin:  # idle threads sleep instead of busy-waiting (onnxruntime's default is to spin)
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        self.tokenizer = tokenizers.Tokenizer.from_file(str(_default_tokenizer_path()))
        self.tokenizer.enable_truncation(max_length=256)
        self.tokenizer.no_padding()
        self.batch = batch

    def __call__(self, texts: list[str]) -> None:
        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
        for start in range(0, len(order), self.batch):
            rows = [encodings[i].ids for i in order[start:start + self.batch]]
            width = max(map(len, rows))
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, tokens in enumerate(rows):
                ids[row, :len(tokens)] = tokens
                mask[row, :len(tokens)] = 1
            self.session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask,
                                                      "token_type_ids": np.zeros_like(ids)})


def main(argv: list[str] | None = None) -> int:
    from rag.process_defaults import apply_process_defaults

    apply_process_defaults()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--html", type=Path, default=DEFAULT_HTML)
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--chunks", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    from rag.embeddings import LocalEmbeddings
    from rag.embeddings._quantize import cached_dynamic_int8
    from rag.embeddings._model_files import verified_bytes
    from rag.embeddings.local import DYNAMIC_INT8_SHA256, MODEL_SHA256, _default_model_path
    from rag.index.workers import InlineEmbedder

    texts = index_chunks(args.html, args.files)[: args.chunks]
    float_model = verified_bytes(_default_model_path(), MODEL_SHA256, "model file")
    int8_model = cached_dynamic_int8(_default_model_path(), MODEL_SHA256, DYNAMIC_INT8_SHA256)
    runs = {f"bare float batch {batch}{suffix}": Bare(float_model, batch, spin)
            for batch in BARE_BATCHES for spin, suffix in ((True, ""), (False, " no-spin"))}
    runs["bare int8 batch 1"] = Bare(int8_model, 1)
    runs["bare int8 batch 1 no-spin"] = Bare(int8_model, 1, spin=False)
    for name, arithmetic in (("ours local", "float"), ("ours local-int8", "int8")):
        embedder = InlineEmbedder(LocalEmbeddings(arithmetic=arithmetic))
        runs[name] = lambda texts, embedder=embedder: embedder.embed(texts, 384, None)
    for run in runs.values():
        run(texts[:4])  # sessions created, caches warm
    load_before = os.getloadavg()
    print(f"{len(texts)} chunks; load average {load_before}", flush=True)
    best = {name: float("inf") for name in runs}
    names = list(runs)
    for round_number in range(args.rounds):
        # Each round starts at another configuration: a load that changes during a round
        # favours no configuration in particular.
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            run = runs[name]
            started = time.perf_counter()
            run(texts)
            best[name] = min(best[name], time.perf_counter() - started)
            print(f"round {round_number + 1}: {name:22s} {len(texts) / best[name]:6.2f} chunks/s (best so far)", flush=True)
    rate = {name: len(texts) / seconds for name, seconds in best.items()}
    bare_best = max((name for name in rate if name.startswith("bare float")), key=rate.get)
    figures = {
        "chunks": len(texts), "chunks_per_second": rate, "best_bare": bare_best,
        "ours_over_best_bare": rate["ours local"] / rate[bare_best],
        "ours_int8_over_bare_int8": rate["ours local-int8"] / max(rate["bare int8 batch 1"],
                                                                  rate["bare int8 batch 1 no-spin"]),
        "int8_over_float_ours": rate["ours local-int8"] / rate["ours local"],
        "load_before": load_before, "load_after": os.getloadavg(),
    }
    print(f"\nbest bare: {bare_best}; ours / best bare = {figures['ours_over_best_bare']:.3f}; "
          f"ours int8 / bare int8 = {figures['ours_int8_over_bare_int8']:.3f}; "
          f"int8 / float (ours) = {figures['int8_over_float_ours']:.2f}x; load after {figures['load_after']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
