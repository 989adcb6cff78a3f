"""Gitignore-syntax patterns, compiled to regular expressions over ``/``-separated paths.

One translation of glob syntax serves three users in :mod:`loaders.selection`: ignore
files (``.ragignore``, gitignore syntax), ``exclude`` patterns (the same syntax, without
``!``) and ``glob`` patterns (pathlib syntax, matched at any depth as ``Path.rglob``).
Written here rather than depending on ``pathspec``: the subset git documents for
gitignore (``*``, ``?``, ``[...]``, ``**``, ``!``, trailing ``/``, anchoring ``/``,
``\\`` escapes) is small, and the core stays free of new dependencies.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "IgnoreRule",
    "glob_regex",
    "compile_rule",
    "read_ignore_file",
    "last_match",
    "any_depth_glob",
]

_ANY_DEPTH = "(?:.*/)?"


def glob_regex(pattern: str) -> str:
    """A regular expression (for ``fullmatch``) of a glob over ``/``-separated paths.

    ``*`` and ``?`` match within one path component, ``[...]`` is a character class
    (``[!...]`` or ``[^...]`` negated), ``**/`` at the start or ``/**/`` inside match any
    number of folders, ``/**`` at the end everything inside, and ``\\x`` the character x.
    Other ``**`` are plain ``*``, as git says.

    >>> import re
    >>> bool(re.fullmatch(glob_regex("docs/**/*.md"), "docs/a/b/c.md"))
    True
    """
    out: list[str] = []
    index, size = 0, len(pattern)
    while index < size:
        char = pattern[index]
        if char == "*":
            stars = len(pattern[index:]) - len(pattern[index:].lstrip("*"))
            at_start = index == 0 or pattern[index - 1] == "/"
            after = index + stars
            if stars >= 2 and at_start and pattern[after : after + 1] == "/":
                out.append(_ANY_DEPTH)  # "**/": zero or more folders
                index = after + 1
                continue
            if stars >= 2 and at_start and after == size:
                out.append(".*")  # a trailing "/**": everything inside
            else:
                out.append("[^/]*")
            index = after
        elif char == "?":
            out.append("[^/]")
            index += 1
        elif char == "[":
            end = _class_end(pattern, index)
            if end < 0:  # no closing bracket: a literal "["
                out.append(re.escape(char))
                index += 1
                continue
            body = pattern[index + 1 : end]
            negated = body[:1] in ("!", "^")
            body = body[1:] if negated else body
            escaped = "".join("\\" + c if c in "\\[]^" else c for c in body)
            # A class never matches "/" (a range such as [+-0] would include it).
            out.append(f"[^/{escaped}]" if negated else f"(?!/)[{escaped}]")
            index = end + 1
        elif char == "\\" and index + 1 < size:
            out.append(re.escape(pattern[index + 1]))
            index += 2
        else:
            out.append(re.escape(char))
            index += 1
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    """Index of the ``]`` closing the class opened at ``start`` (-1 when none)."""
    index = start + 1
    if pattern[index : index + 1] in ("!", "^"):
        index += 1
    if pattern[index : index + 1] == "]":  # a "]" first in the class is literal
        index += 1
    return pattern.find("]", index)


@dataclass(frozen=True)
class IgnoreRule:
    """One pattern line: ``pattern`` as written, where it came from (``origin``: an
    ignore file's path, or ``--exclude``), the folder it is relative to (``base``: a
    ``/``-terminated path relative to the selection's root, ``""`` for the root)."""

    pattern: str
    origin: str
    base: str
    regex: re.Pattern[str]
    negated: bool
    directory_only: bool

    def matches(self, relative: str, is_dir: bool) -> bool:
        """Whether the rule applies to ``relative`` (a path from the root, ``/``-separated)."""
        if self.directory_only and not is_dir:
            return False
        if not relative.startswith(self.base):
            return False
        return self.regex.fullmatch(relative[len(self.base) :]) is not None


def compile_rule(line: str, *, origin: str, base: str = "") -> IgnoreRule | None:
    """The rule of one gitignore line, None for a blank line or a ``#`` comment.

    Trailing spaces are dropped unless escaped (``\\ ``); ``!`` negates (``\\!`` is a
    literal ``!``); a trailing ``/`` matches folders only; a ``/`` at the start or in the
    middle anchors the pattern to ``base``, otherwise it matches at any depth.
    """
    text = line.rstrip("\n").rstrip("\r")
    while text.endswith(" ") and not text.endswith("\\ "):
        text = text[:-1]
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    if negated:
        text = text[1:]
    elif text.startswith(("\\!", "\\#")):
        text = text[1:]
    directory_only = text.endswith("/")
    body = text.rstrip("/")
    if not body:
        return None
    anchored = "/" in body
    body = body.lstrip("/")
    regex = glob_regex(body) if anchored else _ANY_DEPTH + glob_regex(body)
    return IgnoreRule(
        pattern=line.strip(),
        origin=origin,
        base=base,
        regex=re.compile(regex, re.DOTALL),
        negated=negated,
        directory_only=directory_only,
    )


def read_ignore_file(path: str | os.PathLike[str], *, base: str) -> list[IgnoreRule]:
    """The rules of an ignore file (UTF-8, undecodable bytes replaced) in file order."""
    origin = os.fspath(path)
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().splitlines()
    return [rule for line in lines if (rule := compile_rule(line, origin=origin, base=base))]


def last_match(rules: Iterable[IgnoreRule], relative: str, is_dir: bool) -> IgnoreRule | None:
    """The last of ``rules`` (in precedence order) that applies to ``relative``: the one
    that decides, ignored unless it is ``negated``. None when no rule applies."""
    decided = None
    for rule in rules:
        if rule.matches(relative, is_dir):
            decided = rule
    return decided


def any_depth_glob(patterns: Sequence[str]) -> re.Pattern[str]:
    """One regular expression for pathlib-style ``patterns`` matched as ``Path.rglob``
    does: at any depth below the root (``"*.md"`` is every Markdown file)."""
    alternatives = "|".join(_ANY_DEPTH + glob_regex(pattern) for pattern in patterns)
    return re.compile(f"(?:{alternatives})", re.DOTALL)
