"""Manifest fuzzing (issue 35): a few hundred seeded mutations of a real index's manifest,
each of which must end in a clean error (a RagError naming the manifest) or in searches
returning exactly what the undamaged index returned. Bounded: a fixed seed and count, no
clock. Crafted manifests (a field changed and the checksum recomputed, as someone who
edits the file on purpose would) may change rankings, but must still never crash."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable

import pytest

from rag.errors import RagError
from rag.index import Index
from rag.index.manifest import with_checksum

SEED = 35
QUERIES = [("cats purr", "hybrid"), ("goldfish bowls", "bm25"), ("dogs bark", "similarity"), ("park walks", "mmr")]


def _results(folder: Path) -> list[list[tuple[str, float]]]:
    index = Index.open(folder)
    return [[(d.id, round(s, 9)) for d, s in index.search(q, k=3, search_type=t)] for q, t in QUERIES]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, bytes, list]:
    root = tmp_path_factory.mktemp("fuzz")
    docs = root / "docs"
    docs.mkdir()
    texts = ["Cats purr when they are content.", "Dogs bark at the postman and love long walks in the park.",
             "Goldfish swim in bowls.", "Parrots repeat words.", "Hamsters run in wheels at night."]
    index = Index.create(root / "ix", embeddings="hashing", chunk_size=40, chunk_overlap=5)
    index.checkpoint_chunks = 2  # several segments, so entries can be dropped or reordered
    for number, text in enumerate(texts):
        (docs / f"doc{number}.md").write_text(text)
        index.update([str(docs)])
    folder = root / "ix"
    return folder, (folder / "manifest.json").read_bytes(), _results(folder)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys/indexes) to a value inside ``value``."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for number, item in enumerate(value):
            found += _paths(item, prefix + (number,))
    return found


_REPLACEMENTS: list[Callable[[random.Random], Any]] = [
    lambda rng: None, lambda rng: [], lambda rng: {}, lambda rng: "", lambda rng: "x" * rng.randint(1, 50),
    lambda rng: -1, lambda rng: 0, lambda rng: 10 ** 30, lambda rng: True, lambda rng: 1.5, lambda rng: [[[]]],
    lambda rng: {"name": "../.."}, lambda rng: rng.randint(-5, 5000),
]


def _mutate_field(data: dict, rng: random.Random) -> dict:
    data = json.loads(json.dumps(data))
    path = rng.choice(_paths(data))
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    action = rng.randrange(4)
    if action == 0 and isinstance(parent, dict):
        del parent[last]
    elif action == 1 and isinstance(parent, list):
        parent.pop(last)
    elif action == 2 and isinstance(parent, dict):
        parent[last[:-1] + chr(ord(last[-1]) ^ 1) if last else "x"] = parent.pop(last)  # a key one bit off
    else:
        parent[last] = rng.choice(_REPLACEMENTS)(rng)
    return data


def _mutations(original: bytes, rng: random.Random) -> list[tuple[str, bytes, bool]]:
    """(kind, bytes, crafted): crafted mutations carry a recomputed checksum."""
    data = json.loads(original)
    out: list[tuple[str, bytes, bool]] = []
    for _ in range(150):
        position, bit = rng.randrange(len(original)), 1 << rng.randrange(8)
        flipped = bytearray(original)
        flipped[position] ^= bit
        out.append(("bit flip", bytes(flipped), False))
    for _ in range(50):
        damaged = bytearray(original)
        position = rng.randrange(len(damaged))
        kind = rng.choice(["byte", "delete", "insert", "truncate"])
        if kind == "byte":
            damaged[position] = rng.randrange(256)
        elif kind == "delete":
            del damaged[position:position + rng.randint(1, 8)]
        elif kind == "insert":
            damaged[position:position] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        else:
            del damaged[position:]
        out.append((kind, bytes(damaged), False))
    for _ in range(100):
        out.append(("field", json.dumps(_mutate_field(data, rng)).encode(), False))
    for _ in range(60):
        out.append(("crafted field", json.dumps(with_checksum(_mutate_field(data, rng))).encode(), True))
    return out


def test_every_manifest_mutation_is_a_clean_error_or_changes_nothing(built):
    folder, original, expected = built
    manifest = folder / "manifest.json"
    tried, held, failures = 0, 0, []
    try:
        for kind, payload, crafted in _mutations(original, random.Random(SEED)):
            tried += 1
            manifest.write_bytes(payload)
            try:
                got = _results(folder)
            except RagError as exc:
                clean = str(manifest) in str(exc) or str(folder) in str(exc)
                held += clean
                if not clean:
                    failures.append((kind, f"error without the file named: {exc}"))
                continue
            except Exception as exc:  # noqa: BLE001 -- exactly what this test counts
                failures.append((kind, f"{type(exc).__name__}: {exc}"[:200]))
                continue
            if got == expected or crafted:
                held += 1
            else:
                failures.append((kind, "opened and ranked differently"))
    finally:
        manifest.write_bytes(original)
    assert tried == 360
    assert held == tried, failures[:10]
    assert _results(folder) == expected  # the fuzzing left the index as it was
