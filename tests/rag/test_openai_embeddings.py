"""OpenAIEmbeddings against a real OpenAI-compatible HTTP server on 127.0.0.1."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from rag.embeddings import EmbeddingServiceError, OpenAIEmbeddings
from rag.embeddings.openai import RetryPolicy, retry_delay
from rag.errors import DimensionMismatchError, ValidationError


def fake_vector(text, dim):
    """A vector the test can predict: the text's length, then its position markers."""
    return [float(len(text))] + [float(i) for i in range(1, dim)]


class Server:
    """Serves POST /v1/embeddings; ``script`` is a list of (status, headers) to answer first."""

    def __init__(self):
        self.requests = []
        self.script = []
        self.dim = 4
        self.shuffle = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
                if server.script:
                    status, headers = server.script.pop(0)
                    self.send_response(status)
                    for key, value in headers.items():
                        self.send_header(key, value)
                    payload = b'{"error": {"message": "scripted failure"}}'
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                dim = body.get("dimensions", server.dim)
                data = [{"object": "embedding", "index": i, "embedding": fake_vector(t, dim)} for i, t in enumerate(body["input"])]
                if server.shuffle:
                    data.reverse()
                payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


@pytest.fixture
def sleeps():
    return []


def client(server, sleeps, **kwargs):
    kwargs.setdefault("retry_policy", RetryPolicy(min_seconds=0.01, max_seconds=0.05))
    return OpenAIEmbeddings("test-model", base_url=server.url, sleep=sleeps.append, **kwargs)


