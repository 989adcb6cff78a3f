"""Output of documentation generators that is not a page of content, recognised by name.

Each entry was checked against real output: Sphinx (Debian's ``python3.11-doc``),
DocBook XSL (``postgresql-doc-15``), MkDocs, Doxygen and javadoc (their documented
output layouts). Names that a hand-written site could also use for content (``search``,
``files.html``, ``classes.html``...) only count when a ``marker`` the generator always
writes sits in the same folder.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass, field

from loaders._gitignore import glob_regex

__all__ = ["GeneratedPattern", "GENERATED_PATTERNS", "generated_match"]


@dataclass(frozen=True)
class GeneratedPattern:
    """A file or folder name that a documentation ``generator`` writes and that is not
    content: ``pattern`` is a glob over one name (``*``, ``?``, ``[...]``), ending in
    ``/`` for a folder; ``markers``: when given, the pattern only applies in a folder
    holding one of these names.

    >>> GeneratedPattern("Sphinx", "genindex*.html").matches("genindex-A.html", False, set())
    True
    """

    generator: str
    pattern: str
    markers: tuple[str, ...] = ()
    _regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_regex", re.compile(glob_regex(self.pattern.rstrip("/"))))

    @property
    def folder(self) -> bool:
        """True for a folder pattern (written with a trailing ``/``)."""
        return self.pattern.endswith("/")

    def matches(self, name: str, is_dir: bool, siblings: Container[str]) -> bool:
        """Whether ``name`` (a file, or a folder when ``is_dir``) in a folder holding
        ``siblings`` is this generator's output."""
        if self.folder != is_dir or self._regex.fullmatch(name) is None:
            return False
        return not self.markers or any(marker in siblings for marker in self.markers)

    def describe(self) -> str:
        """``"Sphinx _static/"``: the generator and the pattern, for skip reasons."""
        return f"{self.generator} {self.pattern}"


_JAVADOC_ROOT = ("element-list", "package-list")  # written at the root of every javadoc
_JAVADOC_PACKAGE = ("package-summary.html",)  # written in every package folder
_DOXYGEN = ("doxygen.css",)

#: Generated output left out of a folder's selection unless ``include_generated``.
GENERATED_PATTERNS: tuple[GeneratedPattern, ...] = (
    # Sphinx: reST sources copied beside the pages, theme files and search data, the
    # general and module indexes, the search page, the intersphinx inventory, viewcode's
    # highlighted sources, copied images and downloads.
    GeneratedPattern("Sphinx", "_sources/"),
    GeneratedPattern("Sphinx", "_static/"),
    GeneratedPattern("Sphinx", "_images/"),
    GeneratedPattern("Sphinx", "_downloads/"),
    GeneratedPattern("Sphinx", "_modules/"),
    GeneratedPattern("Sphinx", "searchindex.js"),
    GeneratedPattern("Sphinx", "genindex*.html"),
    GeneratedPattern("Sphinx", "py-modindex.html"),
    GeneratedPattern("Sphinx", "objects.inv"),
    GeneratedPattern("Sphinx", "search.html", markers=("searchindex.js",)),
    # DocBook XSL: the book's generated index (PostgreSQL names it bookindex.html; the
    # stylesheets' default chunk name is ix01.html).
    GeneratedPattern("DocBook", "bookindex.html"),
    GeneratedPattern("DocBook", "ix[0-9][0-9].html"),
    # MkDocs: the search index and scripts; static site generators: sitemaps, 404 page.
    GeneratedPattern("MkDocs", "search_index.json"),
    GeneratedPattern("MkDocs", "search/", markers=("sitemap.xml", "sitemap.xml.gz")),
    GeneratedPattern("site generator", "sitemap*.xml"),
    GeneratedPattern("site generator", "404.html"),
    # javadoc: the class and package lists, the A-Z index, the trees, the deprecated
    # list, the generic help page and the "Uses of Class" pages.
    GeneratedPattern("javadoc", "allclasses*.html"),
    GeneratedPattern("javadoc", "allpackages-index.html"),
    GeneratedPattern("javadoc", "index-all.html", markers=_JAVADOC_ROOT),
    GeneratedPattern("javadoc", "index-files/", markers=_JAVADOC_ROOT),
    GeneratedPattern("javadoc", "overview-tree.html", markers=_JAVADOC_ROOT),
    GeneratedPattern("javadoc", "deprecated-list.html", markers=_JAVADOC_ROOT),
    GeneratedPattern("javadoc", "help-doc.html", markers=_JAVADOC_ROOT),
    GeneratedPattern("javadoc", "package-tree.html", markers=_JAVADOC_PACKAGE),
    GeneratedPattern("javadoc", "class-use/", markers=_JAVADOC_PACKAGE),
    # Doxygen: source listings, member lists and indexes, file and folder lists, the
    # class lists and hierarchy, the graph legend, the search data.
    GeneratedPattern("Doxygen", "*_source.html", markers=_DOXYGEN),
    GeneratedPattern("Doxygen", "*-members.html", markers=_DOXYGEN),
    GeneratedPattern("Doxygen", "globals*.html", markers=_DOXYGEN),
    GeneratedPattern("Doxygen", "functions*.html", markers=_DOXYGEN),
    GeneratedPattern("Doxygen", "namespacemembers*.html", markers=_DOXYGEN),
    GeneratedPattern("Doxygen", "dir_*.html", markers=_DOXYGEN),
    GeneratedPattern("Doxygen", "files.html", markers=_DOXYGEN),
    GeneratedPattern("Doxygen", "annotated.html", markers=_DOXYGEN),
    GeneratedPattern("Doxygen", "classes.html", markers=_DOXYGEN),
    GeneratedPattern("Doxygen", "hierarchy.html", markers=_DOXYGEN),
    GeneratedPattern("Doxygen", "graph_legend.html", markers=_DOXYGEN),
    GeneratedPattern("Doxygen", "search/", markers=_DOXYGEN),
)


def generated_match(
    name: str,
    is_dir: bool,
    siblings: Container[str],
    patterns: tuple[GeneratedPattern, ...] = GENERATED_PATTERNS,
) -> GeneratedPattern | None:
    """The first of ``patterns`` that ``name`` matches, None when it is not generated."""
    for pattern in patterns:
        if pattern.matches(name, is_dir, siblings):
            return pattern
    return None
