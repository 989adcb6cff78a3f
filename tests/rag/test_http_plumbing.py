"""The pure pieces under ChatOpenAI and the runnables: SSE decoding, backoff, config merging."""

import asyncio
import email.utils

import httpx

from rag.models import Backoff, SecretStr
from rag.models._sse import aiter_sse_data, iter_sse_data
from rag.runnables.config import merge_configs


def test_sse_data_lines_join_and_comments_are_skipped():
    lines = [": keep-alive", "data: {\"a\":", "data: 1}", "", "event: x", "data: [DONE]", ""]
    assert list(iter_sse_data(lines)) == ['{"a":\n1}', "[DONE]"]


def test_sse_data_without_a_final_blank_line_is_still_delivered():
    assert list(iter_sse_data(["data: last"])) == ["last"]


def test_async_sse_data_matches_the_sync_decoding():
    lines = [": keep-alive", "data: {\"a\":", "data: 1}", "", "data: last"]

    async def collect():
        async def stream():
            for line in lines:
                yield line

        return [data async for data in aiter_sse_data(stream())]

    assert asyncio.run(collect()) == list(iter_sse_data(lines)) == ['{"a":\n1}', "last"]


def test_backoff_doubles_from_initial_and_caps_at_maximum():
    backoff = Backoff(initial=0.5, maximum=3, jitter=0, rand=lambda: 0.0)
    assert [backoff.delay(n) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 3]


def test_backoff_reads_retry_after_as_an_http_date():
    backoff = Backoff(now=lambda: 1_000_000.0)
    when = email.utils.formatdate(1_000_004.0, usegmt=True)
    assert backoff.delay(1, httpx.Headers({"Retry-After": when})) == 4.0


def test_backoff_prefers_retry_after_ms():
    assert Backoff().delay(1, httpx.Headers({"retry-after-ms": "250", "retry-after": "9"})) == 0.25


def test_a_secret_hides_itself():
    secret = SecretStr("sk-1")
    assert "sk-1" not in repr(secret) + str(secret) + f"{secret}" and secret.get_secret_value() == "sk-1"


def test_merge_configs_combines_tags_callbacks_and_metadata():
    merged = merge_configs({"tags": ["a"], "metadata": {"x": 1}, "callbacks": ["h1"], "run_name": "one"},
                           {"tags": ["a", "b"], "metadata": {"y": 2}, "callbacks": "h2", "run_name": "two"})
    assert merged == {"tags": ["a", "b"], "metadata": {"x": 1, "y": 2}, "callbacks": ["h1", "h2"], "run_name": "two"}
