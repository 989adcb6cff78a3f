"""The trace store: switched on by the environment, written by a background writer, safe
with many processes, bounded, and never in the traced program's way (a corrupt or foreign
database, a full disk, a value JSON cannot hold)."""

import json
import logging
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from rag.callbacks.tracer import TraceRun
from rag.runnables import RunnableLambda
from rag.tracing import RunNotFoundError, StoreTracer, TraceStore, TraceStoreError
from rag.tracing.records import TRUNCATED_KEY, rows_of
from rag.tracing.settings import environment_tracer, tracing_settings

ROOT = Path(__file__).resolve().parents[2]
TRACING_VARIABLES = ("RAG_TRACING", "RAG_TRACING_DB", "LANGSMITH_TRACING", "LANGSMITH_TRACING_V2",
                     "LANGCHAIN_TRACING_V2", "RAG_TRACING_PROJECT", "LANGSMITH_PROJECT", "LANGCHAIN_PROJECT")


@pytest.fixture(autouse=True)
def no_tracing_from_outside(monkeypatch):
    for name in TRACING_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def chain():
    return RunnableLambda(lambda x: x + 1, name="inc") | RunnableLambda(lambda x: x * 2, name="double")


def python(code: str, env: dict, timeout: float = 120) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in __import__("os").environ.items() if k not in TRACING_VARIABLES}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT,
                          env={**clean, **env}, timeout=timeout)


def test_rag_tracing_records_every_run_under_the_langsmith_project(tmp_path, monkeypatch):
    db = tmp_path / "traces.sqlite3"
    monkeypatch.setenv("RAG_TRACING", "1")
    monkeypatch.setenv("RAG_TRACING_DB", str(db))
    monkeypatch.setenv("LANGSMITH_PROJECT", "nightly")
    assert chain().invoke(1) == 4
    assert environment_tracer().flush()
    (trace,) = TraceStore(db).list_traces()
    assert trace["project"] == "nightly" and trace["name"] == "RunnableSequence" and trace["runs"] == 3
    runs = TraceStore(db).get_trace(trace["trace_id"])["runs"]
    assert [run["name"] for run in runs] == ["RunnableSequence", "inc", "double"]
    assert [run["outputs"] for run in runs] == [4, 2, 4]


def test_langsmiths_switch_turns_local_tracing_on_and_rag_tracing_0_keeps_it_off(tmp_path):
    assert tracing_settings({"LANGSMITH_TRACING": "true"}).enabled
    assert tracing_settings({"LANGCHAIN_TRACING_V2": "true", "LANGCHAIN_PROJECT": "p"}).project == "p"
    assert not tracing_settings({"LANGSMITH_TRACING": "true", "RAG_TRACING": "0"}).enabled
    assert not tracing_settings({}).enabled
    assert tracing_settings({"RAG_TRACING_DB": str(tmp_path / "x.db")}).enabled


def test_the_default_database_is_in_the_toolkits_cache_folder(tmp_path):
    assert tracing_settings({"RAG_TRACING": "1", "RAG_CACHE_DIR": str(tmp_path)}).db_path == tmp_path / "traces.sqlite3"


def test_importing_and_running_untraced_starts_no_thread_and_a_traced_exit_flushes_without_hanging(tmp_path):
    db = tmp_path / "t.sqlite3"
    code = """
        import threading, rag, rag.tracing, rag.callbacks, rag.tracing.store, rag.tracing.writer, rag.tracing.tracer
        from rag.runnables import RunnableLambda
        RunnableLambda(lambda x: x).invoke(1)
        print(threading.active_count())
    """
    assert python(code, {}).stdout.strip() == "1"
    traced = """
        import os
        from rag.runnables import RunnableLambda
        for i in range(50):
            RunnableLambda(lambda x: x, name="step").invoke(i)
    """  # no flush: the exit hook writes what is queued
    result = python(traced, {"RAG_TRACING": "1", "RAG_TRACING_DB": str(db)})
    assert result.returncode == 0, result.stderr
    assert len(TraceStore(db).list_traces(limit=100)) == 50


