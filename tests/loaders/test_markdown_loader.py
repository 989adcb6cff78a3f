"""MarkdownLoader and markdown_to_text: headings as plain lines, title from the first."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
        "headings": [[0, "Post", None]],
        "blocks": [[0, 4, "heading"], [5, 9, "paragraph"]],
    }


def test_loader_metadata_has_source_and_title(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(GUIDE)
    metadata = MarkdownLoader(path).load()[0].metadata
    assert {key: metadata[key] for key in ("source", "title")} == {
        "source": str(path),
        "title": "Install guide",
    }
    assert list(metadata) == ["source", "title", "headings", "blocks"]


def test_loader_autodetects_encoding_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "latin.md"
    path.write_bytes("# Café".encode("latin-1"))
    assert MarkdownLoader(path, autodetect_encoding=True).load()[0].metadata["title"] == "Café"


# -- structure: the blocks a splitter carries into chunks ------------------------------------


def _spans(markdown: str) -> list[tuple[str, str]]:
    parsed = markdown_to_text(markdown)
    return [(kind, parsed.text[start:end]) for start, end, kind in parsed.blocks]


def test_each_common_block_is_recorded_with_its_kind() -> None:
    markdown = ("# Guide\n\nIntro text\ncontinues.\n\n- one\n- two\n\n```sh\nmake\n```\n\n> quoted\n\n"
                "| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert _spans(markdown) == [
        ("heading", "Guide"), ("paragraph", "Intro text\ncontinues."), ("list", "- one\n- two"),
        ("item", "- one"), ("item", "- two"), ("code", "make"), ("quote", "> quoted"),
        ("table", "| a | b |\n|---|---|\n| 1 | 2 |"),
    ]


def test_a_list_may_follow_a_paragraph_line_without_a_blank_line() -> None:
    assert _spans("Stored in these ways:\n1. a file\n2. a table\n") == [
        ("paragraph", "Stored in these ways:"), ("list", "1. a file\n2. a table"),
        ("item", "1. a file"), ("item", "2. a table")]


def test_a_loose_lists_items_keep_their_indented_continuations() -> None:
    assert _spans("- one\n\n  more of one\n- two\n\nAfter.\n") == [
        ("list", "- one\n\n  more of one\n- two"), ("item", "- one\n\n  more of one"), ("item", "- two"),
        ("paragraph", "After.")]


def test_setext_headings_and_their_offsets_are_listed_as_headings() -> None:
    parsed = markdown_to_text("Intro\n\nUsage\n=====\n\nRun it.\n")
    assert parsed.headings == [[7, "Usage", None]]
    assert ("heading", "Usage") in _spans("Intro\n\nUsage\n=====\n\nRun it.\n")


def test_a_file_of_blank_lines_has_no_blocks() -> None:
    assert markdown_to_text("\n\n   \n").blocks == []


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["# H", "text", "", "- item", "  cont", "> q", "```", "| a |", "|---|",
                                 "    code", "===", "1. n"]), max_size=30))
def test_every_block_lies_inside_the_text_and_starts_and_ends_on_text(lines: list[str]) -> None:
    parsed = markdown_to_text("\n".join(lines))
    for start, end, kind in parsed.blocks:
        assert 0 <= start < end <= len(parsed.text)
        assert parsed.text[start:end] == parsed.text[start:end].strip("\n")
        assert parsed.text[start:end].strip()
