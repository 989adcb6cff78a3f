"""The /traces data routes: listing with filters and pages, a trace by run id, projects,
the API key guard, and an unknown id or an unreadable database as clear JSON errors."""

from __future__ import annotations

import httpx
import pytest

from rag.serve import serve_in_thread
from rag.serve.traces import traces_app

from tests.rag.serve.traces_support import record_traces


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_traces(tmp_path_factory.mktemp("traces"))


@pytest.fixture(scope="module")
def url(recorded):
    db, _ = recorded
    with serve_in_thread(traces_app(db)) as base:
        yield base


def get(url: str, path: str, **params) -> httpx.Response:
    return httpx.get(url + path, params=params, timeout=30)


def test_traces_are_listed_newest_first_with_their_totals(url, recorded):
    _, ids = recorded
    body = get(url, "/traces/api/traces").json()
    assert [t["trace_id"] for t in body["traces"]] == list(reversed(ids))
    assert body["next_before"] is None
    asked = body["traces"][1]
    assert asked["name"] == "ask" and asked["status"] == "success" and asked["runs"] > 5


def test_filters_narrow_the_list_by_project_name_status_and_latency(url):
    assert [t["name"] for t in get(url, "/traces/api/traces", status="error").json()["traces"]] == ["flaky"]
    assert len(get(url, "/traces/api/traces", project="docs-qa").json()["traces"]) == 2
    assert get(url, "/traces/api/traces", name="fla").json()["traces"][0]["name"] == "flaky"
    assert get(url, "/traces/api/traces", slower_than="1000000").json()["traces"] == []
    assert len(get(url, "/traces/api/traces", since="1h").json()["traces"]) == 3


def test_pages_follow_on_with_next_before(url, recorded):
    _, ids = recorded
    first = get(url, "/traces/api/traces", limit="2").json()
    second = get(url, "/traces/api/traces", limit="2", before=str(first["next_before"])).json()
    assert [t["trace_id"] for t in first["traces"] + second["traces"]] == list(reversed(ids))
    assert second["next_before"] is None


def test_a_bad_filter_is_a_422_naming_it(url):
    answer = get(url, "/traces/api/traces", slower_than="fast")
    assert answer.status_code == 422 and "'slower_than' must be a number" in answer.json()["message"]
    assert get(url, "/traces/api/traces", since="yesterday").status_code == 422


def test_a_run_opens_its_whole_trace_in_dotted_order_with_the_retrieved_documents(url, recorded):
    _, ids = recorded
    whole = get(url, f"/traces/api/runs/{ids[0]}").json()
    runs = whole["runs"]
    assert runs[0]["name"] == "ask" and runs[0]["depth"] == 0
    assert [r["dotted_order"] for r in runs] == sorted(r["dotted_order"] for r in runs)
    retriever = next(r for r in runs if r["run_type"] == "retriever")
    assert retriever["outputs"]["documents"][0]["metadata"]["source"].endswith(".md")
    inner = get(url, f"/traces/api/runs/{retriever['id'][:12]}").json()
    assert inner["selected"] == retriever["id"] and inner["trace"]["trace_id"] == ids[0]


def test_an_unknown_run_is_a_404_saying_so(url):
    answer = get(url, "/traces/api/runs/0123456789abcdef")
    assert answer.status_code == 404
    assert answer.json()["type"] == "not_found" and "no run '0123456789abcdef'" in answer.json()["message"]


def test_projects_have_their_totals(url):
    projects = {p["project"]: p for p in get(url, "/traces/api/projects").json()["projects"]}
    assert projects["docs-qa"]["traces"] == 2 and projects["broken"]["errors"] == 1


def test_the_data_needs_the_api_key_and_the_page_does_not(recorded):
    db, _ = recorded
    with serve_in_thread(traces_app(db, api_key="sesame")) as base:
        assert httpx.get(base + "/traces/api/traces").status_code == 401
        keyed = httpx.get(base + "/traces/api/traces", headers={"authorization": "Bearer sesame"})
        assert keyed.status_code == 200 and len(keyed.json()["traces"]) == 3
        page = httpx.get(base + "/traces")
        assert page.status_code == 200 and "<title>rag traces</title>" in page.text
        assert httpx.get(base + "/traces/traces.js").status_code == 200


def test_an_unreadable_database_is_a_503_naming_the_file(tmp_path):
    db = tmp_path / "broken.sqlite3"
    db.write_bytes(b"garbage" * 1000)
    with serve_in_thread(traces_app(db)) as base:
        answer = httpx.get(base + "/traces/api/traces")
    assert answer.status_code == 503 and str(db) in answer.json()["message"]


def test_rag_serve_has_the_traces_page_behind_the_same_guard(recorded, monkeypatch):
    from rag.index import Index
    from rag.serve.index_app import index_app

    db, _ = recorded
    monkeypatch.setenv("RAG_TRACING_DB", str(db))
    monkeypatch.setenv("RAG_TRACING", "0")  # the page reads the store whether or not this server records
    with serve_in_thread(index_app(Index.open(db.parent / "index"), api_key="sesame")) as base:
        assert httpx.get(base + "/traces").status_code == 200
        assert httpx.get(base + "/traces/api/traces").status_code == 401
        keyed = httpx.get(base + "/traces/api/traces", headers={"authorization": "Bearer sesame"})
        assert len(keyed.json()["traces"]) == 3


def test_the_project_names_alone_come_from_the_index_without_totals(url):
    names = get(url, "/traces/api/projects", names="1").json()["projects"]
    assert sorted(p["project"] for p in names) == ["broken", "docs-qa"] and "traces" not in names[0]
