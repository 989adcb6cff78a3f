"""Answer extraction time: the rule-based answerer of commit 4da3017 against the current
one, on the same retrieved passages, alternating question by question in one process
(a ratio: the machines here are shared and noisy).

Usage: python benchmarks/answer_speed.py INDEX QA.tsv [QUESTIONS]
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OLD = "4da3017"  # the last commit with the rule-based answerer


def _old_answerer() -> type:
    folder = Path(tempfile.mkdtemp(prefix="old-answerer-"))
    for name in ("extractive", "units"):
        source = subprocess.run(["git", "show", f"{OLD}:rag/chains/{name}.py"], cwd=ROOT, check=True,
                                capture_output=True, text=True).stdout
        (folder / f"old_{name}.py").write_text(source.replace("from rag.chains.units import", "from old_units import"))
    sys.path.insert(0, str(folder))
    from old_extractive import ExtractiveAnswerer  # type: ignore[import-not-found]

    return ExtractiveAnswerer


def main(argv: list[str]) -> int:
    from rag.chains import ExtractiveAnswerer
    from rag.evaluation.answers import load_qa
    from rag.index import Index
    from rag.index.answer import IndexRetriever, passages
    from rag.index.request import SearchRequest

    index = Index.open(argv[0])
    items = load_qa(argv[1])[: int(argv[2]) if len(argv) > 2 else None]
    defaults = inspect.signature(Index.chain).parameters  # the context rag ask reads
    sources = passages(IndexRetriever(index, request=SearchRequest("", k=6, search_type="hybrid")),
                       get_by_ids=index.get_by_ids, window=defaults["window"].default,
                       openings=defaults["openings"].default, contents=defaults["contents"].default)
    contexts = [(item.question, sources.invoke(item.question)) for item in items]
    answerers = {"old": _old_answerer()(embeddings=index.embeddings), "new": ExtractiveAnswerer(embeddings=index.embeddings)}
    seconds = dict.fromkeys(answerers, 0.0)
    for round_number in range(2):  # each order once, so neither always runs second
        for question, context in contexts:
            for name in (("old", "new") if round_number == 0 else ("new", "old")):
                began = time.perf_counter()
                answerers[name].invoke({"input": question, "context": context})
                seconds[name] += time.perf_counter() - began
    runs = 2 * len(contexts)
    print(f"{argv[1]}: old {seconds['old'] / runs:.3f} s/question, new {seconds['new'] / runs:.3f} s/question, "
          f"new/old {seconds['new'] / seconds['old']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
