"""MarkdownLoader and markdown_to_text: headings as plain lines, title from the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from loaders import MarkdownLoader
from loaders.markdown import markdown_to_text
from loaders.testing import LoaderConformance

GUIDE = """# Install guide

Some *intro* text.

## Steps ##

1. Download.

```bash
# this comment is not a heading
pip install thing
```
"""


class TestMarkdownLoaderConformance(LoaderConformance):
    @pytest.fixture
    def loader(self, tmp_path: Path) -> MarkdownLoader:
        path = tmp_path / "guide.md"
        path.write_text(GUIDE)
        return MarkdownLoader(str(path))

    @pytest.fixture
    def missing_loader(self, tmp_path: Path) -> tuple[MarkdownLoader, str]:
        path = str(tmp_path / "absent.md")
        return MarkdownLoader(path), path


def test_heading_markers_are_removed_and_heading_text_kept() -> None:
    lines = markdown_to_text(GUIDE).text.split("\n")
    assert lines[0] == "Install guide"
    assert "Steps" in lines


def test_other_lines_are_kept_as_written() -> None:
    text = markdown_to_text(GUIDE).text
    assert "Some *intro* text." in text and "1. Download." in text


def test_hash_lines_inside_code_blocks_are_kept_verbatim() -> None:
    result = markdown_to_text(GUIDE)
    assert "# this comment is not a heading" in result.text.split("\n")
    assert "```" not in result.text


def test_title_is_the_first_heading() -> None:
    assert markdown_to_text("para\n\n## Second level first\n\n# Top").title == "Second level first"


def test_title_is_empty_without_headings() -> None:
    assert markdown_to_text("just text\n").title == ""


def test_setext_heading_gives_title_and_loses_its_underline() -> None:
    result = markdown_to_text("Project name\n============\n\nBody")
    assert result.title == "Project name"
    assert result.text == "Project name\n\nBody"


def test_dashes_after_a_list_item_are_a_rule_not_a_heading() -> None:
    result = markdown_to_text("- item\n---\n")
    assert result.title == ""
    assert result.text == "- item\n---\n"


def test_hashtag_without_space_is_not_a_heading() -> None:
    assert markdown_to_text("#hashtag").title == ""


def test_front_matter_moves_to_metadata(tmp_path: Path) -> None:
    path = tmp_path / "post.md"
    path.write_text("---\nauthor: Ada\n---\n# Post\nText\n")
    document = MarkdownLoader(path).load()[0]
    assert document.page_content == "Post\nText\n"
    assert document.metadata == {
        "source": str(path),
        "title": "Post",
        "front_matter": "author: Ada",
    }


def test_loader_metadata_has_source_and_title(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(GUIDE)
    assert MarkdownLoader(path).load()[0].metadata == {
        "source": str(path),
        "title": "Install guide",
    }


def test_loader_autodetects_encoding_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "latin.md"
    path.write_bytes("# Café".encode("latin-1"))
    assert MarkdownLoader(path, autodetect_encoding=True).load()[0].metadata["title"] == "Café"
