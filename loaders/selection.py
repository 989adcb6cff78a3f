"""Which files of a folder to index: documents, not scripts, styles or generated output.

:func:`select_files` walks a folder once and returns the files to load, plus every file
or folder left out with the reason (for a dry run or a report). A folder left out is
listed once, with a trailing ``/``, and not entered.

The walk keeps :class:`~loaders.directory.DirectoryLoader`'s rules: hidden files and
folders (a name starting with ``.``) are left out unreported, and linked folders are not
entered (``**`` does not descend into them), so a link can neither lead out of the tree
nor loop.

>>> from loaders.selection import select_files
>>> selection = select_files(Path("/usr/share/doc/python3.11/html"))  # doctest: +SKIP
>>> selection.skipped[:2]  # doctest: +SKIP
[('/usr/share/doc/python3.11/html/_downloads/', 'generated output (Sphinx _downloads/)'),
 ('/usr/share/doc/python3.11/html/_images/', 'generated output (Sphinx _images/)')]
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from loaders._generated import GENERATED_PATTERNS, GeneratedPattern, generated_match
from loaders._gitignore import (
    IgnoreRule,
    any_depth_glob,
    compile_rule,
    last_match,
    read_ignore_file,
)
from rag.errors import ValidationError

__all__ = [
    "DOCUMENT_SUFFIXES",
    "DOCUMENT_NAMES",
    "GENERATED_PATTERNS",
    "GeneratedPattern",
    "Selection",
    "TypeCount",
    "select_files",
]

#: File suffixes (lower case) selected by default: pages and documents, each read by a
#: loader that gives its text (HTML, Markdown, reStructuredText, AsciiDoc, Org, plain
#: text, PDF, CSV/TSV, JSON and JSON Lines). Not scripts, stylesheets, images, archives.
DOCUMENT_SUFFIXES = frozenset(
    {
        ".html", ".htm", ".xhtml", ".md", ".markdown", ".rst", ".rest", ".adoc",
        ".asciidoc", ".org", ".txt", ".text", ".pdf", ".csv", ".tsv", ".json", ".jsonl",
        ".ndjson",
    }
)

#: Names (upper case) of the conventional plain-text documents that have no suffix:
#: README, NEWS, CHANGELOG... are selected by default too; other suffix-less files
#: (Makefile, copyright, scripts) are not.
DOCUMENT_NAMES = frozenset(
    {
        "README", "NEWS", "CHANGES", "CHANGELOG", "HISTORY", "AUTHORS", "CONTRIBUTING",
        "INSTALL", "HACKING", "TODO", "FAQ", "THANKS", "COPYING", "LICENSE",
    }
)

# A text source next to the page built from it (git's foo.txt -> foo.html by AsciiDoc,
# foo.md -> foo.html) says the same thing twice: when both are selected the page is kept.
_SOURCE_SUFFIXES = frozenset(
    {".txt", ".text", ".md", ".markdown", ".rst", ".rest", ".adoc", ".asciidoc"}
)
_PAGE_SUFFIXES = (".html", ".htm", ".xhtml")


@dataclass(frozen=True)
class TypeCount:
    """How many selected files of one type, and their size in bytes."""

    files: int
    bytes: int


@dataclass
class Selection:
    """The files to load (sorted by path components, as DirectoryLoader sorts) and what
    was left out: ``skipped`` holds ``(path, reason)`` in walk order; a folder's path
    ends with ``/``."""

    files: list[Path] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def by_type(self) -> dict[str, TypeCount]:
        """Selected files per suffix (``""`` for none), largest total first; sizes come
        from ``stat`` now (a file gone since the walk counts 0 bytes)."""
        counts: dict[str, list[int]] = {}
        for path in self.files:
            entry = counts.setdefault(path.suffix.lower(), [0, 0])
            entry[0] += 1
            try:
                entry[1] += path.stat().st_size
            except OSError:
                pass  # vanished or unreadable: the load will report it
        ordered = sorted(counts.items(), key=lambda item: (-item[1][1], item[0]))
        return {suffix: TypeCount(files, size) for suffix, (files, size) in ordered}


def select_files(
    root: str | os.PathLike[str],
    *,
    glob: str | Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    ignore_file_name: str | None = ".ragignore",
    include_generated: bool = False,
) -> Selection:
    """The files under ``root`` that hold documents, and what was left out and why.

    Args:
        root: the folder.
        glob: None (default): every file with a :data:`DOCUMENT_SUFFIXES` suffix (or
            a suffix-less :data:`DOCUMENT_NAMES` name such as ``README``). A
            pattern or patterns (pathlib syntax, matched at any depth as ``Path.rglob``:
            ``"*.md"``, ``"guides/**/*.txt"``): the files they match, whatever their type.
        exclude: gitignore-syntax patterns relative to ``root`` (``"*.txt"``,
            ``"drafts/"``, ``"/notes.md"``, ``"**/old/*"``); no ``!``.
        ignore_file_name: ignore files with this name, in ``root`` and any folder below,
            are read in gitignore syntax (``#`` comments, ``!`` negation, trailing ``/``
            for folders, ``/`` anchoring to the file's folder; a deeper file's rules win;
            a file in a left-out folder cannot be put back). None: none read.
        include_generated: also select :data:`GENERATED_PATTERNS` output and text
            sources next to their built page. Default False.

    Reasons given: ``excluded by --exclude '*.txt'``, ``ignored by /x/.ragignore
    ('drafts/')``, ``generated output (Sphinx _static/)``, ``source of a built page
    (git-add.html)``, ``not a document type (.js)``, ``symlink to a file outside the
    folder (/usr/share/javascript/jquery/jquery.js)``, ``symlink to a file already selected
    (...)``, ``symlink to a folder outside the folder (...): not followed``, ``broken
    symbolic link``, ``unreadable folder (...)``.

    Raises FileNotFoundError when ``root`` does not exist, :class:`ValidationError` when
    it is not a folder or an argument is malformed.
    """
    base = Path(root)
    if not base.exists():
        raise FileNotFoundError(errno.ENOENT, "Folder not found", os.fspath(root))
    if not base.is_dir():
        raise ValidationError(f"Expected a folder, got a file: {os.fspath(root)!r}")
    walk = _Walk(
        base,
        wanted=None if glob is None else any_depth_glob(_glob_patterns(glob)),
        exclude=_exclude_rules(exclude),
        ignore_file_name=ignore_file_name,
        include_generated=include_generated,
    )
    walk.run()
    walk.selection.files.sort(key=lambda path: path.parts)
    return walk.selection


class _Walk:
    """One walk of the tree: folders depth-first in name order, each listed once."""

    def __init__(
        self,
        root: Path,
        *,
        wanted: re.Pattern[str] | None,
        exclude: list[IgnoreRule],
        ignore_file_name: str | None,
        include_generated: bool,
    ) -> None:
        self.root = root
        self.real_root = os.path.realpath(root)
        self.wanted = wanted
        self.exclude = exclude
        self.ignore_file_name = ignore_file_name
        self.include_generated = include_generated
        self.generated = () if include_generated else GENERATED_PATTERNS
        self.selection = Selection()
        # Real paths of the selected files that are not links (no folder below the root is
        # a link: linked folders are not entered), and the selected links to files in the
        # tree as (path relative to the root, real path of the target), in walk order.
        self.real_files: set[str] = set()
        self.links: list[tuple[str, str]] = []

    def run(self) -> None:
        # (path relative to root with a trailing "/", the ignore rules in force there)
        pending: list[tuple[str, list[IgnoreRule]]] = [("", [])]
        while pending:
            relative, rules = pending.pop()
            folders = self._list(relative, rules)
            pending.extend(reversed(folders))  # visited in name order
        self._drop_duplicate_links()

    def _drop_duplicate_links(self) -> None:
        """A link to a file that is selected anyway (itself, or through an earlier link)
        would load the same text twice: it is left out."""
        duplicates = set()
        for relative, target in self.links:
            if target in self.real_files:
                duplicates.add(self.root / relative)
                self._skip(relative, f"symlink to a file already selected ({target})")
            else:
                self.real_files.add(target)  # the first link in walk order stands for it
        if duplicates:
            self.selection.files = [p for p in self.selection.files if p not in duplicates]

    def _list(self, relative: str, rules: list[IgnoreRule]) -> list[tuple[str, list[IgnoreRule]]]:
        """Select the files of one folder; its subfolders to visit, in name order."""
        folder = self.root / relative if relative else self.root
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            self._skip(relative, f"unreadable folder ({exc.strerror or exc})")
            return []
        names = {entry.name for entry in entries}
        if self.ignore_file_name and self.ignore_file_name in names:
            ignore_file = folder / self.ignore_file_name
            try:
                rules = rules + read_ignore_file(ignore_file, base=relative)
            except OSError as exc:
                reason = f"unreadable ignore file ({exc.strerror or exc})"
                self._skip(relative + self.ignore_file_name, reason)
        folders: list[tuple[str, list[IgnoreRule]]] = []
        selected: list[str] = []
        link_targets: dict[str, str] = {}  # selected links to files in the tree
        for entry in entries:
            if entry.name.startswith(".") or entry.name == self.ignore_file_name:
                continue  # hidden (as DirectoryLoader leaves it out), or rules, not text
            path = relative + entry.name
            is_dir = entry.is_dir(follow_symlinks=False)  # a linked folder is not entered
            if not is_dir and self.wanted is not None and not self.wanted.fullmatch(path):
                continue  # not asked for: not a candidate, so not reported either
            reason = self._rules_reason(path, entry.name, is_dir, rules, names)
            if reason is None and is_dir:
                folders.append((path + "/", rules))
            elif reason is None and (reason := self._file_reason(entry)) is None:
                selected.append(entry.name)
                if entry.is_symlink():
                    link_targets[entry.name] = os.path.realpath(entry.path)
            else:
                self._skip(path + ("/" if is_dir or _links_to_folder(entry) else ""), reason)
        for name in selected:
            page = None if self.include_generated else _built_page(name, selected)
            if page is not None:
                self._skip(relative + name, f"source of a built page ({page})")
            else:
                self.selection.files.append(folder / name)
                if name in link_targets:
                    self.links.append((relative + name, link_targets[name]))
                else:
                    self.real_files.add(os.path.join(self.real_root, relative + name))
        return folders

    def _rules_reason(
        self, path: str, name: str, is_dir: bool, rules: list[IgnoreRule], siblings: set[str]
    ) -> str | None:
        """Why the user's patterns or the generated-output patterns leave ``path`` out."""
        for rule in self.exclude:
            if rule.matches(path, is_dir):
                return f"excluded by --exclude {rule.pattern!r}"
        decided = last_match(rules, path, is_dir)
        if decided is not None and not decided.negated:
            return f"ignored by {decided.origin} ({decided.pattern!r})"
        pattern = generated_match(name, is_dir, siblings, self.generated)
        if pattern is not None:
            return f"generated output ({pattern.describe()})"
        return None

    def _file_reason(self, entry: os.DirEntry[str]) -> str | None:
        """Why a file (or a link) is not a candidate: a link leading out of the tree or
        nowhere, or (without a glob) not a document type. None for a candidate."""
        if entry.is_symlink():
            target = os.path.realpath(entry.path)
            if not os.path.exists(target):
                return "broken symbolic link"
            inside = os.path.commonpath([self.real_root, target]) == self.real_root
            if os.path.isdir(target):
                where = "in the tree" if inside else f"outside the folder ({target})"
                return f"symlink to a folder {where}: not followed"
            if not inside:
                return f"symlink to a file outside the folder ({target})"
        if self.wanted is not None:
            return None  # the caller chose the files: any type
        suffix = os.path.splitext(entry.name)[1].lower()
        if suffix in DOCUMENT_SUFFIXES or (not suffix and entry.name.upper() in DOCUMENT_NAMES):
            return None
        return f"not a document type ({suffix or 'no suffix'})"

    def _skip(self, relative: str, reason: str) -> None:
        self.selection.skipped.append((os.path.join(self.root, relative), reason))


