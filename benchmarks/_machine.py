"""Facts about the machine and package versions, shared by the benchmark scripts."""

from __future__ import annotations

import platform
import time
from importlib import metadata
from pathlib import Path

__all__ = ["version", "cpu", "best_of"]


def version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def best_of(fn, repeat: int) -> tuple[float, object]:
    """The shortest of ``repeat`` timings of ``fn()``, and its last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result
