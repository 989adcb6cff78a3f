"""Conformance: searches running while an update runs, and updates from two processes at once."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable

from rag.index.testing._support import names, run_python, write_files

__all__ = ["ConcurrencyTests"]

#: The longest the tests wait for other threads or processes: a guard against a hang, not a
#: measurement (no test asserts how long anything takes).
PATIENCE = 300.0

_UPDATE_IN_A_PROCESS = """
import json, sys
from rag.index import Index
spec = json.loads(sys.argv[1])
index = Index.open_or_create(spec["target"], embeddings="hashing", **spec["location"])
print(json.dumps(index.update([sys.argv[2]]).to_json()), flush=True)
"""


def wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, "gave up waiting (a thread hung or died)"
        time.sleep(0.001)


class ConcurrencyTests:
    """An index is shared: searches never fail while it is updated, and concurrent writers
    lose nothing."""

    def test_searches_during_an_update_never_fail_and_always_find_something(self, indexed, docs):
        (docs / "owls.md").write_text("Owls hunt at night and at dusk; their feathers make no sound.")
        (docs / "dogs.md").unlink()
        write_files(docs / "more", {f"note-{n:03d}.md": f"Note {n} about topic{n % 17} and item{n}."
                                    for n in range(150)})
        errors: list[BaseException] = []
        empty: list[str] = []
        searches = [0]
        stop = threading.Event()

        def search_until_stopped(search_type: str) -> None:
            try:
                while not stop.is_set():
                    if not indexed.search("owls hunt at night", k=3, search_type=search_type):
                        empty.append(search_type)
                    searches[0] += 1
            except BaseException as exc:  # reported by the assertions below
                errors.append(exc)

        summaries = []

        def update() -> None:
            try:
                summaries.append(indexed.update([str(docs)]))
            except BaseException as exc:
                errors.append(exc)

        readers = [threading.Thread(target=search_until_stopped, args=(search_type,))
                   for search_type in ("hybrid", "similarity", "mmr", "bm25")]
        for reader in readers:
            reader.start()
        try:
            wait_for(lambda: searches[0] >= 20 or bool(errors))  # the searches are under way
            writer = threading.Thread(target=update)
            writer.start()
            writer.join(PATIENCE)
            after = searches[0]
            wait_for(lambda: searches[0] >= after + 20 or bool(errors))  # and go on after the update
        finally:
            stop.set()
            for reader in readers:
                reader.join(PATIENCE)
        assert errors == [] and empty == []
        assert [(s.added, s.updated, s.deleted) for s in summaries] == [(150, 1, 1)]
        assert names(indexed.search("owls hunt at dusk", k=1, search_type="bm25")) == ["owls.md"]

    def test_two_processes_updating_one_new_index_at_once_lose_nothing(self, make_index, tmp_path):
        roots = [write_files(tmp_path / side, {f"{side}-{n}.md": f"{side} note {n}: " + " ".join(
            f"word{n}x{i}" for i in range(40)) for n in range(15)}) for side in ("left", "right")]
        writers = [run_python(_UPDATE_IN_A_PROCESS, make_index.spec(), str(root), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for root in roots]
        outputs = [writer.communicate(timeout=PATIENCE) for writer in writers]
        assert [writer.returncode for writer in writers] == [0, 0], [err for _, err in outputs]
        assert [json.loads(out)["added"] for out, _ in outputs] == [15, 15]
        index = make_index.open()
        assert (index.info().sources, len(index)) == (30, 30)
        assert sorted(Path(root).name for root in index.info().roots) == ["left", "right"]
        assert sorted(name.split("-")[0] for name in names(index.search("word7x3", k=2, search_type="bm25"))) == [
            "left", "right"]
