"""`rag ask --explain` shows why each quote was chosen; `rag serve` answers /ask and
/v1/chat/completions with `rag ask`'s k, so the same question gets the same answer."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest

from rag.chains.features import FEATURES


def rag(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def index(corpus, tmp_path):
    result = rag("index", str(corpus), "--index", str(tmp_path / "ix"), "--embeddings", "hashing")
    assert result.returncode == 0, result.stderr
    return tmp_path / "ix"


def test_explain_lists_each_quote_with_what_each_feature_added(index):
    result = rag("ask", "What do goldfish swim in?", "--index", str(index), "--explain", "--json")
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    quote = reply["explain"][0]
    assert quote["text"] in reply["answer"] and set(quote["contributions"]) == set(FEATURES)
    assert sum(quote["contributions"].values()) == pytest.approx(quote["score"], abs=1e-3)


def test_explain_as_text_follows_the_answer(index):
    out = rag("ask", "What do goldfish swim in?", "--index", str(index), "--explain").stdout
    assert out.index("Sources:") < out.index("Why these quotes") and "dense +" in out


def test_explain_with_a_model_is_refused_saying_why(index):
    result = rag("ask", "goldfish?", "--index", str(index), "--explain", "--model", "gpt-x")
    assert result.returncode != 0 and "--explain" in result.stderr and "--model" in result.stderr


def test_serve_answers_ask_and_chat_completions_as_rag_ask_does(tmp_path):
    pytest.importorskip("uvicorn")
    from rag.index import Index
    from rag.index.config import ANSWER_K
    from rag.serve import serve_in_thread
    from rag.serve.index_app import index_app

    docs = tmp_path / "docs"
    docs.mkdir()
    # More passages than the old default k of 4, so a smaller k would answer differently.
    for number in range(8):
        (docs / f"page{number}.md").write_text(f"# Page {number}\n\nCats purr in room {number} when content. "
                                               f"Dogs bark in room {number}.\n")
    index = Index.create(tmp_path / "index", embeddings="hashing")
    index.update([str(docs)])
    question = "Where do cats purr when content?"
    expected = index.ask(question).answer
    assert expected == index.ask(question, k=ANSWER_K).answer
    with serve_in_thread(index_app(index)) as url:
        asked = httpx.post(f"{url}/ask/invoke", json={"input": {"input": question}}, timeout=60).json()
        completion = httpx.post(f"{url}/v1/chat/completions", timeout=60, json={
            "model": "rag-extractive", "messages": [{"role": "user", "content": question}]}).json()
    assert asked["output"]["answer"] == expected
    assert completion["choices"][0]["message"]["content"].startswith(expected)
    assert len(asked["output"]["context"]) == len(index.ask(question).context)
