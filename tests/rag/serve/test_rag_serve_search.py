"""POST /search builds a SearchRequest from its body: the request's fields, search types and
limits, and its refusals as 422s naming the field (a real server on 127.0.0.1 over a small
real index)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from rag.index.request import MAX_K, MAX_QUERY_CHARS, REQUEST_FIELDS, SearchRequest  # noqa: E402
from rag.search_types import INDEX_SEARCH_TYPES  # noqa: E402
from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402

from rag.index.request import SearchRequest  # noqa: E402
from tests.rag.serve.index_server import build_index  # noqa: E402

SERVER_K = 3  # not SearchRequest's default (4): a request without k must take the server's


class RecordingIndex:
    """The real index, with each request it is asked to search kept."""

    def __init__(self, index: Any) -> None:
        self.index = index
        self.calls: list[SearchRequest] = []

    def search_request(self, request: SearchRequest) -> Any:
        self.calls.append(request)
        return self.index.search_request(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.index, name)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return RecordingIndex(build_index(tmp_path_factory.mktemp("search-index")))


@pytest.fixture(scope="module")
def url(index):
    with serve_in_thread(index_app(index, k=SERVER_K)) as base:
        yield base


def search(url: str, **body: Any) -> httpx.Response:
    return httpx.post(f"{url}/search", json=body)


def refused(reply: httpx.Response) -> tuple[int, str]:
    return reply.status_code, reply.json()["field"]


def test_the_index_is_searched_with_every_field_of_the_request(url, index):
    reply = search(url, query="cats", k=1, search_type="mmr", fetch_k=5, lambda_mult=0.3, filter={"title": "Cats"})
    assert reply.status_code == 200
    assert index.calls[-1] == SearchRequest("cats", k=1, search_type="mmr", filter={"title": "Cats"}, fetch_k=5,
                                            lambda_mult=0.3)


def test_a_request_without_k_takes_the_servers_k(url, index):
    assert search(url, query="cats").status_code == 200
    assert index.calls[-1].k == SERVER_K


def test_null_fields_are_the_same_as_absent_ones(url, index):
    reply = search(url, query="cats", k=None, search_type=None, filter=None, threshold=None)
    assert reply.status_code == 200 and reply.json()["search_type"] == "hybrid"
    assert index.calls[-1].k == SERVER_K


@pytest.mark.parametrize("search_type", INDEX_SEARCH_TYPES.names)
def test_every_index_search_type_is_served_with_the_name_of_its_score(url, index, search_type):
    extra = {"threshold": 0.1} if search_type == "threshold" else {}
    reply = search(url, query="cats", search_type=search_type, **extra)
    expected = SearchRequest("cats", search_type=search_type, **extra)
    assert reply.status_code == 200
    assert (reply.json()["search_type"], reply.json()["score_name"]) == (expected.search_type.value,
                                                                         expected.score_name(index.config.hybrid))


def test_a_threshold_search_keeps_only_results_at_or_above_the_threshold(url):
    results = search(url, query="cats", search_type="threshold", threshold=0.1).json()["results"]
    assert [r["title"] for r in results] == ["Cats"] and all(r["score"] >= 0.1 for r in results)


def test_a_filter_object_narrows_the_results(url):
    results = search(url, query="cats", filter={"title": "Dogs"}).json()["results"]
    assert [r["title"] for r in results] == ["Dogs"]


def test_a_threshold_search_without_a_threshold_is_422_naming_threshold(url):
    assert refused(search(url, query="cats", search_type="threshold")) == (422, "threshold")


def test_an_unknown_search_type_is_422_listing_the_index_search_types(url):
    reply = search(url, query="cats", search_type="fuzzy")
    assert refused(reply) == (422, "search_type")
    assert ", ".join(INDEX_SEARCH_TYPES.names) in reply.json()["message"]


def test_k_above_the_requests_limit_is_422_naming_k(url):
    reply = search(url, query="cats", k=MAX_K + 1)
    assert refused(reply) == (422, "k") and str(MAX_K) in reply.json()["message"]


def test_a_query_above_the_requests_limit_is_422_naming_query(url):
    reply = search(url, query="x" * (MAX_QUERY_CHARS + 1))
    assert refused(reply) == (422, "query") and str(MAX_QUERY_CHARS) in reply.json()["message"]


@pytest.mark.parametrize("name, value", [("lambda_mult", 0.5), ("threshold", 0.5)])
def test_a_field_of_another_search_type_is_422_naming_it(url, name, value):
    assert refused(search(url, query="cats", search_type="similarity", **{name: value})) == (422, name)


@pytest.mark.parametrize("name, value", [("fetch_k", 0), ("lambda_mult", 2), ("threshold", "high")])
def test_a_value_out_of_its_range_is_422_naming_the_field(url, name, value):
    search_type = "threshold" if name == "threshold" else "mmr"
    assert refused(search(url, query="cats", search_type=search_type, **{name: value})) == (422, name)


def test_a_filter_that_is_not_a_json_object_is_422_naming_filter(url):
    assert refused(search(url, query="cats", filter=["Cats"])) == (422, "filter")


def test_a_filter_the_store_refuses_is_422_naming_filter(url):
    reply = search(url, query="cats", filter={"title": {"$bogus": 1}})
    assert refused(reply) == (422, "filter") and "$bogus" in reply.json()["message"]


def test_an_unknown_field_is_422_naming_it_and_the_fields_taken(url):
    reply = search(url, query="cats", search_type="mmr", lamda_mult=0.2)
    assert refused(reply) == (422, "lamda_mult") and ", ".join(REQUEST_FIELDS) in reply.json()["message"]
