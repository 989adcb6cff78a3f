"""MkDocs hook: a broken internal link or an API reference to a name that does not exist
fails the build with the page and the line (``how-to/filters.md:12: ...``).

MkDocs' own strict validation catches both too, but names only the page; this hook runs
first and points at the line, so the fix is one look away.
"""

from __future__ import annotations

import importlib
import importlib.util
import posixpath
import re
from typing import Any

LINK = re.compile(r"\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
REFERENCE = re.compile(r"^:::\s+(?P<name>[\w.]+)\s*$")
FENCE = re.compile(r"^\s*```")


def on_page_markdown(markdown: str, page: Any, files: Any, **_: Any) -> str:
    """Check the page's relative links and ``::: name`` references before MkDocs renders it."""
    from mkdocs.exceptions import PluginError

    known = {file.src_uri for file in files}
    errors = []
    in_fence = False
    for number, line in enumerate(markdown.splitlines(), start=1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for match in LINK.finditer(line):
            target = match["target"].split("#", 1)[0]
            if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
                continue
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), target))
            if resolved not in known and posixpath.join(resolved, "index.md") not in known:
                errors.append(f"{page.file.src_uri}:{number}: the link {match['target']!r} leads to no page or file of the site")
        reference = REFERENCE.match(line)
        if reference and not _exists(reference["name"]):
            errors.append(f"{page.file.src_uri}:{number}: '::: {reference['name']}' names nothing importable")
    if errors:
        raise PluginError("\n".join(errors))
    return markdown


def _exists(dotted: str) -> bool:
    """True when ``dotted`` is a module, or a name inside one (a module is only looked up,
    not imported: importing the store backends would cost the build seconds)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            continue
        if cut == len(parts):
            return True
        value: Any = importlib.import_module(module)
        for name in parts[cut:]:
            if not hasattr(value, name):
                return False
            value = getattr(value, name)
        return True
    return False
