"""Every matching file under a directory, each through the loader for its kind."""

from __future__ import annotations

import errno
import functools
import logging
import os
import random
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from loaders._checks import positive_int
from loaders._files import SNIFF_BYTES, looks_binary
from loaders._progress import check_show_progress, progress_bar
from loaders.base import LoadReport, ReportingLoader
from loaders.csv_loader import CSVLoader
from loaders.html import HTML_SUFFIXES, ReadableHTMLLoader
from loaders.json_loader import JSONLoader
from loaders.markdown import MarkdownLoader
from loaders.pdf import PyPDFLoader
from loaders.text import TextLoader
from rag import Document
from rag.errors import ValidationError

__all__ = ["DirectoryLoader", "DEFAULT_SUFFIX_LOADERS", "LoaderFactory"]

logger = logging.getLogger(__name__)

LoaderFactory = Callable[..., Any]
"""Builds a loader from a file path: a loader class or a ``functools.partial`` of one."""

# Text loaders detect the encoding here: a directory mixes files from many tools.
_TEXT = functools.partial(TextLoader, autodetect_encoding=True)
DEFAULT_SUFFIX_LOADERS: Mapping[str, LoaderFactory] = {
    ".txt": _TEXT,
    ".md": functools.partial(MarkdownLoader, autodetect_encoding=True),
    ".markdown": functools.partial(MarkdownLoader, autodetect_encoding=True),
    **{suffix: ReadableHTMLLoader for suffix in HTML_SUFFIXES},  # .html, .htm, .xhtml
    ".csv": functools.partial(CSVLoader, autodetect_encoding=True),
    ".tsv": functools.partial(CSVLoader, csv_args={"delimiter": "\t"}, autodetect_encoding=True),
    ".json": functools.partial(JSONLoader, jq_schema=".", text_content=False),
    ".jsonl": functools.partial(JSONLoader, jq_schema=".", text_content=False, json_lines=True),
    ".ndjson": functools.partial(JSONLoader, jq_schema=".", text_content=False, json_lines=True),
    ".pdf": PyPDFLoader,
}
"""The loader used for each file suffix (lower case) when ``loader_cls`` is None; any
other suffix, or none, is read by ``TextLoader(autodetect_encoding=True)``. HTML pages
(``.html``, ``.htm``, ``.xhtml``) give their main content, as the web loaders read them
(:class:`ReadableHTMLLoader`: no navigation, sidebars, footers or ``¶`` marks); pass
``suffix_loaders={".html": BSHTMLLoader}`` for LangChain's all-text extraction."""

GlobPatterns = str | Sequence[str]


def _accepts_binary(factory: LoaderFactory) -> bool:
    while isinstance(factory, functools.partial):
        factory = factory.func
    return bool(getattr(factory, "accepts_binary", False))


def _is_hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _load_file(factory: LoaderFactory, kwargs: Mapping[str, Any], path: str) -> list[Document]:
    loader = factory(path, **kwargs)
    try:
        return list(loader.lazy_load())
    except NotImplementedError:
        # Some third-party loaders implement only load().
        return list(loader.load())


