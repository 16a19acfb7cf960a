"""The machine line that every benchmark prints first: cores, CPU model and memory (Linux /proc; else unknown)."""

from __future__ import annotations

import os
from pathlib import Path


def _proc_field(path: str, key: str) -> str | None:
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return None
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith(key)), None)


def describe_machine() -> str:
    """E.g. "2 cores, AMD EPYC, 24 GB"."""
    cpu = _proc_field("/proc/cpuinfo", "model name") or "unknown CPU"
    memory = _proc_field("/proc/meminfo", "MemTotal")
    gb = f"{int(memory.split()[0]) / 1024**2:.0f} GB" if memory else "unknown memory"
    return f"{os.cpu_count()} cores, {cpu}, {gb}"
