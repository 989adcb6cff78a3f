"""Every code block of the documentation site runs as written (tests/doc_blocks.py: one
scratch folder per page, blocks in order), or is marked as not run with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.models import FakeListChatModel

from doc_blocks import ROOT, blocks, make_workspace, problems, run_page

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
RUNNABLE = [page for page in PAGES if any(block.lang in ("python", "py", "sh", "bash") for block in blocks(page))]


def _id(page: Path) -> str:
    return str(page.relative_to(DOCS))


def _fake_chat_openai(**kwargs):
    return FakeListChatModel(responses=["You configure it in settings.toml [1]."])


def test_every_block_of_every_page_is_run_or_skipped_with_a_reason():
    assert [problem for page in PAGES for problem in problems(page)] == []


def test_every_skipped_block_says_why():
    skipped = [block for page in PAGES for block in blocks(page) if block.mark == "skip"]
    assert all(len(block.reason.split()) >= 3 for block in skipped), [b.where for b in skipped]


@pytest.mark.parametrize("page", RUNNABLE, ids=_id)
def test_the_blocks_of_the_page_run_in_order(page, tmp_path):
    run_page(page, make_workspace(tmp_path), _fake_chat_openai)


def test_the_agent_tutorial_cites_the_passage_its_search_found(tmp_path):
    namespace = run_page(DOCS / "tutorials" / "agent.md", make_workspace(tmp_path), _fake_chat_openai)
    cited = namespace["sources"].cited(namespace["final"])
    assert [Path(d.metadata["source"]).name for d in cited] == ["setup.md"]


@pytest.mark.parametrize("lang, code", [("python", "assert 1 + 1 == 3\n"), ("sh", "rag search\n")])
def test_a_failing_block_is_reported_with_its_page_and_line(tmp_path, lang, code):
    page = tmp_path / "page.md"
    page.write_text(f"# A page\n\nText.\n\n```{lang}\n{code}```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=rf"page\.md:6: the block "):
        run_page(page, make_workspace(tmp_path / "workspace"), _fake_chat_openai)


def test_a_fence_without_a_language_or_a_skip_without_a_reason_is_a_problem(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n```\nrag index docs/\n```\n\n<!-- docs-test: skip -->\n```sh\nrag serve\n```\n",
                    encoding="utf-8")
    assert [problem.split(": ", 1)[0].rsplit("/", 1)[-1] for problem in problems(page)] == ["page.md:4", "page.md:9"]
