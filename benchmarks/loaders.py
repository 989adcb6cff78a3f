"""Web loader benchmark: ours against LangChain's WebBaseLoader, side by side in one run.

    python benchmarks/loaders.py                 # 200 pages, 20 ms latency, best of 3
    python benchmarks/loaders.py --pages 50 --repeat 1   # a smoke run

Needs the ``bench`` extra (langchain-community, which brings requests and aiohttp). A
local server in a child process (so it takes no GIL time from the loaders) serves
generated pages, each answer delayed by ``--latency`` seconds. Both loaders get the same
URL list with ``requests_per_second=10``; ``load()`` is compared with ``load()`` and
``aload()`` with ``aload()`` (LangChain's deprecated synchronous ``aload``; its native
``alazy_load`` is timed too). Exits 1 unless both sides return the same number of
documents and every page's text holds its ``<h1>`` and first paragraph. Ratios are
LangChain time / our time: > 1 means we are faster.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import multiprocessing
import os
import sys
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# This file is named like the `loaders` package: run as a script, its own folder would come
# first on sys.path and shadow the package. Put the repository root there instead.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks._timing import best_of, fmt_time
from loaders import WebBaseLoader

WORDS = (
    "retrieval augmented generation answers questions from documents that are split into "
    "chunks embedded as vectors and searched by similarity before a model writes the answer"
).split()


def page(number: int) -> bytes:
    """A realistic page of about 6 KB: head, scripts, navigation, article, footer."""
    paragraphs = "".join(
        f"<p>{' '.join(WORDS[(number + index + offset) % len(WORDS)] for offset in range(60))}.</p>"
        for index in range(8)
    )
    nav = "".join(f'<li><a href="/page/{(number + k) % 200}">Page {k}</a></li>' for k in range(12))
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page {number}</title>'
        f'<meta name="description" content="Generated page {number}">'
        "<style>body{font-family:sans-serif}</style><script>window.analytics=[];</script></head>"
        f"<body><header><a href='/'>Home</a></header><nav><ul>{nav}</ul></nav>"
        f"<main><article><h1>Heading of page {number}</h1>"
        f"<p>First paragraph of page {number}: the opening words.</p>{paragraphs}</article></main>"
        "<footer>Generated for the benchmark</footer></body></html>"
    ).encode()


def serve(latency: float, port_queue: multiprocessing.Queue) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            time.sleep(latency)
            try:
                body = page(int(self.path.rsplit("/", 1)[-1]))
                status = 200
            except ValueError:
                body, status = b"not found", 404
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 512

    server = Server(("127.0.0.1", 0), Handler)
    port_queue.put(server.server_address[1])
    server.serve_forever()


def check(name: str, documents: list, count: int) -> bool:
    """Same number of documents, each with its page's <h1> and first paragraph."""
    ok = len(documents) == count
    for number, document in enumerate(documents):
        text = document.page_content
        if (
            f"Heading of page {number}" not in text
            or f"First paragraph of page {number}" not in text
        ):
            ok = False
            break
    if not ok:
        print(f"  {name}: documents differ from the pages served ({len(documents)} of {count})")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.020, help="seconds added per request")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs per measurement")
    args = parser.parse_args()

    os.environ.setdefault("USER_AGENT", "ragpath-benchmark")
    warnings.filterwarnings("ignore")
    logging.getLogger("langchain_community").setLevel(logging.ERROR)
    from langchain_community.document_loaders import WebBaseLoader as LangChainWebBaseLoader

    ports: multiprocessing.Queue = multiprocessing.Queue()
    server = multiprocessing.Process(target=serve, args=(args.latency, ports), daemon=True)
    server.start()
    try:
        port = ports.get(timeout=10)
        urls = [f"http://127.0.0.1:{port}/page/{number}" for number in range(args.pages)]

        ours = WebBaseLoader(urls, requests_per_second=10)
        theirs = LangChainWebBaseLoader(urls, requests_per_second=10, show_progress=False)

        async def their_alazy() -> list:
            return [document async for document in theirs.alazy_load()]

        runs = {
            "load()": (theirs.load, ours.load),
            "aload()": (theirs.aload, lambda: asyncio.run(ours.aload())),
            "alazy_load() (LangChain native async)": (
                lambda: asyncio.run(their_alazy()),
                lambda: asyncio.run(ours.aload()),
            ),
        }
        print(
            f"{args.pages} pages, {args.latency * 1000:.0f} ms latency each, requests_per_second=10, "
            f"best of {args.repeat}"
        )
        print(f"{'call':40} {'LangChain':>10} {'ours':>10} {'ratio':>7}")
        ok = True
        for name, (their_call, our_call) in runs.items():
            ok &= check(f"LangChain {name}", their_call(), args.pages)
            ok &= check(f"ours {name}", our_call(), args.pages)
            their_time = best_of(their_call, repeat=args.repeat)
            our_time = best_of(our_call, repeat=args.repeat)
            print(
                f"{name:40} {fmt_time(their_time):>10} {fmt_time(our_time):>10} {their_time / our_time:>6.1f}x"
            )
        floor = args.pages * args.latency / 10
        print(f"(latency floor at 10 requests in flight: {fmt_time(floor)})")
        return 0 if ok else 1
    finally:
        server.terminate()
        server.join(5)


if __name__ == "__main__":
    sys.exit(main())
