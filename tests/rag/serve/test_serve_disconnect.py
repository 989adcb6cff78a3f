"""A client that goes away has its run cancelled within a second (LangServe lets it run)."""

from __future__ import annotations

import httpx
import pytest


def test_an_invoke_whose_client_disconnects_is_cancelled(served):
    slow = served["slow_invoke"]
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{served['url']}/slow/invoke", json={"input": "x"}, timeout=httpx.Timeout(10, read=0.5))
    assert slow.started.is_set()
    # The client closed its connection when the read timed out; the 1 s is the requirement.
    assert slow.cancelled.wait(timeout=1.0)


def test_a_stream_whose_client_disconnects_is_cancelled(served):
    slow = served["slow_stream"]
    with httpx.stream("POST", f"{served['url']}/slow_stream/stream", json={"input": "x"}, timeout=10) as response:
        for line in response.iter_lines():
            if line.startswith("data: \"tick\""):
                break  # leave mid-stream: the connection closes with the block
    assert slow.started.wait(timeout=5)
    assert slow.cancelled.wait(timeout=1.0)
