"""What the index conformance tests share: the fixture a backend overrides, the small
corpora the tests index, and helpers that read an index through its public API only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

import pytest

import rag

__all__ = ["IndexFixtures", "IndexMaker", "ANIMALS", "write_files", "names", "source_names", "snapshot",
           "run_python", "REPOSITORY"]

#: The folder that holds the ``rag`` package this process imported: child processes of the
#: tests (a killed update, concurrent writers) import the same code from it.
REPOSITORY = Path(rag.__file__).resolve().parents[1]

#: Four files, each the only one about its animal (an unambiguous query names one).
ANIMALS: Mapping[str, str] = {
    "cats.md": "Cats purr when they are content.\n\nThey sleep most of the day.",
    "fish.md": "Goldfish swim in ponds and glass bowls.",
    "owls.md": "Owls hunt at night; their feathers make no sound.",
    "dogs.md": "Dogs bark at the postman and love long walks in the park.",
}


class IndexMaker:
    """How a backend's tests reach a fresh index: ``target`` (a folder path or a database
    URI) and ``location``, the keyword arguments that name this test's index there
    (``{"collection": ...}`` for a database, nothing for a folder). Every index is built
    with ``embeddings="hashing"`` (fast, offline) unless a test asks for another.

    ``names``: how messages may name the backend (for what it refuses); ``shown``: text
    that ``index.where`` must contain (the folder, or the collection); ``secret``: a
    password in ``target``, which ``where`` must never show.

    Calling the maker creates an index (``Index.create``); :meth:`open` and
    :meth:`open_or_create` reach the same location again. :meth:`close` closes every index
    it handed out (database backends call it after each test).
    """

    def __init__(self, target: Union[str, Path], *, location: Optional[Mapping[str, Any]] = None,
                 names: Sequence[str] = (), shown: Optional[str] = None, secret: Optional[str] = None) -> None:
        self.target, self.location = target, dict(location or {})
        self.names, self.shown, self.secret = tuple(names), shown if shown is not None else str(target), secret
        self.handed_out: list[Any] = []

    def _kept(self, index: Any) -> Any:
        self.handed_out.append(index)
        return index

    def __call__(self, **options: Any) -> Any:
        from rag.index import Index

        options.setdefault("embeddings", "hashing")
        return self._kept(Index.create(self.target, **self.location, **options))

    def open(self, **options: Any) -> Any:
        from rag.index import Index

        return self._kept(Index.open(self.target, **self.location, **options))

    def open_or_create(self, **options: Any) -> Any:
        from rag.index import Index

        return self._kept(Index.open_or_create(self.target, **self.location, **options))

    def spec(self) -> str:
        """``target`` and ``location`` as JSON, for a child process to open the index by."""
        return json.dumps({"target": str(self.target), "location": self.location})

    def close(self) -> None:
        """Close every index handed out (each once, the last first)."""
        for index in reversed(self.handed_out):
            index.close()
        self.handed_out.clear()


class IndexFixtures:
    """The fixtures every capability's tests use. A backend's test module overrides
    ``make_index`` only, returning an :class:`IndexMaker` for a location no other test
    uses (and cleaning it up afterwards)."""

    @pytest.fixture
    def make_index(self) -> IndexMaker:  # pragma: no cover - overridden
        raise NotImplementedError("an index conformance subclass must define the make_index fixture")

    @pytest.fixture
    def index(self, make_index: IndexMaker) -> Any:
        """A new, empty index (hashing embeddings, default chunking)."""
        return make_index()

    @pytest.fixture
    def docs(self, tmp_path: Path) -> Path:
        """A folder of the four :data:`ANIMALS` files."""
        return write_files(tmp_path / "docs", ANIMALS)

    @pytest.fixture
    def indexed(self, index: Any, docs: Path) -> Any:
        """The index after one update of ``docs``."""
        index.update([str(docs)])
        return index


def write_files(folder: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``folder`` (made, with subfolders); returns it."""
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def names(found: Sequence[tuple[Any, float]]) -> list[str]:
    """The file names of the sources of search results, in result order."""
    return [Path(document.metadata["source"]).name for document, _ in found]


def source_names(index: Any) -> list[str]:
    """The file names of every source the index holds, sorted."""
    return sorted(Path(source).name for source in index.sources())


def snapshot(index: Any) -> tuple[Any, ...]:
    """What an index holds, as seen through its API: each source with its chunk ids and
    their texts, the chunk count, and what two searches find. Equal snapshots: nothing
    stored changed."""
    sources = {source: sorted(ids) for source, ids in index.sources().items()}
    texts = sorted((d.id, d.page_content) for d in index.get_by_ids([i for ids in sources.values() for i in ids]))
    found = [[(d.id, round(score, 6)) for d, score in index.search(query, k=4, search_type="similarity")]
             for query in ("owls hunt at night", "cats purr")]
    return sorted(sources.items()), texts, len(index), found


def run_python(script: str, *args: str, **popen: Any) -> subprocess.Popen:
    """Start ``python -c script args...`` importing this repository's code (as a separate
    process, another machine would)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPOSITORY),
                                                                       os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, "-c", script, *args], cwd=REPOSITORY, env=env, text=True, **popen)