def _built_page(name: str, selected: list[str]) -> str | None:
    """The page built from ``name`` when both are selected in one folder, else None."""
    stem, suffix = os.path.splitext(name)
    if suffix.lower() not in _SOURCE_SUFFIXES:
        return None
    return next((stem + page for page in _PAGE_SUFFIXES if stem + page in selected), None)


def _links_to_folder(entry: os.DirEntry[str]) -> bool:
    return entry.is_symlink() and entry.is_dir()


def _glob_patterns(glob: str | Sequence[str]) -> list[str]:
    patterns = [glob] if isinstance(glob, str) else glob
    if (
        not isinstance(patterns, (list, tuple))
        or not patterns
        or not all(isinstance(pattern, str) and pattern for pattern in patterns)
    ):
        raise ValidationError(
            f"glob must be a pattern or a non-empty list of patterns, got {glob!r}"
        )
    for pattern in patterns:
        if pattern.startswith("/"):
            raise ValidationError(
                f"glob patterns are relative to the folder, got {pattern!r}; "
                f"write {pattern.lstrip('/')!r}"
            )
    return list(patterns)


def _exclude_rules(exclude: Sequence[str]) -> list[IgnoreRule]:
    if isinstance(exclude, str):
        exclude = [exclude]
    rules = []
    for pattern in exclude:
        if not isinstance(pattern, str) or not pattern.strip() or pattern.startswith("!"):
            raise ValidationError(
                f"exclude patterns are gitignore patterns such as '*.txt' or 'drafts/' "
                f"(no '!': put re-inclusions in an ignore file), got {pattern!r}"
            )
        rule = compile_rule(pattern, origin="--exclude")
        if rule is not None:
            rules.append(rule)
    return rules
