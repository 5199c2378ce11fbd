"""Facts about the machine and package versions, shared by the benchmark scripts."""

from __future__ import annotations

import platform
import time
from importlib import metadata
from pathlib import Path

__all__ = ["version", "cpu", "best_of", "ensure_bytecode"]


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


def ensure_bytecode(*packages: str) -> None:
    """Compile the ``.pyc`` files of cranfield and ``packages`` (e.g. numpy, pyarrow) where they are
    missing, as ``pip install`` does. Timed subprocesses then start as an installed cranfield
    does: with ``PYTHONDONTWRITEBYTECODE`` set (as on the development machine) and no cache, every
    start would compile ~100 modules again (about 80 ms). Unwritable folders are skipped."""
    import compileall
    import importlib.util

    for name in ("cranfield", *packages):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            for folder in spec.submodule_search_locations:
                compileall.compile_dir(folder, quiet=2, workers=0)


def best_of(fn, repeat: int) -> tuple[float, object]:
    """The shortest of ``repeat`` timings of ``fn()``, and its last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result
