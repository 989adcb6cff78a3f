"""The ``rag`` command line: argparse and printing over :mod:`rag.index`."""

from rag.cli.app import build_parser, main

__all__ = ["main", "build_parser"]
