"""What an update indexes: files, folders, pages, crawls, sitemaps and BEIR corpora.

Each root loads into documents grouped by their ``source`` (a file's absolute path, a
page's URL, or ``CORPUS#ID`` for a BEIR document), plus the sources that failed: a failed
source is reported and never treated as deleted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional
from urllib.parse import urlsplit

from loaders import DirectoryLoader, RecursiveUrlLoader, SitemapLoader, WebBaseLoader
from rag.documents import Document
from rag.errors import ValidationError

__all__ = ["Root", "Loaded", "parse_root", "load_root"]

DEFAULT_GLOB = "**/[!.]*"


@dataclass(frozen=True)
class Root:
    """One SOURCE argument: ``kind`` is file, folder, page, crawl, sitemap or beir; ``key``
    is its normalised form (absolute path or URL), the identity used by the record."""

    kind: str
    key: str
    depth: int = 0


@dataclass
class Loaded:
    """What a root yielded: documents by source, failures ``(source, reason)``, skips."""

    documents: dict[str, list[Document]] = field(default_factory=dict)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _is_url(text: str) -> bool:
    try:
        return urlsplit(text).scheme in ("http", "https")
    except ValueError as exc:  # e.g. "Invalid IPv6 URL"
        raise ValidationError(f"{text!r} is not a valid URL: {exc}") from None


def parse_root(source: str, *, crawl: Optional[int] = None, sitemap: bool = False, beir: bool = False) -> Root:
    """Classify a SOURCE argument; a missing path or a non-http(s) URL is a clear error.

    ``beir``: ``source`` is a BEIR dataset folder (or its ``corpus.jsonl``).
    """
    if beir:
        return Root("beir", str(beir_corpus_path(source)))
    if _is_url(source):
        if not urlsplit(source).netloc:
            raise ValidationError(f"{source!r} is not a valid URL (no host)")
        if sitemap:
            return Root("sitemap", source)
        if crawl is not None:
            return Root("crawl", source, crawl)
        return Root("page", source)
    if "://" in source:
        raise ValidationError(f"{source!r}: only http and https URLs can be indexed")
    path = Path(source).expanduser()
    if not path.exists():
        raise ValidationError(f"{source!r} does not exist; give a file, a folder or an http(s) URL")
    return Root("folder" if path.is_dir() else "file", str(path.resolve()))


def load_root(root: Root, *, glob: Optional[str], exclude: Optional[Path] = None) -> Loaded:
    """Load every document under ``root``; failures are collected, not raised.

    ``exclude``: a folder whose files are never loaded (the index itself, when it lies
    inside an indexed folder: its own files would be indexed again on every run).
    """
    if root.kind == "file":
        return _load_file(Path(root.key))
    if root.kind == "folder":
        return _load_folder(root, glob, exclude)
    if root.kind == "beir":
        return _load_beir(Path(root.key))
    return _load_web(root)


def _group(documents: list[Document], loaded: Loaded) -> Loaded:
    for document in documents:
        loaded.documents.setdefault(str(document.metadata.get("source", "")), []).append(document)
    return loaded


def _load_file(path: Path) -> Loaded:
    # The file's own loader, chosen by suffix; never a glob (a name such as "notes[1].md"
    # would be read as a pattern).
    try:
        documents = DirectoryLoader(str(path.parent)).loader_for(path)(str(path)).load()
    except Exception as exc:  # reported in the summary, and never taken as a deletion
        return Loaded(failed=[(str(path), f"{type(exc).__name__}: {exc}")])
    for document in documents:
        document.metadata["source"] = str(path)
    return _group(documents, Loaded())


def _load_folder(root: Root, glob: Optional[str], exclude: Optional[Path]) -> Loaded:
    loader = DirectoryLoader(root.key, glob=glob or DEFAULT_GLOB, recursive=True, silent_errors=True)
    excluded = exclude.resolve() if exclude is not None else None

    def kept(source: str) -> bool:
        return excluded is None or not Path(source).resolve().is_relative_to(excluded)

    documents = [d for d in loader.load() if kept(str(d.metadata["source"]))]
    for document in documents:
        # Absolute paths: the record must recognise a file whatever the working directory.
        document.metadata["source"] = str(Path(document.metadata["source"]).resolve())
    loaded = Loaded(failed=[(str(Path(s).resolve()), m) for s, m in loader.failed if kept(s)],
                    skipped=[(str(Path(s).resolve()), m) for s, m in loader.skipped if kept(s)])
    return _group(documents, loaded)


def _load_web(root: Root) -> Loaded:
    if root.kind == "page":
        loader = WebBaseLoader(root.key, continue_on_failure=True)
    elif root.kind == "crawl":
        # --crawl counts link hops from the start page; the loader's max_depth (LangChain's
        # meaning) counts the start page as the first level.
        loader = RecursiveUrlLoader(root.key, max_depth=root.depth + 1, continue_on_failure=True)
    else:
        loader = SitemapLoader(root.key, continue_on_failure=True)
    try:
        documents = loader.load()
    except Exception as exc:  # the root itself could not be fetched: report, delete nothing
        return Loaded(failed=[(root.key, f"{type(exc).__name__}: {exc}")])
    return _group(documents, Loaded(failed=list(loader.failed)))


def beir_corpus_path(source: str) -> Path:
    """The ``corpus.jsonl`` of a BEIR dataset folder (or the file itself), absolute."""
    path = Path(source).expanduser()
    corpus = path / "corpus.jsonl" if path.is_dir() else path
    if not corpus.is_file():
        raise ValidationError(f"{source!r} is not a BEIR dataset: expected a folder holding corpus.jsonl, or that file")
    return corpus.resolve()


def _load_beir(corpus: Path) -> Loaded:
    """Every corpus line as its own source ``CORPUS#ID``: text ``title + " " + text``
    (BEIR's convention), metadata ``doc_id`` and ``title``. A bad line is reported."""
    from rag.evaluation.beir import read_corpus

    loaded = Loaded()
    try:
        rows, failed = read_corpus(corpus)
    except OSError as exc:
        return Loaded(failed=[(str(corpus), f"{type(exc).__name__}: {exc}")])
    loaded.failed.extend((f"{corpus}:{line}", reason) for line, reason in failed)
    for doc_id, title, text in rows:
        source = f"{corpus}#{doc_id}"
        passage = f"{title} {text}".strip()
        loaded.documents[source] = [Document(passage, {"source": source, "doc_id": doc_id, "title": title})]
    return loaded
