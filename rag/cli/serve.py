"""``rag serve``: the index behind HTTP (a thin shell over :func:`rag.serve.index_app.index_app`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional

from rag.cli.common import RagCliError, open_index

__all__ = ["run_serve", "read_api_key"]


def read_api_key(api_key_file: Optional[Path]) -> Optional[str]:
    """The key ``--api-key-file`` holds (its first line), else ``$RAG_API_KEY``, else None."""
    if api_key_file is not None:
        lines = api_key_file.read_text(encoding="utf-8").splitlines()
        return lines[0].strip() if lines else ""
    # Stripped as the file's line is: a header value cannot carry the white space back.
    api_key = os.environ.get("RAG_API_KEY")
    return api_key.strip() if api_key else None


def run_serve(args: argparse.Namespace) -> int:
    from rag.serve.security import check_exposure

    if args.base_url and not args.model:
        raise RagCliError("--base-url needs --model NAME: without a model the answer is extracted offline")
    api_key = read_api_key(args.api_key_file)
    check_exposure(args.host, api_key, args.insecure)
    index = open_index(args, warm_up=True)  # a missing or corrupt index stops here, with rag search's message
    llm = None
    if args.model is not None:
        from rag.models import ChatOpenAI

        llm = ChatOpenAI(model=args.model, base_url=args.base_url)
    from rag.serve.background import base_url, serve_forever
    from rag.serve.index_app import index_app
    from rag.serve.limits import RequestLimits

    # The address served on is a name clients use for it, whatever it is.
    hosts = [*args.allowed_host, *([args.host] if args.host not in ("0.0.0.0", "::") else [])]
    app = index_app(index, llm=llm, k=args.k, api_key=api_key, max_body_bytes=args.max_body_bytes,
                    cors_origins=args.cors_origin, allowed_hosts=hosts,
                    limits=RequestLimits(max_batch_size=args.max_batch, max_query_chars=args.max_query_chars))

    def ready(port: int) -> None:
        where = getattr(index, "path", None) or getattr(index, "where", "the index")
        print(f"rag serve: {where} at {base_url(args.host, port)}/ (playground at /, OpenAI API at /v1"
              f"{', API key required' if api_key else ''})", file=sys.stderr, flush=True)
        if args.host in ("0.0.0.0", "::") and not args.allowed_host:
            print("rag serve: requests are answered for loopback host names only; name the ones other machines "
                  "use with --allowed-host NAME", file=sys.stderr, flush=True)

    _log_to_stderr()
    serve_forever(app, host=args.host, port=args.port, on_ready=ready)
    return 0


def _log_to_stderr() -> None:
    """The server's own messages (a new version served, one that cannot be read) beside
    uvicorn's, in its format: the operator sees that the index changed, or why it did not."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s:     %(message)s"))
    logger = logging.getLogger("rag.serve")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
