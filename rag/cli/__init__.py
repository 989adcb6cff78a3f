"""The ``rag`` command line (the composition root: the one place that wires loaders,
splitters, embeddings, stores, retrievers and chains together)."""

from rag.cli.app import build_parser, main
from rag.cli.demo import DEMO_QUERIES, run_demo, sample_chunks, samples_folder

__all__ = ["main", "build_parser", "DEMO_QUERIES", "run_demo", "sample_chunks", "samples_folder"]
