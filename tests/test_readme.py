"""The README works as written: every code block runs in order (tests/doc_blocks.py), in a
scratch folder with a docs/ to index, the walk's shell commands included, and the server
it starts answers the blocks after it."""

from __future__ import annotations

from pathlib import Path

from rag.models import FakeListChatModel

from doc_blocks import ROOT, blocks, make_workspace, problems, run_page

README = ROOT / "README.md"


def test_the_readme_is_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_every_block_of_the_readme_is_run_or_skipped_with_a_reason():
    assert problems(README) == []


def test_the_readme_walks_through_index_search_ask_chat_and_serve_in_shell_blocks():
    shell = "\n".join(block.code for block in blocks(README) if block.lang == "sh")
    for command in ("make demo", "make test", "rag index", "rag search", "rag ask", "rag chat", "rag serve"):
        assert command in shell
    assert any(block.mark == "fake-chat-model" for block in blocks(README))


def test_every_block_of_the_readme_runs_in_order(tmp_path, capsys):
    replies = []

    def fake_chat_openai(**kwargs):
        replies.append(kwargs)
        return FakeListChatModel(responses=["You configure it in settings.toml [1]."])

    namespace = run_page(README, make_workspace(tmp_path), fake_chat_openai)
    assert replies and all(r["model"] == "gpt-4o-mini" for r in replies)
    printed = capsys.readouterr().out
    assert "settings.toml" in printed and "[1]" in printed and "setup.md" in printed
    assert namespace["answer"].answer == "You configure it in settings.toml [1]."
    # The OpenAI client's answer came from the index rag serve kept warm.
    assert "settings.toml" in namespace["reply"].choices[0].message.content
    assert (tmp_path / ".rag").is_dir() and (tmp_path / "my-index").is_dir()