def test_vectors_come_back_as_float32_in_input_order(server, sleeps):
    server.shuffle = True  # the API carries an "index"; order must follow it, not the list
    vectors = client(server, sleeps).embed_documents_array(["a", "bbb", "cc"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, 4)
    assert vectors[:, 0].tolist() == [1.0, 3.0, 2.0]


def test_the_request_names_the_model_and_posts_to_embeddings(server, sleeps):
    client(server, sleeps, api_key="sk-test").embed_query("hello")
    request = server.requests[0]
    assert request["path"] == "/v1/embeddings"
    assert request["body"]["model"] == "test-model" and request["body"]["input"] == ["hello"]
    assert request["headers"]["Authorization"] == "Bearer sk-test"


def test_no_authorization_header_is_sent_without_a_key(server, sleeps, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    client(server, sleeps).embed_query("hello")
    assert "Authorization" not in server.requests[0]["headers"]


def test_texts_are_sent_in_batches_of_chunk_size(server, sleeps):
    texts = [f"text {i}" for i in range(7)]
    vectors = client(server, sleeps, chunk_size=3).embed_documents_array(texts)
    assert [len(r["body"]["input"]) for r in server.requests] == [3, 3, 1]
    assert vectors[:, 0].tolist() == [float(len(t)) for t in texts]


def test_dimensions_is_sent_and_sets_the_dimension(server, sleeps):
    emb = client(server, sleeps, dimensions=8)
    assert emb.dimension == 8
    assert emb.embed_query_array("x").shape == (8,)
    assert server.requests[0]["body"]["dimensions"] == 8
    assert emb.model_id == "openai/test-model@8"


def test_an_unknown_models_dimension_is_learnt_from_the_first_answer(server, sleeps):
    emb = client(server, sleeps)
    assert emb.dimension is None
    emb.embed_query("x")
    assert emb.dimension == 4


def test_openai_models_know_their_dimension_before_any_request():
    assert OpenAIEmbeddings("text-embedding-3-large", api_key="sk-x").dimension == 3072


@pytest.mark.parametrize("status", [429, 500, 502, 503])
def test_rate_limits_and_server_errors_are_retried(server, sleeps, status):
    server.script = [(status, {}), (status, {})]
    vectors = client(server, sleeps, max_retries=2).embed_documents(["abc"])
    assert vectors[0][0] == 3.0
    assert len(server.requests) == 3 and len(sleeps) == 2


def test_retries_stop_after_max_retries_with_the_status(server, sleeps):
    server.script = [(503, {})] * 3
    with pytest.raises(EmbeddingServiceError, match="503") as info:
        client(server, sleeps, max_retries=1).embed_query("x")
    assert info.value.status_code == 503
    assert len(server.requests) == 2


def test_client_errors_are_not_retried(server, sleeps):
    server.script = [(401, {})]
    with pytest.raises(EmbeddingServiceError, match="401.*scripted failure"):
        client(server, sleeps, max_retries=3).embed_query("x")
    assert len(server.requests) == 1 and sleeps == []


def test_retry_after_is_honoured_within_the_cap(server, sleeps):
    server.script = [(429, {"Retry-After": "0.04"})]
    client(server, sleeps, retry_policy=RetryPolicy(min_seconds=0.001, max_seconds=0.05)).embed_query("x")
    assert sleeps == [pytest.approx(0.04)]


def test_a_connection_failure_is_retried_then_reported(sleeps):
    emb = OpenAIEmbeddings("m", base_url="http://127.0.0.1:9/v1", max_retries=2, timeout=2,
                           retry_policy=RetryPolicy(0.001, 0.002), sleep=sleeps.append)
    with pytest.raises(EmbeddingServiceError, match="after 3 attempts"):
        emb.embed_query("x")
    assert len(sleeps) == 2


def test_a_server_returning_another_dimension_is_refused(server, sleeps):
    emb = client(server, sleeps, dimensions=8)
    server.dim = 4
    emb.dimensions = None  # the request no longer asks for 8; the answer has 4
    with pytest.raises(DimensionMismatchError, match="expected 8"):
        emb.embed_query("x")


def test_backoff_doubles_and_is_capped():
    policy = RetryPolicy(min_seconds=1, max_seconds=5)
    assert [retry_delay(policy, attempt, None, 0.0) for attempt in range(5)] == [1, 2, 4, 5, 5]
    assert retry_delay(policy, 0, "3", 0.0) == 3
    assert retry_delay(policy, 0, "100", 0.0) == 5
    assert retry_delay(policy, 0, None, 0.99) == pytest.approx(1.2475)


def test_openai_itself_needs_an_api_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValidationError, match="OPENAI_API_KEY"):
        OpenAIEmbeddings("text-embedding-3-small")


@pytest.mark.parametrize("kwargs, shown", [
    ({"chunk_size": 0}, "0"), ({"chunk_size": 4096}, "4096"), ({"max_retries": -1}, "-1"),
    ({"timeout": 0}, "0"), ({"dimensions": 0}, "0"), ({"base_url": "localhost:8000"}, "localhost:8000"),
])
def test_bad_arguments_fail_at_construction_showing_the_value(kwargs, shown):
    kwargs.setdefault("base_url", "http://127.0.0.1:1/v1")
    with pytest.raises(ValidationError, match=shown):
        OpenAIEmbeddings("m", **kwargs)


def test_no_texts_makes_no_request(server, sleeps):
    assert client(server, sleeps).embed_documents([]) == []
    assert server.requests == []


def test_embeddings_failures_are_the_chat_clients_error_classes(server, sleeps):
    from rag.errors import APIError, AuthenticationError
    from rag.models import AuthenticationError as ChatAuthenticationError

    server.script = [(401, {})]
    with pytest.raises(AuthenticationError) as info:
        client(server, sleeps).embed_query("x")
    assert AuthenticationError is ChatAuthenticationError and EmbeddingServiceError is APIError
    assert info.value.status_code == 401


def test_a_rate_limit_that_persists_is_a_rate_limit_error_with_its_status(server, sleeps):
    from rag.errors import RateLimitError

    server.script = [(429, {})] * 2
    with pytest.raises(RateLimitError) as info:
        client(server, sleeps, max_retries=1).embed_query("x")
    assert info.value.status_code == 429


def test_an_unreachable_embeddings_server_is_an_api_connection_error(sleeps):
    from rag.errors import APIConnectionError

    emb = OpenAIEmbeddings("m", base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=2, sleep=sleeps.append)
    with pytest.raises(APIConnectionError, match="127.0.0.1:9") as info:
        emb.embed_query("x")
    assert info.value.status_code is None and isinstance(info.value, ConnectionError)


def test_a_retry_after_longer_than_a_minute_falls_back_to_the_backoff_as_for_chat(server, sleeps):
    server.script = [(429, {"Retry-After": "3600"})]
    client(server, sleeps, retry_policy=RetryPolicy(min_seconds=0.01, max_seconds=0.05, jitter=0)).embed_query("x")
    assert sleeps == [0.01]

