"""Boilerplate in an incremental update: what an update must know of a root's pages
before it reads them one at a time.

Which blocks are boilerplate depends on the whole site (see
:mod:`rag.index.boilerplate`), so a page's chunks are a function of the page *and* of the
set of pages it is indexed with. The rule kept here: **a page's chunks are always those
the current set gives**, and a page is re-chunked only when they change.

- A page's content hash (what says "unchanged") covers its raw documents and the keys of
  the blocks removed from it (:func:`structured_hash`); so an unchanged re-index gives
  the same chunks, and a page whose removed blocks change is re-chunked (its vectors are
  reused where its chunk texts did not change).
- Web roots (a page, a crawl, a sitemap) are loaded whole anyway: the boilerplate is
  found over all of their pages at once.
- A folder root is read one file at a time. When none of its HTML/Markdown pages changed
  on disk (stat), none was added or deleted and each was hashed this way, nothing is
  read (the set, hence the boilerplate, is as before). Otherwise one pass learns every
  page's block keys (no splitting, no embedding): from its record for a page unchanged
  on disk (:attr:`rag.index.state.SourceRecord.plan`), by reading the others; the
  boilerplate is found over the new set, and the pages whose hash it changes are read again even when their file did not
  change: adding pages to a folder can turn a block into boilerplate on pages that were
  not touched, and they follow. The pages that pass reads and the update will index
  are kept for it (up to :data:`KEPT_CHARACTERS` of text), so they are parsed once; past
  that they are read again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional, Protocol, Sequence

from rag.documents import Document
from rag.index.boilerplate import (
    BoilerplateRule,
    edge_positions,
    find_boilerplate,
    page_profile,
    repeated_keys,
    site_of,
    strip_blocks,
)

__all__ = ["SitePlan", "plan_folder", "RecordView", "STRUCTURED_SUFFIXES", "structured_source", "structured_hash",
           "HASH_PREFIX", "PageProfile"]

#: Files whose loaders record blocks (HTML and Markdown): the pages boilerplate is found on.
STRUCTURED_SUFFIXES = frozenset({".html", ".htm", ".xhtml", ".md", ".markdown"})
#: Text (characters) of the pages a folder's pass keeps for the update to index without
#: reading them again: bounds the memory of that pass (Python's 498-page manual, 9.6
#: million characters, holds 40 MiB with its blocks); pages past it are read twice.
KEPT_CHARACTERS = 16_000_000
#: Marks the content hash of a page hashed with its removed blocks: a page recorded
#: without it (indexed before boilerplate removal) is read again once.
HASH_PREFIX = "b1:"


def structured_source(source: str) -> bool:
    """True for a page boilerplate can be found on: a URL, or an HTML or Markdown file."""
    return "://" in source or Path(source).suffix.lower() in STRUCTURED_SUFFIXES


def structured_hash(raw_hash: str, removed: Iterable[str]) -> str:
    """The content hash of a page: its documents' ``raw_hash`` and the keys of the blocks
    removed from it as boilerplate (so a change of either re-chunks it)."""
    digest = hashlib.sha256(raw_hash.encode())
    digest.update(",".join(sorted(removed)).encode())
    return HASH_PREFIX + digest.hexdigest()


#: What a folder's pass learns of a page: its documents' raw hash and their block profiles
#: (:func:`page_profile`); recorded per source so an unchanged page is not read again.
PageProfile = tuple[str, list[list[Optional[str]]]]


def _removed(profiles: Iterable[Sequence[Optional[str]]], keys: frozenset[str]) -> set[str]:
    """The keys removed from a page of these profiles (see :func:`page_profile`)."""
    return {profile[position] or "" for profile in profiles for position in edge_positions(profile, keys)}


@dataclass
class SitePlan:
    """The boilerplate of a root's sites (``boilerplate``: site -> block keys) and, after
    a folder's pass, the content hash each of its pages will get (``expected``)."""

    boilerplate: Mapping[str, frozenset[str]] = field(default_factory=dict)
    expected: dict[str, str] = field(default_factory=dict)
    rule: BoilerplateRule = field(default_factory=BoilerplateRule)
    #: Pages read by the pass that the update will index: source -> (the file's stat
    #: when read, its documents); see :meth:`take`.
    kept: dict[str, tuple[tuple[int, int, int], list[Document]]] = field(default_factory=dict)
    #: Pages :meth:`prepare` saw: source -> their raw hash and profiles (see :meth:`profile`).
    profiles: dict[str, PageProfile] = field(default_factory=dict)
    #: Whether :meth:`prepare` keeps them (a folder's plan: its records hold them).
    learn: bool = False

    @classmethod
    def of_documents(cls, documents: Iterable[Document], rule: BoilerplateRule = BoilerplateRule()) -> "SitePlan":
        """The plan of pages that are all in memory (a web root)."""
        return cls(find_boilerplate(documents, rule), rule=rule)

    @classmethod
    def of_pages(cls, pages: Iterable[tuple[str, Optional[tuple[int, int, int]], Optional[list[Document]]]],
                 raw_hash: Callable[[list[Document]], str], rule: BoilerplateRule = BoilerplateRule(),
                 kept_characters: int = KEPT_CHARACTERS,
                 known: Optional[Mapping[str, "PageProfile"]] = None) -> "SitePlan":
        """The plan of a folder's pages, read one at a time (``(source, stat, documents)``
        each; documents None for a page that could not be read, left to the update to
        report) plus the ``known`` pages not read (source -> its recorded raw hash and
        profiles): each page's block keys and raw hash, and the documents of the first
        pages up to ``kept_characters`` of text."""
        profiles: dict[str, list[list[Optional[str]]]] = {source: page[1] for source, page in (known or {}).items()}
        hashes: dict[str, str] = {source: page[0] for source, page in (known or {}).items()}
        kept: dict[str, tuple[tuple[int, int, int], list[Document]]] = {}
        budget = kept_characters
        for source, stat, documents in pages:
            if documents is None:
                continue
            hashes[source] = raw_hash(documents)
            profiles[source] = [page_profile(document, rule.opening_characters) for document in documents]
            size = sum(len(document.page_content) for document in documents)
            if stat is not None and size <= budget:
                kept[source] = (stat, documents)
                budget -= size
        keys = {source: {key for profile in page for key in profile if key} for source, page in profiles.items()}
        boilerplate = repeated_keys({source: page_keys for source, page_keys in keys.items() if page_keys}, rule)
        expected = {source: structured_hash(hashes[source],
                                            _removed(profiles[source], boilerplate.get(site_of(source), frozenset())))
                    for source in hashes}
        return cls(boilerplate, expected, rule, kept)

    def last_read(self, source: str, record: Optional["RecordView"],
                  otherwise: Callable[[str], Optional[tuple[Any, Any]]]) -> Optional[tuple[Any, Any]]:
        """What an update takes as ``source``'s last read (see
        :func:`rag.index.sources.iter_root`): a page this plan keeps counts as just read
        (while its file's stat is the same, the update takes its documents from
        :meth:`take`); a page whose hash this plan changes must be read (None); any other
        as ``otherwise`` says."""
        if source in self.kept:
            return self.kept[source][0], float("inf")
        if record is not None and self.expected.get(source, record.content_hash) != record.content_hash:
            return None
        return otherwise(source)

    def take(self, source: str) -> Optional[list[Document]]:
        """The documents the pass read of ``source`` (once; None when it kept none)."""
        entry = self.kept.pop(source, None)
        return entry[1] if entry is not None else None

    def prepare(self, source: str, documents: list[Document], raw_hash: str) -> tuple[list[Document], str]:
        """``documents`` without their site's boilerplate, and the page's content hash."""
        keys = self.boilerplate.get(site_of(source), frozenset())
        opening = self.rule.opening_characters
        profiles = [page_profile(document, opening) for document in documents]
        if self.learn:
            self.profiles[source] = (raw_hash, profiles)
        removed = _removed(profiles, keys) if keys else set()
        stripped = [strip_blocks(document, keys, opening) for document in documents] if removed else documents
        return stripped, structured_hash(raw_hash, removed)

    def profile(self, source: str) -> Optional[PageProfile]:
        """What :meth:`prepare` learnt of ``source`` (for its record; once)."""
        return self.profiles.pop(source, None)


