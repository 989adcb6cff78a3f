"""A small real index (hashing embeddings, two Markdown files) and a real server over it."""

from __future__ import annotations

from pathlib import Path

from rag.index import Index

CATS = "# Cats\n\nCats purr when they are content. A cat sleeps for sixteen hours a day.\n"
DOGS = "# Dogs\n\nDogs bark at strangers. Dogs were domesticated from wolves long ago.\n"


def build_index(folder: Path) -> Index:
    docs = folder / "docs"
    docs.mkdir()
    (docs / "cats.md").write_text(CATS)
    (docs / "dogs.md").write_text(DOGS)
    index = Index.create(folder / "index", embeddings="hashing")
    index.update([str(docs)])
    return index
