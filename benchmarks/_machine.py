"""Facts about the machine and package versions, shared by the benchmark scripts."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path

__all__ = ["version", "cpu"]


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