def plan_folder(folder: str, files: Sequence[Path], record: Mapping[str, "RecordView"], *, rechunk: bool,
                load: Callable[[Path], Optional[list[Document]]], raw_hash: Callable[[list[Document]], str],
                rule: BoilerplateRule = BoilerplateRule()) -> Optional[SitePlan]:
    """The plan of the ``folder`` root whose selected ``files`` are about to be indexed,
    or None when no page of it needs reading: no setting that re-chunks changed
    (``rechunk``), its HTML/Markdown pages are exactly those of the index's ``record``
    (source -> its record) under it, each hashed with :func:`structured_hash` and
    unchanged on disk since its last read. Otherwise every page is ``load``-ed once (None
    or an exception: left for the update to report) to find the boilerplate over the new set."""
    from rag.index.sources import unchanged_since

    recorded = {source: entry for source, entry in record.items()
                if structured_source(source) and Path(source).is_relative_to(folder)}
    pages = {str(path.resolve()): path for path in files if path.suffix.lower() in STRUCTURED_SUFFIXES}
    skippable = {source for source, path in pages.items() if source in recorded and not rechunk
                 and unchanged_since(path, recorded[source].last_read) is not None}
    if pages.keys() == recorded.keys() and skippable == pages.keys() and all(
            recorded[source].content_hash.startswith(HASH_PREFIX) for source in pages):
        return None

    # An unchanged page whose record holds its profiles is not read: only changed, new
    # and older-recorded pages are (what they give is what a full read would).
    known: dict[str, PageProfile] = {}
    for source in skippable:
        profile = recorded[source].plan
        if profile is not None:
            known[source] = profile

    def read() -> Iterable[tuple[str, Optional[tuple[int, int, int]], Optional[list[Document]]]]:
        for source, path in pages.items():
            if source in known:
                continue
            try:
                info = path.stat()
                yield source, (info.st_size, info.st_mtime_ns, info.st_ino), load(path)
            except Exception:  # noqa: BLE001 - the update reads it again and reports why
                yield source, None, None

    plan = SitePlan.of_pages(read(), raw_hash, rule, kept_characters=KEPT_CHARACTERS, known=known)
    # Pages read whose record lacked their profiles stay kept even when unchanged: the
    # update takes them as read and records their profiles, so they are read this once.
    plan.learn = True
    return plan


class RecordView(Protocol):
    """What :func:`plan_folder` reads of a source's record (see
    :class:`rag.index.state.SourceRecord`)."""

    content_hash: str
    plan: Optional[PageProfile]

    @property
    def last_read(self) -> tuple[Any, Any]: ...
