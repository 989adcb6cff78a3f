"""Every Python block of the README runs as written (in a folder with a docs/ to index).

Blocks preceded by ``<!-- readme-test: fake-chat-model -->`` call a remote chat model; they
run with ``rag.models.ChatOpenAI`` replaced by the fake chat model.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rag.models
from rag.models import FakeListChatModel

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"(?:<!-- readme-test: (?P<mark>[\w-]+) -->\n)?```python\n(?P<code>.*?)```", re.DOTALL)


def python_blocks() -> list[tuple[str | None, str]]:
    return [(m.group("mark"), m.group("code")) for m in BLOCK.finditer(README.read_text(encoding="utf-8"))]


def test_the_readme_has_python_blocks_including_one_with_a_chat_model():
    marks = [mark for mark, _ in python_blocks()]
    assert len(marks) >= 3 and "fake-chat-model" in marks


def test_every_python_block_runs_in_order(tmp_path, monkeypatch, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "setup.md").write_text("# Setup\n\nYou configure it in settings.toml. Set the port and the index folder there.\n")
    (docs / "old.md").write_text("# Old\n\nThe old way was to configure it with environment variables.\n")
    monkeypatch.chdir(tmp_path)
    replies = []

    def fake_chat_openai(**kwargs):
        replies.append(kwargs)
        return FakeListChatModel(responses=["You configure it in settings.toml [1]."])

    real_chat_openai = rag.models.ChatOpenAI
    namespace: dict = {}
    for mark, code in python_blocks():
        chat_openai = fake_chat_openai if mark == "fake-chat-model" else real_chat_openai
        monkeypatch.setattr(rag.models, "ChatOpenAI", chat_openai)
        # dont_inherit: run as a user would, without this file's `from __future__ import annotations`
        exec(compile(code, str(README), "exec", dont_inherit=True), namespace)
    assert replies and all(r["model"] == "gpt-4o-mini" for r in replies)
    printed = capsys.readouterr().out
    assert "settings.toml" in printed and "[1]" in printed and "setup.md" in printed
    assert namespace["answer"].answer == "You configure it in settings.toml [1]."
    # Agentic RAG: the agent's final answer cites the passage it searched for.
    cited = namespace["sources"].cited(namespace["final"])
    assert [Path(d.metadata["source"]).name for d in cited] == ["setup.md"]
