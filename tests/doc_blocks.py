"""Run the code blocks of a Markdown page as a reader would: the runner behind
tests/test_readme.py and tests/test_docs_examples.py.

A page's blocks run in order, in one scratch folder (``docs/`` with two small Markdown
files, and ``.venv`` linked to this checkout's environment, so ``source .venv/bin/activate``
works as written), Python blocks in one namespace. ``python`` blocks run in this process;
``sh`` blocks run in bash with ``set -e`` and the environment's ``bin/`` first on PATH, and
curl fails on an HTTP error status (``--fail-with-body``).
Blocks of other languages are output or data (``text``, ``json``...), never run; a fence
without a language is an error, so that no block goes unrun by accident.

An HTML comment right before a fence changes how it runs:

- ``<!-- docs-test: skip REASON -->``: not run (REASON is required: a server, a hosted
  model or a cluster this machine does not have).
- ``<!-- docs-test: fake-chat-model -->``: ``rag.models.ChatOpenAI`` is the scripted fake
  chat model while the block runs (it would call a hosted model).
- ``<!-- docs-test: server -->``: an ``sh`` block of ``rag serve`` lines, started in the
  background on a free port; the blocks after it on the page reach it at
  ``localhost:8000``/``127.0.0.1:8000``, rewritten to that port. Stopped at the page's end.
- ``<!-- docs-test: site -->``: ``https://example.org`` in the block (and in the blocks
  after it) is a local web server of three linked HTML pages, the stand-in for a site.

A failure names the page and the line of the block (``docs/tutorials/x.md:42``).
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import threading
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator, Optional

import httpx

ROOT = Path(__file__).resolve().parents[1]
RUN = {"python", "py", "sh", "bash"}
DATA = {"text", "json", "toml", "yaml", "mermaid", "pycon", "http", "tsv", "html", "markdown", "md"}
FENCE = re.compile(
    r"(?:<!-- docs-test: (?P<mark>[\w-]+)(?P<reason>[^>]*?)\s*-->\n)?^(?P<indent>[ ]*)```(?P<lang>[^\n`]*)\n(?P<code>.*?)^(?P=indent)```[ ]*$",
    re.DOTALL | re.MULTILINE)
MARKS = {"skip", "fake-chat-model", "server", "site"}
SITE = "https://example.org"


@dataclass(frozen=True)
class Block:
    """One fenced block of a page."""

    path: Path
    line: int  # of the block's first code line
    lang: str
    code: str
    mark: Optional[str] = None
    reason: str = ""

    @property
    def where(self) -> str:
        path = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{path}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path``, with the marker before it."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start("code")) + 1
        code = "\n".join(row[len(match["indent"]):] for row in match["code"].splitlines())
        found.append(Block(path, line, match["lang"].strip().split(" ")[0], code + "\n",
                           match["mark"], (match["reason"] or "").strip()))
    return found


def problems(path: Path) -> list[str]:
    """What keeps a page's blocks from being run or knowingly skipped."""
    found = []
    for block in blocks(path):
        if not block.lang:
            found.append(f"{block.where}: a fence without a language (write ```text for output)")
        elif block.lang not in RUN | DATA:
            found.append(f"{block.where}: unknown language {block.lang!r}")
        if block.mark and block.mark not in MARKS:
            found.append(f"{block.where}: unknown marker {block.mark!r}")
        if block.mark == "skip" and not block.reason:
            found.append(f"{block.where}: 'docs-test: skip' needs a reason")
    return found


def make_workspace(folder: Path) -> Path:
    """The scratch folder a reader's commands run in: a docs/ of their own, the environment."""
    docs = folder / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "setup.md").write_text("# Setup\n\nYou configure it in settings.toml. "
                                   "Set the port and the index folder there.\n", encoding="utf-8")
    (docs / "old.md").write_text("# Old\n\nThe old way was to configure it with environment variables.\n",
                                 encoding="utf-8")
    (folder / ".venv").symlink_to(Path(sys.prefix))
    return folder


