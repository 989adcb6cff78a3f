"""The ``rag`` command: dispatch and exit codes (the arguments are :mod:`rag.cli.parser`'s,
the commands :mod:`rag.cli.commands`' and the subcommand modules').

Exit codes: 0 on success; 1 on an error; 2 on a usage error (argparse's own); 130 when
interrupted. An error is reported in one line on stderr, with the traceback only under
``--verbose``:

- ``rag: error: ...`` for a user error: a :class:`~rag.errors.RagError` (bad input, missing
  index, model server refused, extra not installed...) or an ``OSError`` (file system,
  network). The message says what to fix.
- ``rag: internal error: ValueError: ... (run with --verbose for the traceback)`` for
  anything else: a bare ``ValueError``, ``KeyError``, ``TypeError``... reaching here is a
  bug, since every error a user can cause is raised as a ``RagError``. It exits 1 too:
  scripts test for success, and a bug is no more the caller's to handle than a bad input.
"""

from __future__ import annotations

import logging
import os
import sys
import traceback
from typing import Optional, Sequence

from rag.errors import RagError
from rag.cli.bench import run_bench
from rag.cli.chat import run_chat
from rag.cli.commands import run_ask, run_index, run_info, run_search
from rag.cli.parser import build_parser
from rag.cli.serve import run_serve
from rag.cli.trace import run_trace
from rag.process_defaults import apply_process_defaults

__all__ = ["main", "build_parser"]

_COMMANDS = {
    "index": run_index,
    "search": run_search,
    "ask": run_ask,
    "chat": run_chat,
    "bench": run_bench,
    "info": run_info,
    "trace": run_trace,
    "serve": run_serve,
}


def main(argv: Optional[Sequence[str]] = None) -> int:
    apply_process_defaults()
    # pymilvus logs each failed call ("RPC error: ...") through Python's last-resort
    # handler, a second line beside the error printed below; the command prints its own.
    quiet = logging.getLogger("pymilvus")
    if not any(isinstance(handler, logging.NullHandler) for handler in quiet.handlers):
        quiet.addHandler(logging.NullHandler())
    args = build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("rag: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader stopped reading (`rag search ... | head`): nothing is wrong, and the
        # output still buffered must not fail again at exit, so stdout goes to /dev/null.
        # 141 (128 + SIGPIPE) is what a shell reports for a tool a pipe has stopped.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (RagError, OSError) as exc:  # the user's to fix: bad input, a missing file, the network
        if args.verbose:
            traceback.print_exc()
        print(f"rag: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # anything else is a bug of ours, whatever its class (ValueError too)
        if args.verbose:
            traceback.print_exc()
        hint = "" if args.verbose else " (run with --verbose for the traceback)"
        print(f"rag: internal error: {type(exc).__name__}: {exc}{hint}", file=sys.stderr)
        return 1
