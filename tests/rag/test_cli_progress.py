"""rag index's progress: truthful rates and times (a stage's clock never restarts when the
display switches stages), embedding with a total, and plain lines every few seconds when
the output is not a terminal. Time is a fake clock the tests move: no wall-clock asserts."""

from __future__ import annotations

import io

from rag.cli.progress import ProgressBars


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _last_line(stream: io.StringIO) -> str:
    return stream.getvalue().replace("\n", "\r").split("\r")[-1].strip()


def test_a_bar_shows_count_rate_and_time_left_once_the_stage_has_run_a_while():
    clock, screen = _Clock(), _Terminal()
    bars = ProgressBars(stream=screen, clock=clock)
    bars("load", 0, 100)
    clock.now += 10
    bars("load", 40, 100)
    line = _last_line(screen)
    assert "40/100" in line and "4.0/s" in line and "15 s left" in line


def test_no_rate_or_time_is_shown_before_a_second_has_passed():
    clock, screen = _Clock(), _Terminal()
    ProgressBars(stream=screen, clock=clock)("load", 10, 10)
    assert "10/10" in screen.getvalue() and "/s" not in screen.getvalue() and "left" not in screen.getvalue()


def test_switching_stages_does_not_restart_a_stages_clock():
    clock, screen = _Clock(), _Terminal()
    bars = ProgressBars(stream=screen, clock=clock)
    bars("load", 1, 10)
    bars("embed", 0, 100)
    for step in range(1, 10):  # load a file, embed its chunks, and again: the display switches every time
        clock.now += 5
        bars("load", step + 1, 10)
        clock.now += 5
        bars("embed", (step + 1) * 100, (step + 1) * 100)
    # 1000 chunks in 90 s since embedding was first reported: 11.1/s, not 1000 chunks over 5 s (200/s)
    assert "11.1/s" in _last_line(screen)


def test_embedding_shows_its_total_marked_open_while_files_are_still_loading():
    clock, log = _Clock(), io.StringIO()
    bars = ProgressBars(stream=log, clock=clock, interval=5)
    bars("load", 3, 10)
    bars("embed", 100, 300)
    clock.now += 6
    bars("embed", 200, 300)
    assert "embed 200/300+" in log.getvalue() and "left" not in log.getvalue().split("embed")[1]
    bars("load", 10, 10)
    clock.now += 6
    bars("embed", 400, 500)
    assert "embed 400/500 (" in log.getvalue().splitlines()[-1] and "left" in log.getvalue().splitlines()[-1]


def test_a_log_gets_one_plain_line_every_interval_and_nothing_before_the_first():
    clock, log = _Clock(), io.StringIO()
    bars = ProgressBars(stream=log, clock=clock, interval=5)
    for second in range(23):  # a report every second for 23 s
        bars("load", second, 100)
        clock.now += 1
    lines = log.getvalue().splitlines()
    assert len(lines) == 4 and all(line.startswith("rag: load ") for line in lines)
    assert "\r" not in log.getvalue() and "[" not in log.getvalue()  # no bar drawing in a log


def test_a_short_run_prints_nothing_to_a_log():
    clock, log = _Clock(), io.StringIO()
    bars = ProgressBars(stream=log, clock=clock)
    bars("load", 1, 2)
    bars("load", 2, 2)
    bars.close()
    assert log.getvalue() == ""


def test_remaining_time_reads_in_minutes_and_hours():
    clock, log = _Clock(), io.StringIO()
    bars = ProgressBars(stream=log, clock=clock, interval=5)
    bars("load", 0, 3000)
    clock.now += 60
    bars("load", 100, 3000)  # 100 files a minute: 29 min left
    clock.now += 60
    bars("load", 200, 60_000)  # 100 files a minute, 59,800 to go
    assert log.getvalue().splitlines() == ["rag: load 100/3000 (1.7/s, 29 min left)",
                                           "rag: load 200/60000 (1.7/s, 10.0 h left)"]


def test_an_update_reports_embedding_against_the_chunks_found_so_far(tmp_path, corpus):
    from rag.index import Index

    calls = []
    summary = Index.create(tmp_path / "ix", embeddings="hashing").update(
        [str(corpus)], progress=lambda stage, done, total: calls.append((stage, done, total)))
    embedding = [(done, total) for stage, done, total in calls if stage == "embed"]
    assert embedding and all(0 < done <= total for done, total in embedding)
    assert embedding[-1] == (summary.chunks, summary.chunks)


def test_a_large_files_embedding_counts_against_all_of_its_chunks(tmp_path):
    from rag.index import Index

    (tmp_path / "large.md").write_text("\n\n".join(f"Paragraph {n} on herons wading." for n in range(300)))
    index = Index.create(tmp_path / "ix", embeddings="hashing", chunk_size=60, chunk_overlap=0)
    index.checkpoint_chunks, index.checkpoint_seconds = 64, float("inf")
    calls = []
    summary = index.update([str(tmp_path / "large.md")], progress=lambda *call: calls.append(call))
    totals = {total for stage, done, total in calls if stage == "embed"}
    assert totals == {summary.chunks}  # known from the first checkpoint on, not batch by batch
