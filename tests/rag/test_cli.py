"""The `rag demo` command: index the shipped samples, search, print sources and scores."""

import io
import re
from pathlib import Path

from loaders import DirectoryLoader
import subprocess
import sys

from rag.cli import DEMO_QUERIES, main, run_demo, sample_chunks, samples_folder


def test_the_samples_ship_with_the_package_and_carry_their_source():
    chunks = sample_chunks()
    assert len(chunks) >= 10
    assert all(c.metadata["source"].endswith(".md") and c.metadata["title"] for c in chunks)


def test_every_chunk_is_found_at_its_start_index_in_its_loaded_document():
    loaded = {Path(d.metadata["source"]).name: d.page_content for d in DirectoryLoader(str(samples_folder()), glob="*.md").load()}
    for chunk in sample_chunks():
        start = chunk.metadata["start_index"]
        assert loaded[chunk.metadata["source"]][start:start + len(chunk.page_content)] == chunk.page_content


def test_demo_prints_each_query_with_ranked_sources_and_scores(tmp_path):
    out = io.StringIO()
    run_demo(tmp_path / "index", DEMO_QUERIES, k=2, out=out)
    text = out.getvalue()
    assert (tmp_path / "index" / "manifest.json").exists()
    for query in DEMO_QUERIES:
        assert f"? {query}" in text
    scores = [float(s) for s in re.findall(r"^  (\d\.\d{3})  \S+\.md: ", text, flags=re.MULTILINE)]
    assert len(scores) == 2 * len(DEMO_QUERIES) and all(0 <= s <= 1 for s in scores)


def test_demo_finds_the_persistence_sample_for_a_saving_question(tmp_path):
    out = io.StringIO()
    run_demo(tmp_path / "index", ["atomic rename of the index folder"], k=1, out=out)
    assert "persistence.md" in out.getvalue()


def test_the_command_line_entry_point_runs_the_demo(tmp_path):
    result = subprocess.run([sys.executable, "-m", "rag", "demo", "--index", str(tmp_path / "ix"), "--k", "1", "consecutive chunks overlap"],
                            capture_output=True, text=True, check=True)
    assert "text-splitting.md" in result.stdout
    assert main(["demo", "--index", str(tmp_path / "ix2"), "--k", "1", "hybrid"]) == 0
