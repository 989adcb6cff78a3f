"""Small timing helpers shared by the benchmarks (best-of-N wall time, RSS)."""

from __future__ import annotations

import gc
import time
from typing import Any, Callable


def best_of(func: Callable[[], Any], repeat: int = 5, number: int = 1) -> float:
    """Best wall time in seconds of ``number`` calls, over ``repeat`` rounds (less noise)."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        for _ in range(number):
            func()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def paired(first: Callable[[], Any], second: Callable[[], Any], repeat: int = 9, number: int = 5) -> tuple[float, float]:
    """Best times of two functions measured in alternation, so load changes hit both alike."""
    best_first = best_second = float("inf")
    for _ in range(repeat):
        best_first = min(best_first, best_of(first, repeat=1, number=number))
        best_second = min(best_second, best_of(second, repeat=1, number=number))
    return best_first, best_second


def rss_mib() -> float:
    """Resident memory of this process in MiB (Linux /proc; 0.0 elsewhere)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def peer_version(python: str, distribution: str) -> str:
    """The installed version of ``distribution`` in the interpreter ``python`` (a peer's venv)."""
    import subprocess

    code = f"import importlib.metadata as m; print(m.version({distribution!r}))"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def alternating_rounds(measure: Callable[[str], dict[str, float]], sides: tuple[str, ...], cases: Any,
                       repeats: int) -> dict[str, dict[str, list[float]]]:
    """``measure(side)`` (one fresh worker process: a figure per case) run ``repeats`` times
    per side, the sides alternating so load changes on a shared machine hit both alike;
    the figures by side and case, one per round."""
    samples: dict[str, dict[str, list[float]]] = {side: {case: [] for case in cases} for side in sides}
    for _ in range(repeats):
        for side in sides:
            for case, value in measure(side).items():
                samples[side][case].append(value)
    return samples
