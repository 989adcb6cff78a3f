"""SOURCE arguments of ``rag index``: files, folders, pages, crawls and sitemaps.

Each root loads into documents grouped by their ``source`` (a file's absolute path or a
page's URL), plus the sources that failed: a failed source is reported and never treated
as deleted.
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
    """One SOURCE argument: ``kind`` is file, folder, page, crawl or sitemap; ``key`` is
    its normalised form (absolute path or URL), the identity used by the record."""

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
    return urlsplit(text).scheme in ("http", "https")


def parse_root(source: str, *, crawl: Optional[int], sitemap: bool) -> Root:
    """Classify a SOURCE argument; a missing path or a non-http(s) URL is a clear error."""
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


def load_root(root: Root, *, glob: Optional[str]) -> Loaded:
    """Load every document under ``root``; failures are collected, not raised."""
    if root.kind in ("file", "folder"):
        return _load_files(root, glob)
    return _load_web(root)


def _group(documents: list[Document], loaded: Loaded) -> Loaded:
    for document in documents:
        loaded.documents.setdefault(str(document.metadata.get("source", "")), []).append(document)
    return loaded


def _load_files(root: Root, glob: Optional[str]) -> Loaded:
    path = Path(root.key)
    if root.kind == "file":
        loader = DirectoryLoader(str(path.parent), glob=path.name, silent_errors=True)
    else:
        loader = DirectoryLoader(str(path), glob=glob or DEFAULT_GLOB, recursive=True, silent_errors=True)
    documents = loader.load()
    for document in documents:
        # Absolute paths: the record must recognise a file whatever the working directory.
        document.metadata["source"] = str(Path(document.metadata["source"]).resolve())
    loaded = Loaded(failed=[(str(Path(s).resolve()), m) for s, m in loader.failed],
                    skipped=[(str(Path(s).resolve()), m) for s, m in loader.skipped])
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
