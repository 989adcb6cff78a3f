"""Loading a BEIR-format dataset: corpus.jsonl, queries.jsonl and qrels/<split>.tsv."""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Union

from rag.documents import Document
from rag.errors import ValidationError

__all__ = ["BeirDataset", "load_beir", "read_corpus", "iter_corpus"]


@dataclass
class BeirDataset:
    """A retrieval test collection. ``doc_ids``/``titles``/``texts`` are aligned lists;
    ``queries`` maps query id to text (only queries that have judgements); ``qrels`` maps
    query id to {document id: grade}."""

    name: str
    doc_ids: list[str]
    titles: list[str]
    texts: list[str]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]

    def passages(self) -> list[str]:
        """What gets indexed: ``title + " " + text`` (BEIR's convention), stripped."""
        return [f"{title} {text}".strip() for title, text in zip(self.titles, self.texts)]

    def documents(self) -> list[Document]:
        """The passages as Documents, ``id`` = BEIR document id, ``metadata["title"]``."""
        return [Document(p, {"title": t}, i) for p, t, i in zip(self.passages(), self.titles, self.doc_ids)]


def _utf8_lines(path: Union[str, os.PathLike], newline: Union[str, None] = None) -> Iterator[str]:
    """The lines of a UTF-8 file, streamed; ValidationError naming the file when it is not UTF-8."""
    with open(path, encoding="utf-8", newline=newline) as handle:
        try:
            yield from handle
        except UnicodeDecodeError as exc:
            raise ValidationError(f"{path} is not UTF-8 text ({exc.reason})") from exc


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/")
    try:
        return [json.loads(line) for line in _utf8_lines(path) if line.strip()]
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{path} is not JSON lines: {exc}") from exc


def iter_corpus(path: Union[str, os.PathLike]) -> Iterator[tuple[int, Union[tuple[str, str, str], str]]]:
    """The lines of a BEIR ``corpus.jsonl``, one at a time: ``(line number, (id, title,
    text))``, or ``(line number, reason)`` for a line that is not a JSON object with an
    ``_id``. Blank lines are passed over."""
    for number, line in enumerate(_utf8_lines(path), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            yield number, (str(row["_id"]), row.get("title") or "", row.get("text") or "")
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
            yield number, f"not a BEIR corpus line ({type(exc).__name__}: {exc})"


def read_corpus(path: Union[str, os.PathLike]) -> tuple[list[tuple[str, str, str]], list[tuple[int, str]]]:
    """The documents of a BEIR ``corpus.jsonl``: ``(id, title, text)`` rows in file order,
    and ``(line number, reason)`` for each line that is not a JSON object with an ``_id``."""
    rows: list[tuple[str, str, str]] = []
    failed: list[tuple[int, str]] = []
    for number, outcome in iter_corpus(path):
        if isinstance(outcome, str):
            failed.append((number, outcome))
        else:
            rows.append(outcome)
    return rows, failed


def load_beir(folder: Union[str, os.PathLike], split: str = "test") -> BeirDataset:
    """Read a BEIR folder; keeps the queries judged in ``qrels/{split}.tsv``.

    >>> data = load_beir("../shared/data/beir/scifact")        # doctest: +SKIP
    >>> len(data.doc_ids), len(data.queries)                    # doctest: +SKIP
    (5183, 300)
    """
    root = Path(folder)
    if not (root / "corpus.jsonl").is_file():
        raise FileNotFoundError(f"{root / 'corpus.jsonl'} is missing: a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/")
    corpus, bad_lines = read_corpus(root / "corpus.jsonl")
    if bad_lines:
        line, reason = bad_lines[0]
        raise ValidationError(f"{root / 'corpus.jsonl'}:{line}: {reason}")
    query_rows = _read_jsonl(root / "queries.jsonl")
    qrels_path = root / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        raise FileNotFoundError(f"{qrels_path} is missing (split={split!r})")
    qrels: dict[str, dict[str, int]] = {}
    for row_number, row in enumerate(csv.reader(_utf8_lines(qrels_path, newline=""), delimiter="\t"), 1):
        if row_number == 1 and row and not row[-1].lstrip("-").isdigit():
            continue  # the header: query-id, corpus-id, score
        if len(row) != 3:
            raise ValidationError(f"{qrels_path}:{row_number}: expected 3 tab-separated columns, got {row!r}")
        try:
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
        except ValueError:
            raise ValidationError(f"{qrels_path}:{row_number}: the score {row[2]!r} is not an integer") from None
    try:
        all_queries = {str(row["_id"]): row["text"] for row in query_rows}
    except (KeyError, TypeError) as exc:
        raise ValidationError(f"{root / 'queries.jsonl'}: each line must be a JSON object with '_id' and 'text' "
                              f"({type(exc).__name__}: {exc})") from exc
    missing = sorted(set(qrels) - set(all_queries))
    if missing:
        raise ValidationError(f"{qrels_path} judges queries absent from queries.jsonl: {missing[:5]}")
    return BeirDataset(
        name=root.name,
        doc_ids=[doc_id for doc_id, _, _ in corpus],
        titles=[title for _, title, _ in corpus],
        texts=[text for _, _, text in corpus],
        queries={qid: all_queries[qid] for qid in qrels},
        qrels=qrels,
    )