class DirectoryLoader(ReportingLoader):
    """Load every file under ``path`` matching ``glob``, as LangChain's ``DirectoryLoader``.

    Documents come file by file in sorted path order (path components compared in turn),
    also with ``use_multithreading``; LangChain yields threaded results as they finish.
    Each file's ``source`` is ``path`` joined with the file's relative path.

    Args:
        path: the directory.
        glob: pattern or list of patterns (``pathlib`` syntax), default ``"**/[!.]*"``:
            every non-hidden file at any depth. A file matched by several patterns loads
            once.
        silent_errors: default False: the first failing file raises (its path is added to
            the exception as a note). True: failures are logged and listed in ``failed``.
        load_hidden: also load files under a directory or with a name starting with ``.``.
        loader_cls: loader class (or factory) called as ``loader_cls(file_path,
            **loader_kwargs)``. Default None: chosen by suffix, see ``suffix_loaders``.
        loader_kwargs: keyword arguments for ``loader_cls``; requires ``loader_cls``.
        recursive: use ``rglob`` (matters for patterns without ``**``). Default False.
        show_progress: draw a tqdm progress bar on stderr. Needs ``tqdm`` (the
            ``progress`` extra); checked when the loader is built.
        use_multithreading: load files in a thread pool. Default False.
        max_concurrency: threads in the pool, at least 1. Default 4.
        exclude: keyword-only; pattern or patterns (``Path.match``) of files to leave out.
        sample_size: keyword-only; load at most this many files (0, the default: all).
        randomize_sample: keyword-only; pick the sample at random rather than the first in
            sorted order.
        sample_seed: keyword-only; seed for ``randomize_sample``.
        suffix_loaders: keyword-only; ``{".suffix": factory}`` entries replacing those in
            :data:`DEFAULT_SUFFIX_LOADERS` when ``loader_cls`` is None.

    After (or during) a run, ``skipped`` lists ``(path, reason)`` for files left out on
    purpose: binary files (a NUL byte in the first 8192 bytes) given to a text loader, and
    broken symbolic links. ``failed`` lists ``(path, "ErrorType: message")`` for files that
    raised with ``silent_errors=True``. Both are reset at the start of each run. Symbolic
    links to files are loaded; ``**`` does not descend into linked directories, so link
    cycles cannot loop.

    >>> loader = DirectoryLoader("docs", glob="**/*.md", silent_errors=True)
    >>> docs = loader.load()  # doctest: +SKIP
    >>> loader.failed, loader.skipped  # doctest: +SKIP
    ([], [])
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        glob: GlobPatterns = "**/[!.]*",
        silent_errors: bool = False,
        load_hidden: bool = False,
        loader_cls: LoaderFactory | None = None,
        loader_kwargs: Mapping[str, Any] | None = None,
        recursive: bool = False,
        show_progress: bool = False,
        use_multithreading: bool = False,
        max_concurrency: int = 4,
        *,
        exclude: GlobPatterns = (),
        sample_size: int = 0,
        randomize_sample: bool = False,
        sample_seed: int | None = None,
        suffix_loaders: Mapping[str, LoaderFactory] | None = None,
    ) -> None:
        self.path = path
        self.glob = _patterns("glob", glob)
        self.exclude = _patterns("exclude", exclude)
        if not self.glob:
            raise ValidationError("glob must hold at least one pattern, got an empty sequence")
        if loader_kwargs and loader_cls is None:
            raise ValidationError(
                f"loader_kwargs {dict(loader_kwargs)!r} need loader_cls; to configure the "
                "loader chosen for a suffix, pass suffix_loaders={'.txt': "
                "functools.partial(TextLoader, encoding='latin-1')}"
            )
        positive_int("max_concurrency", max_concurrency)
        if isinstance(sample_size, bool) or not isinstance(sample_size, int) or sample_size < 0:
            raise ValidationError(
                f"sample_size must be an int >= 0 (0 loads every file), got {sample_size!r}"
            )
        self.silent_errors = silent_errors
        self.load_hidden = load_hidden
        self.loader_cls = loader_cls
        self.loader_kwargs = dict(loader_kwargs or {})
        self.recursive = recursive
        self.show_progress = check_show_progress(show_progress)
        self.use_multithreading = use_multithreading
        self.max_concurrency = max_concurrency
        self.sample_size = sample_size
        self.randomize_sample = randomize_sample
        self.sample_seed = sample_seed
        self.suffix_loaders = {
            **DEFAULT_SUFFIX_LOADERS,
            **{suffix.lower(): factory for suffix, factory in (suffix_loaders or {}).items()},
        }
        self.report = LoadReport(logger=logger)


    def loader_for(self, file_path: str | os.PathLike[str]) -> LoaderFactory:
        """The factory that will load ``file_path``: ``loader_cls`` or the suffix's."""
        if self.loader_cls is not None:
            return self.loader_cls
        return self.suffix_loaders.get(Path(file_path).suffix.lower(), _TEXT)

    def file_paths(self) -> list[Path]:
        """The files this loader would read, sorted, before sampling and binary checks.

        Raises FileNotFoundError naming ``path`` if it does not exist and
        :class:`ValidationError` if it is not a directory.
        """
        root = Path(self.path)
        if not root.exists():
            raise FileNotFoundError(errno.ENOENT, "Directory not found", str(self.path))
        if not root.is_dir():
            raise ValidationError(f"Expected a directory, got a file: {str(self.path)!r}")
        found: set[Path] = set()
        for pattern in self.glob:
            found.update(root.rglob(pattern) if self.recursive else root.glob(pattern))
        kept = []
        real_root = root.resolve()
        for candidate in found:
            # A pattern such as "*/*.txt" walks into a symlinked folder even where "**" does
            # not: files reached through a linked folder outside the tree are left out.
            if not candidate.parent.resolve().is_relative_to(real_root):
                continue
            if self.exclude and any(candidate.match(pattern) for pattern in self.exclude):
                continue
            if not self.load_hidden and _is_hidden(candidate.relative_to(root)):
                continue
            if candidate.is_dir():
                continue
            kept.append(candidate)
        return sorted(kept, key=lambda candidate: candidate.parts)

    def lazy_load(self) -> Iterator[Document]:
        """Yield the documents of every file, file by file in sorted path order."""
        self.report = LoadReport(logger=logger)
        paths = self._sample(self.file_paths())
        with progress_bar(self.show_progress, total=len(paths), unit="file") as advance:
            for path, outcome in self._outcomes(paths):
                advance()
                if isinstance(outcome, Exception):
                    self._fail(path, outcome)
                elif outcome is not None:  # None: skipped, already in the report
                    yield from outcome

    def load_path(self, path: str | os.PathLike[str]) -> list[Document] | None:
        """The documents of one file, as :meth:`lazy_load` would give them (its loader
        chosen by suffix): None when the file is skipped (binary, broken link; the reason
        is in ``skipped``). The loader's error is raised, not recorded."""
        path = str(path)
        factory = self.loader_for(path)
        if self._should_skip(path, factory):
            return None
        return _load_file(factory, self.loader_kwargs, path)

    def _sample(self, paths: list[Path]) -> list[Path]:
        if not self.sample_size:
            return paths
        if self.randomize_sample:
            paths = list(paths)
            random.Random(self.sample_seed).shuffle(paths)
        return sorted(paths[: self.sample_size], key=lambda path: path.parts)

    def _outcomes(
        self, paths: list[Path]
    ) -> Iterator[tuple[str, list[Document] | Exception | None]]:
        """``(path, documents | error | None)`` per file, None for a skipped file.

        Documents and errors come in ``paths`` order; skips may come earlier.
        """
        jobs = [(str(path), self.loader_for(path)) for path in paths]
        if not self.use_multithreading:
            for path, factory in jobs:
                skip = self._should_skip(path, factory)
                yield path, None if skip else self._attempt(factory, path)
            return
        executor = ThreadPoolExecutor(max_workers=self.max_concurrency)
        # A window of at most 2 * max_concurrency files in flight keeps memory bounded and
        # lets results be yielded in order while later files load.
        pending: deque[tuple[str, Future[list[Document] | Exception]]] = deque()
        try:
            for path, factory in jobs:
                if self._should_skip(path, factory):
                    yield path, None
                    continue
                pending.append((path, executor.submit(self._attempt, factory, path)))
                while len(pending) >= 2 * self.max_concurrency:
                    done_path, future = pending.popleft()
                    yield done_path, future.result()
            while pending:
                done_path, future = pending.popleft()
                yield done_path, future.result()
        finally:
            executor.shutdown(wait=True, cancel_futures=True)

    def _should_skip(self, path: str, factory: LoaderFactory) -> bool:
        if not os.path.exists(path):  # a symbolic link whose target is gone
            self.report.record_skip(path, "broken symbolic link")
            return True
        if _accepts_binary(factory):
            return False
        try:
            binary = looks_binary(path)
        except OSError:
            # Unreadable: the loader meets the same error, which is then reported as a failure.
            return False
        if binary:
            self.report.record_skip(
                path, f"binary file (NUL byte in the first {SNIFF_BYTES} bytes)"
            )
        return binary

    def _attempt(self, factory: LoaderFactory, path: str) -> list[Document] | Exception:
        try:
            return _load_file(factory, self.loader_kwargs, path)
        except Exception as exc:  # reported by _fail, in path order, never dropped
            return exc

    def _fail(self, path: str, error: Exception) -> None:
        if not self.silent_errors:
            logger.error("Error loading file %s", path)
            if hasattr(error, "add_note"):  # Python 3.11+
                error.add_note(f"while loading {path!r} in DirectoryLoader({str(self.path)!r})")
            raise error
        self.report.record_failure(path, error)


def _patterns(name: str, value: GlobPatterns) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise ValidationError(
        f"{name} must be a str or a list/tuple of str, got {type(value).__name__}: {value!r}"
    )
