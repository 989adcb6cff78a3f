"""Fixtures for the splitter tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

_SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "data" / "beir" / "scifact" / "corpus.jsonl"

# Used when the shared corpus is not beside the repository: prose with paragraphs, lines,
# repeated sentences and long words.
_FALLBACK = [
    "Retrieval augmented generation.\n\nA retriever finds passages; a reader answers.\n"
    "The retriever ranks passages by similarity. " * 12,
    "word " * 400,
    "x" * 2500 + "\n\n" + "short line\n" * 40,
]


@pytest.fixture(scope="session")
def real_texts() -> list[str]:
    """About 300 real documents (title, blank line, abstract) from SciFact, or a fallback."""
    if not _SCIFACT.exists():
        return _FALLBACK
    texts = []
    with _SCIFACT.open(encoding="utf-8") as corpus:
        for number, line in enumerate(corpus):
            if number % 17:
                continue
            record = json.loads(line)
            texts.append(f"{record['title']}\n\n{record['text']}")
    return texts
