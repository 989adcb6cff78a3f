"""What the shared-index tests of both engines use: an engine under test, the command line
in a subprocess, and the source file names of results."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Engine:
    """One engine under test: its store name, its server's URI, and how to drop an index."""

    def __init__(self, store, uri):
        self.store, self.uri = store, uri

    def drop(self, collection):
        if self.store == "milvus":
            from pymilvus import connections, utility

            from rag.index.engine_milvus import SIDE_SUFFIX

            alias = f"drop-{collection}"
            connections.connect(alias=alias, uri=self.uri)
            for name in (collection, collection + SIDE_SUFFIX):
                if utility.has_collection(name, using=alias):
                    utility.drop_collection(name, using=alias)
            connections.disconnect(alias)
        else:
            from stores.pgvector import PGVector

            with PGVector(None, connection=self.uri, collection_name=collection) as store:
                store.delete_collection()


def rag(*args, env=None):
    return subprocess.run([sys.executable, "-m", "rag", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def names(found):
    return [Path(document.metadata["source"]).name for document, _ in found]