def run_page(path: Path, workspace: Path, chat_model_factory=None, *, timeout: float = 180) -> dict:
    """Run every block of ``path`` in ``workspace``; returns the Python namespace.

    ``chat_model_factory(**kwargs)`` stands in for ``ChatOpenAI`` in fake-chat-model blocks.
    """
    import rag.models

    namespace: dict = {"__name__": "__main__"}
    substitutions: dict[str, str] = {}
    real_chat_openai = rag.models.ChatOpenAI
    previous = Path.cwd()
    os.chdir(workspace)
    try:
        with ExitStack() as stack:
            for block in blocks(path):
                if block.lang not in RUN or block.mark == "skip":
                    continue
                if block.mark == "site" and SITE not in substitutions:
                    substitutions[SITE] = stack.enter_context(_site(workspace / "site"))
                code = _substitute(block.code, substitutions)
                if block.mark == "server":
                    port = _free_port()
                    for line in _commands(code):
                        stack.enter_context(_server(block, line, port, workspace))
                    for host in ("localhost", "127.0.0.1"):
                        substitutions[f"{host}:8000"] = f"{host}:{port}"
                    continue
                if block.lang in ("sh", "bash"):
                    _run_shell(block, code, workspace, timeout)
                    continue
                fake = block.mark == "fake-chat-model" and chat_model_factory is not None
                rag.models.ChatOpenAI = chat_model_factory if fake else real_chat_openai
                try:
                    # Padded so that a traceback's line numbers are the page's own.
                    source = "\n" * (block.line - 1) + code
                    exec(compile(source, str(path), "exec", dont_inherit=True), namespace)
                except Exception as exc:
                    raise AssertionError(f"{block.where}: the block failed: {exc!r}") from exc
                finally:
                    rag.models.ChatOpenAI = real_chat_openai
    finally:
        os.chdir(previous)
    return namespace


def _substitute(code: str, substitutions: dict[str, str]) -> str:
    for old, new in substitutions.items():
        code = code.replace(old, new)
    return code


def _commands(code: str) -> list[str]:
    return [line.split("#", 1)[0].strip() for line in code.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.prefix) / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.pop("RAG_INDEX", None)
    env.pop("RAG_STORE_URI", None)
    return env


# A reader sees an HTTP error in curl's output; the test must see it as a failure too.
CURL_FAILS_ON_HTTP_ERRORS = 'curl() { command curl --fail-with-body "$@"; }\n'


def _run_shell(block: Block, code: str, workspace: Path, timeout: float) -> None:
    code = CURL_FAILS_ON_HTTP_ERRORS + code
    result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], cwd=workspace, env=_environment(),
                            capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise AssertionError(f"{block.where}: the block exited {result.returncode}\n--- stdout\n"
                             f"{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def _server(block: Block, line: str, port: int, workspace: Path) -> Iterator[None]:
    argv = shlex.split(line)
    if argv[:2] != ["rag", "serve"]:
        raise AssertionError(f"{block.where}: a 'server' block holds rag serve lines only, not {line!r}")
    process = subprocess.Popen([str(Path(sys.prefix) / "bin" / "rag"), *argv[1:], "--port", str(port)],
                               cwd=workspace, env=_environment(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise AssertionError(f"{block.where}: rag serve exited {process.returncode}: {process.stdout.read()}")
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"{block.where}: rag serve did not answer within 60 s") from None
                time.sleep(0.1)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout:
            process.stdout.close()


SITE_PAGES = {
    "guide/index.html": "<html><head><title>Guide</title></head><body><main><h1>Guide</h1>"
                        "<p>Start with <a href='install.html'>installing</a>, then "
                        "<a href='configure.html'>configure it</a>.</p></main></body></html>",
    "guide/install.html": "<html><head><title>Installing</title></head><body><main><h1>Installing</h1>"
                          "<p>Install it with pip, then run the setup command once.</p></main></body></html>",
    "guide/configure.html": "<html><head><title>Configuring</title></head><body><main><h1>Configuring</h1>"
                            "<p>You configure it in settings.toml. The port is set there too.</p></main></body></html>",
}


@contextmanager
def _site(folder: Path) -> Iterator[str]:
    for name, html in SITE_PAGES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(html, encoding="utf-8")

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(folder), **kwargs)

        def log_message(self, *args):  # quiet: the test output is the page's
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
