"""Searches running while an update commits see the index wholly before or wholly after it."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

from rag.index import Index

QUERIES = ["cats purr", "dogs bark postman", "goldfish bowls", "owls hunt mice", "parrots whistle"]


def _write(folder: Path, version: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in folder.iterdir():
        name.unlink()
    texts = {
        "cats.md": "Cats purr when they are content.",
        "dogs.txt": "Dogs bark at the postman.",
        "fish.md": "Goldfish swim in bowls.",
    }
    if version == 2:
        texts["cats.md"] = "Cats purr and chase owls that hunt mice."
        texts["owls.txt"] = "Owls hunt mice at night."
        texts["parrots.txt"] = "Parrots whistle tunes."
        del texts["dogs.txt"]
    for n in range(200):  # enough work that searches overlap the update's load, embed and commit
        texts[f"filler-{n:03d}.txt"] = f"Filler note {n} about topic{n % 17} and item{n}" + (" revised" if version == 2 and n % 2 else "")
    for name, text in texts.items():
        (folder / name).write_text(text)


def _answers(index: Index) -> dict[str, list[tuple[str, str]]]:
    return {q: [(d.id, d.page_content) for d, _ in index.search(q, k=3)] for q in QUERIES}


def test_eight_searching_threads_see_either_the_old_or_the_new_index(tmp_path):
    docs = tmp_path / "docs"
    _write(docs, 1)
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.checkpoint_chunks, index.checkpoint_seconds = 10**6, float("inf")  # one commit for the whole update
    index.update([str(docs)])
    old = _answers(index)
    # What the new state answers, computed on a copy updated alone.
    shutil.copytree(tmp_path / "ix", tmp_path / "copy")
    _write(docs, 2)
    copy = Index.open(tmp_path / "copy")
    copy.update([str(docs)])
    new = _answers(copy)
    assert old != new
    _write(docs, 1)  # back to the files the index holds; the update below brings version 2

    seen: list[tuple[str, list[tuple[str, str]]]] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def search_until_stopped() -> None:
        try:
            while not stop.is_set():
                for query in QUERIES:
                    seen.append((query, [(d.id, d.page_content) for d, _ in index.search(query, k=3)]))
        except BaseException as exc:  # reported below, with the assertion
            errors.append(exc)

    threads = [threading.Thread(target=search_until_stopped) for _ in range(8)]
    for thread in threads:
        thread.start()
    try:
        while len(seen) < 50 and not errors:  # let the searches get going before the update starts
            time.sleep(0.001)
        _write(docs, 2)
        index.update([str(docs)])
        after = len(seen)
        while len(seen) < after + 50 and not errors:
            time.sleep(0.001)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert errors == []
    assert seen, "the searching threads ran no search"
    assert all(result in (old[query], new[query]) for query, result in seen)
    assert _answers(index) == new


def test_the_write_lock_is_one_whatever_path_names_the_index_folder(tmp_path, monkeypatch):
    from rag.index.state import write_lock

    folder = tmp_path / "ix"
    folder.mkdir()
    (tmp_path / "link").symlink_to(folder)
    monkeypatch.chdir(folder)
    for other in (tmp_path / "link", Path(".")):
        waited = threading.Event()

        def second_writer():
            with write_lock(other, on_wait=waited.set):
                pass

        with write_lock(folder):
            writer = threading.Thread(target=second_writer)
            writer.start()
            assert waited.wait(10), f"{other} took the lock while {folder} held it"
        writer.join(10)
