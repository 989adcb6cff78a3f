"""Process-wide defaults for programs built on this toolkit, applied by entry points only.

The library never changes process-wide state (environment variables, the garbage
collector, thread pools) when it is imported or called: in a server or a notebook those
belong to the application, and a library flipping them affects code it does not own.
Entry points (the ``rag`` command, the server, the benchmarks) call
:func:`apply_process_defaults` first thing, before faiss or onnxruntime are loaded::

    from rag.process_defaults import apply_process_defaults

    def main() -> int:
        apply_process_defaults()
        ...

Both variables are read once, when the native library starts, so calling this after
faiss (or onnxruntime) has been imported has no effect on it. ``stores`` imports faiss on
first use, not at import, so importing the toolkit first is fine.
"""

from __future__ import annotations

import os
from types import MappingProxyType
from typing import Mapping

__all__ = ["PROCESS_DEFAULTS", "apply_process_defaults"]

#: Each variable, the value set when the user has not set it, and why.
PROCESS_DEFAULTS: Mapping[str, str] = MappingProxyType({
    # faiss's OpenMP threads spin-wait after each search by default. In a process that also
    # runs numpy's BLAS (query embedding, MMR, the in-memory store) the spinning threads take
    # the cores BLAS needs: on 2 cores a search followed by a matrix product measured several
    # times slower. PASSIVE makes idle OpenMP threads sleep instead.
    "OMP_WAIT_POLICY": "PASSIVE",
    # onnxruntime (the local MiniLM model) may otherwise send usage telemetry; it reads this
    # variable when its environment is created (the installed 1.32 binary checks it).
    "ORT_DISABLE_TELEMETRY": "1",
    # gRPC's core (pymilvus's transport) prints its own errors to stderr, e.g. three
    # "Handshake failed" lines for an https:// URI of a plain server, beside the one-line
    # error the entry point prints; read when gRPC starts.
    "GRPC_VERBOSITY": "NONE",
})


def apply_process_defaults() -> None:
    """Set each variable of :data:`PROCESS_DEFAULTS` unless the user already set it.

    A value already in the environment, even an empty one, is kept: the user's choice wins.
    Idempotent. Call it from ``main()``, never from library code.
    """
    for name, value in PROCESS_DEFAULTS.items():
        os.environ.setdefault(name, value)
