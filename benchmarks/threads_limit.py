"""`tarsim simulate` with and without the BLAS/OpenMP thread limit, on a machine kept busy (issue 31: 1 min 40 s
without a limit, 2.9 s with one, on a loaded 2-core machine).

    /work/venv/bin/python benchmarks/threads_limit.py [--repeats 3] [--load 2] [--results FILE]

Each repeat runs the same command in a fresh process, alternating the settings: `tarsim --threads 1 simulate
--preset asreview-logistic` (the default since issue 31) and `--threads <cores>` (what OpenBLAS and OpenMP take
when nothing limits them, as before). The features come from a scratch cache filled by an untimed first run, so
the times are the review, its start-up and its tables. While the runs are timed, `--load` busy processes
(`while True: pass`, started and stopped by this script) compete for the cores, as other work does on a shared
machine. Printed: each run's wall seconds, the median per setting and their ratio; with --results, the same lines
are written to that file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine_info import describe_machine  # same folder

COMMAND = ["simulate", "--preset", "asreview-logistic"]


def timed_run(threads: int, out: Path, cache: Path) -> float:
    """Wall seconds of one `tarsim --threads N simulate ...` in a new process (its output discarded)."""
    environ = {key: value for key, value in os.environ.items() if not key.endswith("_NUM_THREADS")}
    environ.pop("TARSIM_THREADS", None)
    argv = [sys.executable, "-m", "tarsim", "--threads", str(threads), *COMMAND, "--out", str(out)]
    start = time.perf_counter()
    subprocess.run([*argv, "--cache-dir", str(cache)], check=True, env=environ, capture_output=True)
    return time.perf_counter() - start


def start_load(processes: int) -> list[subprocess.Popen]:
    """`processes` busy Python loops: the concurrent CPU load."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]


def stop_load(load: list[subprocess.Popen]) -> None:
    for process in load:
        process.terminate()
    for process in load:
        process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="runs per setting (default 3)")
    parser.add_argument("--load", type=int, default=2, help="busy processes while timing (default 2)")
    parser.add_argument("--results", type=Path, help="also write the lines printed to this file")
    args = parser.parse_args(argv)
    cores = os.cpu_count() or 1
    settings = {"limited (--threads 1, default)": 1, f"unlimited (--threads {cores})": cores}
    lines: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    load_now = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    say(f"machine: {describe_machine()}; load average {load_now:.1f} before; {args.load} busy processes added")
    say(f"command: tarsim --threads N {' '.join(COMMAND)} (built-in demo collection), {args.repeats} runs each")
    seconds: dict[str, list[float]] = {name: [] for name in settings}
    with tempfile.TemporaryDirectory(prefix="tarsim-threads-") as tmp:
        cache = Path(tmp) / "cache"
        timed_run(1, Path(tmp) / "warm", cache)  # untimed: features built into the scratch cache
        load = start_load(args.load)
        try:
            for repeat in range(args.repeats):
                for name, threads in settings.items():
                    took = timed_run(threads, Path(tmp) / f"out-{threads}-{repeat}", cache)
                    seconds[name].append(took)
                    say(f"run {repeat + 1} {name:<32} {took:8.2f} s")
        finally:
            stop_load(load)
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    for name, median in medians.items():
        say(f"median {name:<32} {median:8.2f} s")
    limited, unlimited = medians.values()
    say(f"ratio unlimited / limited: {unlimited / limited:.1f}x")
    if args.results:
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
