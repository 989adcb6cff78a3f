"""Per-request overhead of serving a runnable: rag.serve against LangServe 0.3.3.

    pip install ".[bench]"            # starlette, uvicorn, langserve[all]==0.3.3, langchain-core
    python benchmarks/serve.py [--requests 300] [--rounds 5]

Each server runs in its own process (uvicorn, one worker, 127.0.0.1) serving the same
runnables built from its own library: ``echo`` (a lambda returning its input),
``chain`` (prompt | fake chat model | string parser, invoke only) and ``words`` (a
generator streaming 20 chunks, on ``/stream`` and ``/stream_events``). One client (httpx, keep-alive) sends requests one after
another, alternating servers round by round, and reports the median (p50) latency of
``/invoke``, ``/stream`` and ``/stream_events`` (whole answer read), the in-process p50 of the same call, and
the overhead (server p50 minus in-process p50) with its ratio LangServe / ours.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import httpx

ROOT = Path(__file__).resolve().parents[1]
QUESTION = {"question": "What does the index do when the machine crashes during a save?"}
REPLY = "It keeps the previous version, because every save writes a new folder and renames it. " * 2


# -- the servers (run in subprocesses) -----------------------------------------------------
def _ours() -> Any:
    from starlette.applications import Starlette

    from rag.models import FakeListChatModel
    from rag.parsers import StrOutputParser
    from rag.prompts import ChatPromptTemplate
    from rag.runnables import RunnableGenerator, RunnableLambda
    from rag.serve import add_routes

    app = Starlette()
    add_routes(app, RunnableLambda(lambda x: x), "/echo")
    add_routes(app, ChatPromptTemplate.from_template("Answer: {question}") | FakeListChatModel(responses=[REPLY])
               | StrOutputParser(), "/chain")
    add_routes(app, RunnableGenerator(_words, _awords), "/words")

    async def floor(request: Any) -> Any:  # the HTTP floor: read the body, answer fixed JSON
        from starlette.responses import Response

        await request.body()
        return Response(b'{"output":{"question":"x"},"metadata":{}}', media_type="application/json")

    from starlette.routing import Route

    app.router.routes.append(Route("/floor/invoke", floor, methods=["POST"]))
    return app


def _langserve() -> Any:
    from fastapi import FastAPI
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnableGenerator, RunnableLambda
    from langserve import add_routes

    app = FastAPI()
    add_routes(app, RunnableLambda(lambda x: x), path="/echo")
    add_routes(app, ChatPromptTemplate.from_template("Answer: {question}") | FakeListChatModel(responses=[REPLY])
               | StrOutputParser(), path="/chain")
    add_routes(app, RunnableGenerator(_words, _awords), path="/words")
    return app


def _words(chunks: Any) -> Any:
    for _ in chunks:
        pass
    for i in range(20):
        yield f"word{i} "


async def _awords(chunks: Any) -> Any:
    async for _ in chunks:
        pass
    for i in range(20):
        yield f"word{i} "


def _serve(kind: str, port: int) -> None:
    import uvicorn

    app = _ours() if kind == "ours" else _langserve()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error", access_log=False)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(kind: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    process = subprocess.Popen([sys.executable, __file__, "--serve", kind, "--port", str(port)], cwd=ROOT,
                               stdout=subprocess.DEVNULL)  # LangServe prints a banner
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{url}/echo/input_schema", timeout=1)
            return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the {kind} server did not start")


# -- the client --------------------------------------------------------------------------
def _times(call: Callable[[], Any], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def _invoke(client: httpx.Client, url: str, path: str) -> Callable[[], Any]:
    def call() -> Any:
        response = client.post(f"{url}/{path}/invoke", json={"input": QUESTION, "config": {}, "kwargs": {}})
        response.raise_for_status()
        return response.json()["output"]

    return call


def _stream(client: httpx.Client, url: str, path: str, endpoint: str = "stream") -> Callable[[], Any]:
    # /stream: 20 chunks; /stream_events: start, 20 stream events, end.
    expected = 20 if endpoint == "stream" else 22

    def call() -> Any:
        with client.stream("POST", f"{url}/{path}/{endpoint}", json={"input": QUESTION}) as response:
            response.raise_for_status()
            body = response.read()
        assert body.count(b"event: data") == expected, body[:200]

    return call


def _caller(client: httpx.Client, url: str, path: str, endpoint: str) -> Callable[[], Any]:
    return _invoke(client, url, path) if endpoint == "invoke" else _stream(client, url, path, endpoint)


CASES = [("echo", "invoke"), ("chain", "invoke"), ("words", "stream"), ("words", "stream_events")]


def _in_process(requests: int, rounds: int) -> dict[tuple[str, str], tuple[float, float]]:
    """p50 seconds (ours, LangChain) of calling each runnable directly, as a server would
    (``ainvoke`` / ``astream`` on a running event loop)."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel as LCModel
    from langchain_core.output_parsers import StrOutputParser as LCParser
    from langchain_core.prompts import ChatPromptTemplate as LCPrompt
    from langchain_core.runnables import RunnableGenerator as LCGenerator
    from langchain_core.runnables import RunnableLambda as LCLambda

    from rag.models import FakeListChatModel
    from rag.parsers import StrOutputParser
    from rag.prompts import ChatPromptTemplate
    from rag.runnables import RunnableGenerator, RunnableLambda

    pairs = {
        "echo": (RunnableLambda(lambda x: x), LCLambda(lambda x: x)),
        "chain": (ChatPromptTemplate.from_template("Answer: {question}") | FakeListChatModel(responses=[REPLY])
                  | StrOutputParser(),
                  LCPrompt.from_template("Answer: {question}") | LCModel(responses=[REPLY]) | LCParser()),
        "words": (RunnableGenerator(_words, _awords), LCGenerator(_words, _awords)),
    }

    async def p50(runnable: Any, endpoint: str) -> float:
        samples = []
        for _ in range(requests * rounds // 2):
            start = time.perf_counter()
            if endpoint == "stream":
                async for _ in runnable.astream(QUESTION):
                    pass
            elif endpoint == "stream_events":
                async for _ in runnable.astream_events(QUESTION, version="v2"):
                    pass
            else:
                await runnable.ainvoke(QUESTION)
            samples.append(time.perf_counter() - start)
        return statistics.median(samples)

    async def measure() -> dict[tuple[str, str], tuple[float, float]]:
        return {(name, endpoint): (await p50(pairs[name][0], endpoint), await p50(pairs[name][1], endpoint))
                for name, endpoint in CASES}

    return asyncio.run(measure())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=300, help="requests per endpoint per round (default 300)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, alternating servers (default 5)")
    parser.add_argument("--serve", choices=["ours", "langserve"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        _serve(args.serve, args.port)
        return

    servers = {kind: _start(kind) for kind in ("ours", "langserve")}
    cases = CASES
    samples: dict[tuple[str, str, str], list[float]] = {}
    try:
        clients = {kind: httpx.Client(timeout=30) for kind in servers}
        for kind, (_, url) in servers.items():  # warm up connections and code paths
            _times(_invoke(clients[kind], url, "echo"), 50)
            _times(_stream(clients[kind], url, "words"), 20)
            _times(_stream(clients[kind], url, "words", "stream_events"), 20)
        for _ in range(args.rounds):
            for kind, (_, url) in servers.items():
                for path, endpoint in cases + ([("floor", "invoke")] if kind == "ours" else []):
                    call = _caller(clients[kind], url, path, endpoint)
                    samples.setdefault((kind, path, endpoint), []).extend(_times(call, args.requests))
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(timeout=10)
    local = _in_process(args.requests, args.rounds)

    floor = statistics.median(samples[("ours", "floor", "invoke")]) * 1e3
    print(f"{args.rounds} rounds x {args.requests} sequential requests per endpoint; p50 in ms")
    print(f"HTTP floor (bare Starlette route, fixed JSON, same client): {floor:.2f} ms\n")
    print("| runnable / endpoint | in-process ours / LangChain | server ours | server LangServe "
          "| overhead ours | overhead LangServe | overhead ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path, endpoint in cases:
        ours = statistics.median(samples[("ours", path, endpoint)]) * 1e3
        theirs = statistics.median(samples[("langserve", path, endpoint)]) * 1e3
        local_ours, local_theirs = (t * 1e3 for t in local[(path, endpoint)])
        over_ours, over_theirs = ours - local_ours, theirs - local_theirs
        print(f"| `{path}` `/{endpoint}` | {local_ours:.3f} / {local_theirs:.3f} | {ours:.2f} | {theirs:.2f} "
              f"| {over_ours:.2f} | {over_theirs:.2f} | {over_theirs / over_ours:.1f}x |")


if __name__ == "__main__":
    main()