def test_exit_waits_a_bounded_time_for_a_locked_database_then_warns_and_exits(tmp_path):
    db = tmp_path / "locked.sqlite3"
    TraceStore(db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holds the write lock past the exit
    try:
        code = """
            from rag.runnables import RunnableLambda
            from rag.tracing.settings import environment_tracer
            RunnableLambda(lambda x: x, name="step").invoke(1)
            environment_tracer().writer.exit_timeout_s = 1.0
            print("done")
        """
        result = python(code, {"RAG_TRACING_DB": str(db)}, timeout=60)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.returncode == 0 and result.stdout.strip() == "done"
    assert "exiting before every trace was written to" in result.stderr and "locked.sqlite3" in result.stderr


def test_a_corrupt_database_turns_tracing_off_with_a_warning_naming_it_and_the_program_goes_on(
        tmp_path, monkeypatch, caplog):
    db = tmp_path / "broken.sqlite3"
    db.write_bytes(b"this is not an SQLite file at all" * 100)
    monkeypatch.setenv("RAG_TRACING_DB", str(db))
    with caplog.at_level(logging.WARNING, logger="rag.tracing"):
        assert chain().invoke(1) == 4
        assert chain().invoke(2) == 6
    warnings = [r.getMessage() for r in caplog.records if r.name == "rag.tracing"]
    assert len(warnings) == 1
    assert "tracing is off" in warnings[0] and str(db) in warnings[0]
    with pytest.raises(TraceStoreError, match="not a readable trace database"):
        TraceStore(db)


def test_a_database_of_another_version_is_refused_by_name_and_version(tmp_path):
    db = tmp_path / "old.sqlite3"
    TraceStore(db)
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(TraceStoreError, match=r"old.sqlite3 is a trace database of schema version 99; this rag reads"):
        TraceStore(db)


def test_another_sqlite_database_is_not_taken_for_a_trace_database(tmp_path):
    db = tmp_path / "app.sqlite3"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE users (id INTEGER)")
    with pytest.raises(TraceStoreError, match="not a rag trace database .tables: users"):
        TraceStore(db)


def test_a_full_disk_stops_tracing_with_one_warning_and_the_program_goes_on(tmp_path, monkeypatch, caplog):
    real_connect = TraceStore.connect

    def small_disk(self):
        connection = real_connect(self)
        connection.execute("PRAGMA max_page_count = 40")  # SQLite's own "database or disk is full"
        return connection

    monkeypatch.setattr(TraceStore, "connect", small_disk)
    tracer = StoreTracer(tmp_path / "full.sqlite3")
    with caplog.at_level(logging.WARNING, logger="rag.tracing"):
        for i in range(30):
            assert RunnableLambda(lambda x: x * 2, name="big").invoke("x" * 20_000, {"callbacks": [tracer]})
            tracer.flush()
    warnings = [r.getMessage() for r in caplog.records if r.name == "rag.tracing"]
    assert len(warnings) == 1 and "is full" in warnings[0] and "full.sqlite3" in warnings[0]
    assert "is full" in tracer.stopped_reason


def test_an_unknown_run_id_is_a_clear_error(tmp_path):
    store = TraceStore(tmp_path / "t.sqlite3")
    with pytest.raises(RunNotFoundError, match=r"no run '0123456789' in .*t.sqlite3; list the runs with: rag trace list"):
        store.get_trace("0123456789")
    with pytest.raises(RunNotFoundError, match="too short"):
        store.get_trace("01")


class Opaque:
    def __repr__(self):
        return "<Opaque 7>"


def test_an_input_json_cannot_hold_is_stored_as_its_repr_and_marked(tmp_path):
    tracer = StoreTracer(tmp_path / "t.sqlite3")
    RunnableLambda(lambda x: "ok", name="takes").invoke({"thing": Opaque(), "ratio": float("nan")},
                                                         {"callbacks": [tracer]})
    tracer.flush()
    (run,) = tracer.store.get_trace(tracer.store.list_traces()[0]["trace_id"])["runs"]
    assert run["inputs"] == {"thing": "<Opaque 7>", "ratio": "nan"}
    assert run["notes"] == ["inputs: 1 value(s) not JSON-serialisable, stored as repr"]


def test_a_large_output_is_truncated_to_the_stated_size_and_marked(tmp_path):
    tracer = StoreTracer(tmp_path / "t.sqlite3", max_field_bytes=1000)
    RunnableLambda(lambda x: "y" * 5000, name="long").invoke("short", {"callbacks": [tracer]})
    tracer.flush()
    (run,) = tracer.store.get_trace(tracer.store.list_traces()[0]["trace_id"])["runs"]
    assert run["inputs"] == "short"
    cut = run["outputs"][TRUNCATED_KEY]
    assert cut["kept"] == 1000 and cut["bytes"] == 5002 and len(cut["preview"]) == 1000
    assert run["notes"] == ["outputs: truncated to 1000 of 5002 bytes"]


def old_tree(days: float) -> TraceRun:
    started = datetime.now(timezone.utc) - timedelta(days=days)
    run = TraceRun(__import__("uuid").uuid4(), "old", "chain", None, {"q": "x" * 2000}, started)
    run.dotted_order, run.end_time, run.duration_ms = "x", started, 1.0
    return run


def test_retention_deletes_traces_older_than_the_age_then_the_oldest_beyond_the_size(tmp_path):
    store = TraceStore(tmp_path / "t.sqlite3")
    connection = store.connect()
    store.write(connection, [rows_of(old_tree(40), "p", 65536), rows_of(old_tree(1), "p", 65536)])
    assert store.prune(connection, max_age_days=30, max_bytes=1 << 30) == 1
    assert len(store.list_traces()) == 1
    store.write(connection, [rows_of(old_tree(1 - i / 1000), "p", 65536) for i in range(300)])
    store.prune(connection, max_age_days=30, max_bytes=200_000)
    left = len(store.list_traces(limit=1000))
    assert 0 < left < 150
    connection.close()


def test_a_tree_written_twice_is_stored_once(tmp_path):
    store = TraceStore(tmp_path / "t.sqlite3")
    rows = rows_of(old_tree(0), "p", 65536)
    connection = store.connect()
    store.write(connection, [rows])
    store.write(connection, [rows])
    connection.close()
    assert store.count_runs() == 1 and len(store.list_traces()) == 1


WORKER = """
    import json, sys, time
    from rag.runnables import RunnableLambda
    from rag.tracing.settings import environment_tracer
    chain = (RunnableLambda(lambda x: x + 1, name="inc") | RunnableLambda(lambda x: x * 2, name="double"))
    deadline, done = time.monotonic() + float(sys.argv[1]) if len(sys.argv) > 1 else time.monotonic() + {seconds}, 0
    while time.monotonic() < deadline:
        chain.invoke(done)
        done += 1
    assert environment_tracer().flush(60)
    print(json.dumps({{"traces": done, "written": environment_tracer().writer.written}}))
"""


def test_eight_processes_tracing_at_once_store_every_run_once_in_complete_trees(tmp_path):
    db = tmp_path / "shared.sqlite3"
    env = {"RAG_TRACING": "1", "RAG_TRACING_DB": str(db), "LANGSMITH_PROJECT": "many"}
    clean = {k: v for k, v in __import__("os").environ.items() if k not in TRACING_VARIABLES}
    workers = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(WORKER.format(seconds=1.5))], cwd=ROOT,
                                env={**clean, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(8)]
    reports = []
    for worker in workers:
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
        reports.append(json.loads(out))
    traces = sum(report["traces"] for report in reports)
    assert traces > 0
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT count(*) FROM traces").fetchone()[0] == traces
        assert connection.execute("SELECT count(*) FROM runs").fetchone()[0] == 3 * traces
        assert connection.execute("SELECT count(*) FROM traces WHERE runs != 3").fetchone()[0] == 0
        orphans = connection.execute("SELECT count(*) FROM runs AS child WHERE parent_run_id IS NOT NULL AND NOT "
                                     "EXISTS (SELECT 1 FROM runs AS parent WHERE parent.id = child.parent_run_id "
                                     "AND parent.trace_id = child.trace_id)").fetchone()[0]
        assert orphans == 0
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_stored_values_are_json_text_never_pickle(tmp_path):
    tracer = StoreTracer(tmp_path / "t.sqlite3")
    chain().invoke(1, {"callbacks": [tracer]})
    tracer.flush()
    with sqlite3.connect(tracer.store.path) as connection:
        for inputs, outputs, metadata in connection.execute("SELECT inputs, outputs, metadata FROM runs"):
            assert all(isinstance(value, str) for value in (inputs, outputs, metadata))
            json.loads(inputs), json.loads(outputs), json.loads(metadata)


def test_a_tracer_made_per_call_does_not_leave_a_writer_thread_behind_each_time(tmp_path):
    import threading

    db = tmp_path / "many.sqlite3"
    tracers = []
    before = threading.active_count()
    for _ in range(10):
        tracer = StoreTracer(db, project_name="per-call")
        RunnableLambda(lambda x: x + 1, name="inc").invoke(1, {"callbacks": [tracer]})
        assert tracer.flush()
        tracers.append(tracer)
    assert threading.active_count() - before <= 1
    assert len(tracers[0].store.list_traces(project="per-call")) == 10
