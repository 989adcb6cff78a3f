"""What an update indexes: files, folders, pages, crawls, sitemaps and BEIR corpora.

Each root loads into documents grouped by their ``source`` (a file's absolute path, a
page's URL, or ``CORPUS#ID`` for a BEIR document), plus the sources that failed: a failed
source is reported and never treated as deleted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence
from urllib.parse import urlsplit

from loaders import BaseLoader, DirectoryLoader, RecursiveUrlLoader, SitemapLoader, WebBaseLoader
from loaders.selection import Selection, select_files
from rag.documents import Document
from rag.errors import ValidationError

__all__ = ["Root", "Loaded", "SourceItem", "parse_root", "iter_root", "folder_selection", "beir_corpus_path", "SAME_SECOND"]



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


@dataclass
class SourceItem:
    """One source met while walking a root: its ``documents`` (None when its file is
    unchanged since it was last read, judged by ``stat``), or the reason it ``failed`` or
    was ``skipped``. ``stat``: (size, mtime_ns, inode) of a file, None for other sources."""

    source: str
    documents: Optional[list[Document]] = None
    stat: Optional[tuple[int, int, int]] = None
    failed: Optional[str] = None
    skipped: Optional[str] = None


#: A file's last read: ``(stat, read_at)`` (see :attr:`SourceRecord.last_read`).
LastRead = tuple[Optional[tuple[int, int, int]], Optional[float]]
#: A source's previous read, or None (never read, or it must be read again).
PreviousRead = Callable[[str], Optional[LastRead]]

#: A file modified this many seconds or less before the update that read it is read again
#: (mtime granularity: an edit in the same second as that read must not be missed).
SAME_SECOND = 2.0


def _stat(path: Path) -> tuple[int, int, int]:
    info = path.stat()
    return info.st_size, info.st_mtime_ns, info.st_ino


def _unchanged(stat: tuple[int, int, int], previous: Optional[LastRead]) -> bool:
    if previous is None or previous[0] is None or previous[1] is None:
        return False
    old_stat, read_at = tuple(previous[0]), previous[1]
    return old_stat == stat and stat[1] < (read_at - SAME_SECOND) * 1e9


def unchanged_since(path: Path, previous: Optional[LastRead]) -> Optional[int]:
    """The size of ``path`` when an update would not read it again (unchanged since its
    ``previous`` read), else None (also when it cannot be stat'ed: the update reports it)."""
    try:
        stat = _stat(path)
    except OSError:
        return None
    return stat[0] if _unchanged(stat, previous) else None


def iter_root(root: Root, *, glob: Optional[str], excludes: Sequence[str] = (), index_folder: Optional[Path] = None,
              previous: PreviousRead = lambda source: None,
              progress: Optional[Callable[[str, int, int], None]] = None) -> Iterator[SourceItem]:
    """The sources under ``root``, one at a time (memory holds one file's documents).

    A folder gives the files :func:`folder_selection` picks (every file it leaves out is
    an item ``skipped`` with the reason). A file whose size, mtime and inode equal those
    of its ``previous`` read, and which was not modified within :data:`SAME_SECOND` before
    that read, is not read again. ``progress("load", files done, files)`` for folders.
    """
    if root.kind in ("file", "folder"):
        yield from _iter_files(root, glob, excludes, index_folder, previous, progress)
    elif root.kind == "beir":
        yield from _iter_beir(Path(root.key))
    else:
        yield from _items(_load_web(root))


def _items(loaded: Loaded) -> Iterator[SourceItem]:
    for source, reason in loaded.failed:
        yield SourceItem(source, failed=reason)
    for source, reason in loaded.skipped:
        yield SourceItem(source, skipped=reason)
    for source, documents in sorted(loaded.documents.items()):
        yield SourceItem(source, documents)


def folder_selection(root: Root, glob: Optional[str], excludes: Sequence[str],
                     index_folder: Optional[Path]) -> Selection:
    """What a folder root indexes: document types minus generated output by default
    (``glob`` chooses instead), minus ``excludes`` and ``.ragignore`` rules, never the
    files of ``index_folder`` (the index itself, when it lies inside the folder)."""
    selection = select_files(root.key, glob=glob, exclude=excludes)
    if index_folder is not None:
        inside = index_folder.resolve()
        selection.files = [p for p in selection.files if not p.resolve().is_relative_to(inside)]
    return selection


def _iter_files(root: Root, glob: Optional[str], excludes: Sequence[str], index_folder: Optional[Path],
                previous: PreviousRead, progress: Optional[Callable[[str, int, int], None]]) -> Iterator[SourceItem]:
    if root.kind == "file":
        path = Path(root.key)
        loader = DirectoryLoader(str(path.parent), silent_errors=True)
        paths = [path]
    else:
        loader = DirectoryLoader(root.key, silent_errors=True)
        selection = folder_selection(root, glob, excludes, index_folder)
        for skipped, reason in selection.skipped:
            yield SourceItem(skipped, skipped=reason)
        paths = selection.files
    for done, path in enumerate(paths, 1):
        if progress is not None and root.kind == "folder":
            progress("load", done, len(paths))
        # Absolute paths: the record must recognise a file whatever the working directory.
        source = str(path if root.kind == "file" else path.resolve())
        try:
            stat = _stat(path)
            if _unchanged(stat, previous(source)):
                yield SourceItem(source, None, stat)
                continue
            # The file's own loader, chosen by suffix; never a glob (a name such as
            # "notes[1].md" would be read as a pattern).
            documents = loader.load_path(path)
        except Exception as exc:  # reported in the summary, and never taken as a deletion
            yield SourceItem(source, failed=f"{type(exc).__name__}: {exc}")
            continue
        if documents is None:
            reason = loader.skipped[-1][1] if loader.skipped else "skipped"
            yield SourceItem(source, skipped=reason)
            continue
        for document in documents:
            document.metadata["source"] = source
        yield SourceItem(source, documents, stat)


def _group(documents: list[Document], loaded: Loaded) -> Loaded:
    for document in documents:
        loaded.documents.setdefault(str(document.metadata.get("source", "")), []).append(document)
    return loaded


def _load_web(root: Root) -> Loaded:
    loader: BaseLoader
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


def _iter_beir(corpus: Path) -> Iterator[SourceItem]:
    """Every corpus line as its own source ``CORPUS#ID``, read one at a time: text ``title
    + " " + text`` (BEIR's convention), metadata ``doc_id`` and ``title``. A bad line, or
    a corpus that cannot be read, is reported as failed."""
    from rag.evaluation.beir import iter_corpus

    try:
        for line, outcome in iter_corpus(corpus):
            if isinstance(outcome, str):
                yield SourceItem(f"{corpus}:{line}", failed=outcome)
                continue
            doc_id, title, text = outcome
            source = f"{corpus}#{doc_id}"
            yield SourceItem(source, [Document(f"{title} {text}".strip(), {"source": source, "doc_id": doc_id,
                                                                          "title": title})])
    except (OSError, ValueError) as exc:
        yield SourceItem(str(corpus), failed=f"{type(exc).__name__}: {exc}")
