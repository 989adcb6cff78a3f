"""``rag trace`` over the trace store through a real subprocess: list with filters, show a
tree, feedback, projects side by side (rag bench --answers --project), OTLP export, and
the errors: an unknown id, a corrupt database, a --trace file as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rag.serve.index_server import build_index

TRACING_VARIABLES = ("RAG_TRACING", "RAG_TRACING_DB", "LANGSMITH_TRACING", "LANGSMITH_TRACING_V2",
                     "LANGCHAIN_TRACING_V2", "RAG_TRACING_PROJECT", "LANGSMITH_PROJECT", "LANGCHAIN_PROJECT")


def rag(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in TRACING_VARIABLES}
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True,
                          env={**clean, **(env or {})}, timeout=120)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """An index, and a trace store holding two questions asked of it in two projects."""
    folder = tmp_path_factory.mktemp("traced")
    build_index(folder)
    db = folder / "traces.sqlite3"
    for project, question in (("first", "Why do cats purr?"), ("second", "Why do dogs bark?")):
        done = rag("ask", question, "--index", str(folder / "index"),
                   env={"RAG_TRACING": "1", "RAG_TRACING_DB": str(db), "LANGSMITH_PROJECT": project})
        assert done.returncode == 0, done.stderr
    return folder, db


def listed(db: Path, *args: str) -> list[dict]:
    done = rag("trace", "list", "--db", str(db), "--json", *args)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_rag_ask_with_tracing_on_records_a_trace_named_rag_ask_per_question(recorded):
    _, db = recorded
    traces = listed(db)
    assert [t["name"] for t in traces] == ["rag ask", "rag ask"]
    assert [t["project"] for t in traces] == ["second", "first"]  # newest first


def test_list_filters_by_project_name_status_latency_and_time(recorded):
    _, db = recorded
    assert [t["project"] for t in listed(db, "--project", "first")] == ["first"]
    assert listed(db, "--name", "no such name") == []
    assert listed(db, "--errors") == []
    assert listed(db, "--slower-than", "100000") == []
    assert len(listed(db, "--since", "1h")) == 2
    assert listed(db, "--since", "2999-01-01") == []


def test_list_prints_one_line_per_trace_with_latency_and_status(recorded):
    _, db = recorded
    done = rag("trace", "list", "--db", str(db))
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    assert all(" ms " in line and line.endswith("ok") and "rag ask" in line for line in lines)


def test_show_prints_the_tree_with_timings_inputs_and_the_retrieved_sources(recorded):
    _, db = recorded
    trace_id = listed(db, "--project", "first")[0]["trace_id"]
    done = rag("trace", "show", trace_id[:8], "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("rag ask [chain]")
    assert "IndexRetriever [retriever]" in done.stdout
    assert "in:  {\"query\": \"Why do cats purr?\"}" in done.stdout
    assert "cats.md: Cats Cats purr" in done.stdout


def test_feedback_is_stored_beside_the_run_and_shown_with_it(recorded):
    _, db = recorded
    trace_id = listed(db, "--project", "second")[0]["trace_id"]
    done = rag("trace", "feedback", trace_id[:8], "--score", "0", "--comment", "wrong source", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "feedback user_score=0 stored for run " + trace_id in done.stdout
    shown = rag("trace", "show", trace_id, "--db", str(db))
    assert "feedback user_score=0.0 (wrong source)" in shown.stdout


def test_an_unknown_run_id_is_a_one_line_error_saying_how_to_list(recorded):
    _, db = recorded
    done = rag("trace", "show", "deadbeefdeadbeef", "--db", str(db))
    assert done.returncode == 1
    assert done.stderr.strip() == f"rag: error: no run 'deadbeefdeadbeef' in {db}; list the runs with: rag trace list"


def test_a_score_outside_0_to_1_is_a_usage_error(recorded):
    _, db = recorded
    done = rag("trace", "feedback", "deadbeef", "--score", "3", "--db", str(db))
    assert done.returncode == 2 and "expected a score between 0 and 1" in done.stderr


def test_export_writes_otlp_json_one_span_per_run_with_parent_links(recorded, tmp_path):
    _, db = recorded
    out = tmp_path / "otlp.json"
    done = rag("trace", "export", "--otlp", str(out), "--db", str(db), "--project", "first")
    assert done.returncode == 0, done.stderr
    spans = json.loads(out.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    ids = {span["spanId"] for span in spans}
    assert len({span["traceId"] for span in spans}) == 1
    roots = [span for span in spans if "parentSpanId" not in span]
    assert [root["name"] for root in roots] == ["rag ask"]
    assert all(span["parentSpanId"] in ids for span in spans if "parentSpanId" in span)
    assert all(len(span["traceId"]) == 32 and len(span["spanId"]) == 16 for span in spans)
    retriever = next(span for span in spans if span["name"] == "IndexRetriever")
    kinds = {a["key"]: a["value"] for a in retriever["attributes"]}
    assert kinds["openinference.span.kind"] == {"stringValue": "RETRIEVER"}


def test_bench_answers_records_a_project_whose_checks_compare_side_by_side(recorded, tmp_path):
    folder, _ = recorded
    db = tmp_path / "bench.sqlite3"
    qa = tmp_path / "qa.tsv"
    qa.write_text("question\tkey phrases\tsources\nWhy do cats purr?\tcontent\tcats.md\n"
                  "Where do dogs come from?\twolves\tdogs.md\n")
    for project in ("v1", "v2"):
        done = rag("bench", "--answers", str(qa), "--index", str(folder / "index"), "--project", project,
                   env={"RAG_TRACING_DB": str(db), "RAG_TRACING": "0"})
        assert done.returncode == 0, done.stderr
        assert f"2 runs recorded in project '{project}'" in done.stderr
    done = rag("trace", "projects", "--db", str(db), "--json")
    projects = {row["project"]: row for row in json.loads(done.stdout)}
    assert set(projects) == {"v1", "v2"}
    for row in projects.values():
        assert row["traces"] == 2 and row["mean_ms"] > 0
        assert row["feedback"]["key_phrase"]["count"] == 2
        assert row["feedback"]["source_cited"]["count"] == 2


def test_a_corrupt_database_is_an_error_naming_the_file(tmp_path):
    db = tmp_path / "broken.sqlite3"
    db.write_bytes(b"garbage" * 1000)
    done = rag("trace", "list", "--db", str(db))
    assert done.returncode == 1
    assert done.stderr.startswith(f"rag: error: {db} is not a readable trace database")


def test_a_traced_command_over_a_corrupt_database_still_answers_with_one_warning(recorded, tmp_path):
    folder, _ = recorded
    db = tmp_path / "broken.sqlite3"
    db.write_bytes(b"garbage" * 1000)
    done = rag("ask", "Why do cats purr?", "--index", str(folder / "index"), env={"RAG_TRACING_DB": str(db)})
    assert done.returncode == 0
    assert "Cats purr" in done.stdout
    assert done.stderr.count("tracing is off") == 1 and str(db) in done.stderr


def test_a_trace_file_is_still_printed_as_a_tree(recorded, tmp_path):
    folder, _ = recorded
    trace = tmp_path / "run.jsonl"
    assert rag("ask", "Why do cats purr?", "--index", str(folder / "index"), "--trace", str(trace)).returncode == 0
    done = rag("trace", str(trace))
    assert done.returncode == 0 and done.stdout.startswith("rag ask [chain]")
    missing = rag("trace", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 1 and "no trace file at" in missing.stderr


def test_rag_trace_serve_opens_the_page_over_the_store_without_an_index(recorded):
    import re

    import httpx

    _, db = recorded
    clean = {k: v for k, v in os.environ.items() if k not in TRACING_VARIABLES and k != "RAG_API_KEY"}
    process = subprocess.Popen([sys.executable, "-m", "rag", "trace", "serve", "--db", str(db), "--port", "0"],
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=clean)
    try:
        seen = []
        for line in process.stderr:  # uvicorn's own lines come first
            seen.append(line)
            found = re.search(r"at (http://127\.0\.0\.1:\d+)/traces", line)
            if found or len(seen) > 20:
                break
        assert found, seen
        base = found.group(1)
        assert "<title>rag traces</title>" in httpx.get(base + "/traces", timeout=30).text
        assert len(httpx.get(base + "/traces/api/traces", timeout=30).json()["traces"]) == 2
        assert httpx.get(base + "/", timeout=30, follow_redirects=False).headers["location"] == "/traces"
    finally:
        process.terminate()
        process.wait(timeout=30)


def _served_app(monkeypatch, db, *options):
    """The app ``rag trace serve --db DB OPTIONS`` would serve (the server itself not started)."""
    import rag.serve.background
    from rag.cli.app import main

    served = {}
    monkeypatch.setattr(rag.serve.background, "serve_forever", lambda app, **kw: served.update(app=app))
    monkeypatch.delenv("RAG_API_KEY", raising=False)
    assert main(["trace", "serve", "--db", str(db), *options]) == 0
    return served["app"]


def test_rag_trace_serve_on_another_address_answers_requests_naming_it(recorded, monkeypatch, tmp_path):
    from starlette.testclient import TestClient

    _, db = recorded
    key = tmp_path / "key"
    key.write_text("sesame\n")
    app = _served_app(monkeypatch, db, "--host", "192.0.2.7", "--api-key-file", str(key))
    with TestClient(app, base_url="http://192.0.2.7:8001") as client:
        answer = client.get("/traces/api/traces", headers={"authorization": "Bearer sesame"})
    assert answer.status_code == 200, answer.text


def test_rag_trace_serve_answers_the_host_names_given_with_allowed_host(recorded, monkeypatch):
    from starlette.testclient import TestClient

    _, db = recorded
    app = _served_app(monkeypatch, db, "--host", "0.0.0.0", "--insecure", "--allowed-host", "traces.example")
    with TestClient(app, base_url="http://traces.example:8001") as client:
        assert client.get("/traces/api/traces").status_code == 200
    with TestClient(app, base_url="http://rebound.example:8001") as client:
        assert client.get("/traces/api/traces").status_code == 403
