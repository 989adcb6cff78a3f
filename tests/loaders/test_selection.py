"""select_files: documents by default, generated output and links out of the tree left out,
user exclusions (patterns and ignore files), every skip reported with its reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from loaders.selection import DOCUMENT_SUFFIXES, TypeCount, select_files
from rag.errors import ValidationError


def make(root: Path, *paths: str, text: str = "x") -> None:
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def selected(root: Path, **kwargs) -> list[str]:
    return [path.relative_to(root).as_posix() for path in select_files(root, **kwargs).files]


def skipped(root: Path, **kwargs) -> dict[str, str]:
    return {
        os.path.relpath(path, root) + ("/" if path.endswith("/") else ""): reason
        for path, reason in select_files(root, **kwargs).skipped
    }


@pytest.fixture
def sphinx_site(tmp_path: Path) -> Path:
    """A Sphinx build as Debian ships one: content pages plus generated output, and a
    JavaScript library linked from outside the tree."""
    site = tmp_path / "html"
    make(
        site,
        "index.html",
        "library/os.html",
        "_sources/library/os.rst.txt",
        "_static/basic.css",
        "searchindex.js",
        "genindex-A.html",
        "search.html",
        "py-modindex.html",
        "objects.inv",
    )
    make(tmp_path, "javascript/jquery.js")
    (site / "_static" / "jquery.js").symlink_to(tmp_path / "javascript" / "jquery.js")
    return site


# -- a Sphinx build ----------------------------------------------------------------------


def test_a_sphinx_build_selects_only_its_content_pages(sphinx_site: Path) -> None:
    assert selected(sphinx_site) == ["index.html", "library/os.html"]


def test_each_piece_of_sphinx_output_is_skipped_naming_the_generator(sphinx_site: Path) -> None:
    assert skipped(sphinx_site) == {
        "_sources/": "generated output (Sphinx _sources/)",
        "_static/": "generated output (Sphinx _static/)",
        "genindex-A.html": "generated output (Sphinx genindex*.html)",
        "objects.inv": "generated output (Sphinx objects.inv)",
        "py-modindex.html": "generated output (Sphinx py-modindex.html)",
        "search.html": "generated output (Sphinx search.html)",
        "searchindex.js": "generated output (Sphinx searchindex.js)",
    }


def test_include_generated_selects_generated_pages_but_not_scripts_or_links_out(
    sphinx_site: Path, tmp_path: Path
) -> None:
    assert selected(sphinx_site, include_generated=True) == [
        "_sources/library/os.rst.txt",
        "genindex-A.html",
        "index.html",
        "library/os.html",
        "py-modindex.html",
        "search.html",
    ]
    reasons = skipped(sphinx_site, include_generated=True)
    assert reasons["_static/basic.css"] == "not a document type (.css)"
    target = os.path.realpath(tmp_path / "javascript" / "jquery.js")
    assert reasons["_static/jquery.js"] == f"symlink to a file outside the folder ({target})"


def test_search_page_counts_as_generated_only_beside_a_search_index(tmp_path: Path) -> None:
    make(tmp_path, "search.html", "docs/search.html", "docs/searchindex.js")
    assert selected(tmp_path) == ["search.html"]


# -- types, hidden files, links --------------------------------------------------------


def test_documents_are_selected_and_scripts_styles_and_binaries_are_not(tmp_path: Path) -> None:
    make(tmp_path, "a.md", "b.rst", "c.pdf", "d.json", "e.py", "f.css", "g.png", "README", "Makefile")
    assert selected(tmp_path) == ["README", "a.md", "b.rst", "c.pdf", "d.json"]
    assert skipped(tmp_path) == {
        "e.py": "not a document type (.py)",
        "f.css": "not a document type (.css)",
        "g.png": "not a document type (.png)",
        "Makefile": "not a document type (no suffix)",
    }


def test_suffixes_are_compared_without_case(tmp_path: Path) -> None:
    make(tmp_path, "PAGE.HTML")
    assert selected(tmp_path) == ["PAGE.HTML"]


def test_document_suffixes_cover_the_loaders_formats_and_not_code() -> None:
    assert {".html", ".md", ".rst", ".txt", ".pdf", ".csv", ".json", ".jsonl"} <= DOCUMENT_SUFFIXES
    assert not {".js", ".css", ".py", ".png", ".gz"} & DOCUMENT_SUFFIXES


def test_hidden_files_and_folders_are_left_out_unreported(tmp_path: Path) -> None:
    make(tmp_path, ".secret.md", ".git/notes.md", "shown.md")
    assert selected(tmp_path) == ["shown.md"]
    assert skipped(tmp_path) == {}


def test_a_link_to_a_file_selected_anyway_is_left_out_as_a_duplicate(tmp_path: Path) -> None:
    make(tmp_path, "real.md")
    (tmp_path / "alias.md").symlink_to(tmp_path / "real.md")
    (tmp_path / "again.md").symlink_to(tmp_path / "alias.md")
    target = os.path.realpath(tmp_path / "real.md")
    assert selected(tmp_path) == ["real.md"]
    assert skipped(tmp_path) == {
        "again.md": f"symlink to a file already selected ({target})",
        "alias.md": f"symlink to a file already selected ({target})",
    }


def test_a_link_is_selected_once_when_its_target_is_not(tmp_path: Path) -> None:
    make(tmp_path, ".hidden/real.md")
    for name in ("b.md", "a.md"):
        (tmp_path / name).symlink_to(tmp_path / ".hidden" / "real.md")
    assert selected(tmp_path) == ["a.md"]
    assert list(skipped(tmp_path)) == ["b.md"]


def test_a_link_to_a_file_outside_the_tree_is_skipped_naming_its_target(tmp_path: Path) -> None:
    make(tmp_path, "outside/page.md", "docs/in.md")
    (tmp_path / "docs" / "page.md").symlink_to(tmp_path / "outside" / "page.md")
    target = os.path.realpath(tmp_path / "outside" / "page.md")
    assert selected(tmp_path / "docs") == ["in.md"]
    assert skipped(tmp_path / "docs") == {
        "page.md": f"symlink to a file outside the folder ({target})"
    }


def test_a_linked_folder_is_not_entered_and_is_reported(tmp_path: Path) -> None:
    make(tmp_path, "outside/page.md", "docs/in.md")
    (tmp_path / "docs" / "more").symlink_to(tmp_path / "outside")
    (tmp_path / "docs" / "loop").symlink_to(tmp_path / "docs")
    target = os.path.realpath(tmp_path / "outside")
    assert selected(tmp_path / "docs") == ["in.md"]
    assert skipped(tmp_path / "docs") == {
        "loop/": "symlink to a folder in the tree: not followed",
        "more/": f"symlink to a folder outside the folder ({target}): not followed",
    }


def test_a_broken_link_is_reported(tmp_path: Path) -> None:
    (tmp_path / "gone.md").symlink_to(tmp_path / "nowhere.md")
    assert skipped(tmp_path) == {"gone.md": "broken symbolic link"}


def test_a_source_beside_the_page_built_from_it_is_skipped(tmp_path: Path) -> None:
    make(tmp_path, "git-add.html", "git-add.txt", "diff-options.txt", "guide.md", "guide.html")
    assert selected(tmp_path) == ["diff-options.txt", "git-add.html", "guide.html"]
    assert skipped(tmp_path) == {
        "git-add.txt": "source of a built page (git-add.html)",
        "guide.md": "source of a built page (guide.html)",
    }
    assert "git-add.txt" in selected(tmp_path, include_generated=True)


# -- exclude patterns -------------------------------------------------------------------


def test_exclude_pattern_without_slash_matches_at_any_depth(tmp_path: Path) -> None:
    make(tmp_path, "a.txt", "sub/b.txt", "sub/c.md")
    assert selected(tmp_path, exclude=["*.txt"]) == ["sub/c.md"]
    assert skipped(tmp_path, exclude=["*.txt"])["sub/b.txt"] == "excluded by --exclude '*.txt'"


def test_exclude_folder_pattern_leaves_out_the_folder_once(tmp_path: Path) -> None:
    make(tmp_path, "drafts/a.md", "drafts/b.md", "post/drafts.md")
    assert selected(tmp_path, exclude=["drafts/"]) == ["post/drafts.md"]
    assert skipped(tmp_path, exclude=["drafts/"]) == {"drafts/": "excluded by --exclude 'drafts/'"}


def test_exclude_patterns_with_a_slash_are_anchored_and_double_star_spans_folders(
    tmp_path: Path,
) -> None:
    make(tmp_path, "top.md", "sub/top.md", "a/old/x.md", "b/c/old/y.md", "old/z.md", "c/old.md")
    assert selected(tmp_path, exclude=["/top.md", "**/old/*"]) == ["c/old.md", "sub/top.md"]


def test_exclude_patterns_accumulate(tmp_path: Path) -> None:
    make(tmp_path, "a.md", "b.txt", "c.html")
    assert selected(tmp_path, exclude=["*.md", "*.txt"]) == ["c.html"]


def test_an_exclude_pattern_cannot_re_include(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="'!keep.md'"):
        select_files(tmp_path, exclude=["!keep.md"])


# -- ignore files -----------------------------------------------------------------------


def test_ignore_file_comments_negation_and_folder_rules(tmp_path: Path) -> None:
    make(tmp_path, "a.md", "keep.md", "notes.txt", "build/out.html", "src/build", "#literal.md")
    (tmp_path / ".ragignore").write_text(
        "# generated pages\n\n*.md\n!keep.md\nbuild/\n\\#literal.md\n"
    )
    assert selected(tmp_path) == ["keep.md", "notes.txt"]
    origin = str(tmp_path / ".ragignore")
    reasons = skipped(tmp_path)
    assert reasons["a.md"] == f"ignored by {origin} ('*.md')"
    assert reasons["build/"] == f"ignored by {origin} ('build/')"
    # a folder rule does not leave out a file of that name
    assert reasons["src/build"] == "not a document type (no suffix)"


def test_ignore_file_patterns_with_a_slash_are_anchored_to_its_folder(tmp_path: Path) -> None:
    make(tmp_path, "a.md", "sub/a.md", "sub/deeper/a.md", "sub/b.md", "other/sub/b.md")
    (tmp_path / ".ragignore").write_text("/a.md\nsub/b.md\n")
    assert selected(tmp_path) == ["other/sub/b.md", "sub/a.md", "sub/deeper/a.md"]


def test_ignore_file_in_a_subfolder_applies_below_it_and_wins_over_the_root_one(
    tmp_path: Path,
) -> None:
    make(tmp_path, "a.txt", "guides/a.txt", "guides/b.txt", "guides/x/a.txt", "other/b.txt")
    (tmp_path / ".ragignore").write_text("*.txt\n")
    (tmp_path / "guides" / ".ragignore").write_text("!*.txt\n/b.txt\n")
    assert selected(tmp_path) == ["guides/a.txt", "guides/x/a.txt"]


def test_a_file_in_an_ignored_folder_cannot_be_re_included(tmp_path: Path) -> None:
    make(tmp_path, "drafts/keep.md", "drafts/other.md")
    (tmp_path / ".ragignore").write_text("drafts/\n!drafts/keep.md\n")
    assert selected(tmp_path) == []


def test_ignore_file_name_none_reads_no_ignore_file(tmp_path: Path) -> None:
    make(tmp_path, "a.md")
    (tmp_path / ".ragignore").write_text("*.md\n")
    assert selected(tmp_path, ignore_file_name=None) == ["a.md"]


def test_another_ignore_file_name_can_be_used_and_is_never_selected(tmp_path: Path) -> None:
    make(tmp_path, "a.md", "b.md")
    (tmp_path / "ignore.txt").write_text("a.md\n")
    assert selected(tmp_path, ignore_file_name="ignore.txt") == ["b.md"]


# -- explicit glob ----------------------------------------------------------------------


def test_an_explicit_glob_selects_any_type_at_any_depth(tmp_path: Path) -> None:
    make(tmp_path, "tool.py", "pkg/mod.py", "pkg/readme.md")
    assert selected(tmp_path, glob="*.py") == ["pkg/mod.py", "tool.py"]
    assert skipped(tmp_path, glob="*.py") == {}  # files the glob does not match are not skips


def test_an_explicit_glob_still_leaves_out_generated_output(sphinx_site: Path) -> None:
    assert selected(sphinx_site, glob=["*.js", "*.html"]) == ["index.html", "library/os.html"]
    assert "searchindex.js" in selected(sphinx_site, glob="*.js", include_generated=True)


def test_glob_patterns_with_folders_and_double_star(tmp_path: Path) -> None:
    make(tmp_path, "a.md", "guides/b.md", "x/guides/c.md", "guides/deep/d.md")
    assert selected(tmp_path, glob="guides/*.md") == ["guides/b.md", "x/guides/c.md"]
    assert selected(tmp_path, glob="**/*.md") == [
        "a.md",
        "guides/b.md",
        "guides/deep/d.md",
        "x/guides/c.md",
    ]


def test_a_source_is_kept_when_its_page_is_not_selected(tmp_path: Path) -> None:
    make(tmp_path, "git-add.html", "git-add.txt")
    assert selected(tmp_path, glob="*.txt") == ["git-add.txt"]


# -- order, summary, errors -------------------------------------------------------------


def test_files_are_sorted_by_path_components(tmp_path: Path) -> None:
    make(tmp_path, "a.md", "a/b.md", "a-b.md", "B.md")
    assert selected(tmp_path) == ["B.md", "a/b.md", "a-b.md", "a.md"]


def test_by_type_counts_files_and_bytes_per_suffix(tmp_path: Path) -> None:
    make(tmp_path, "a.html", "b.html", text="12345")
    make(tmp_path, "c.md", text="1")
    assert select_files(tmp_path).by_type() == {
        ".html": TypeCount(files=2, bytes=10),
        ".md": TypeCount(files=1, bytes=1),
    }


def test_a_missing_folder_raises_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="absent"):
        select_files(tmp_path / "absent")


def test_a_file_given_as_root_is_a_validation_error(tmp_path: Path) -> None:
    make(tmp_path, "a.md")
    with pytest.raises(ValidationError, match="a.md"):
        select_files(tmp_path / "a.md")


@pytest.mark.parametrize("glob", [[], [""], "/abs/*.md", 3])
def test_a_malformed_glob_is_refused(tmp_path: Path, glob: object) -> None:
    with pytest.raises(ValidationError):
        select_files(tmp_path, glob=glob)  # type: ignore[arg-type]
