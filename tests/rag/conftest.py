"""Fixtures shared by the tests of the rag package."""

from pathlib import Path

import pytest


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "cats.md").write_text("# Cats\n\nCats purr when they are content and sleep most of the day.\n")
    (folder / "dogs.txt").write_text("Dogs bark at the postman and love long walks in the park.\n")
    (folder / "sub" / "fish.md").write_text("# Fish\n\nGoldfish swim in bowls and remember more than people think.\n")
    return folder
