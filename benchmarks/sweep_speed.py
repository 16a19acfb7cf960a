"""Sweep throughput: the srd sweep (benchmarks/srd_sweep.toml, 252 runs) timed with 1 and 2 local joblib workers.

Each timing is one `tarsim sweep` command into a fresh output directory, so it includes loading the 14 collections,
building their features once each (shared by all runs of a collection), the runs, and the results table.
Prints runs per minute and the speed-up, and checks that both worker counts wrote byte-identical results.

    python benchmarks/sweep_speed.py [--jobs 1 2] [--reviews N]   (--reviews: only the first N srd reviews)
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "srd_sweep.toml"
SHARED = HERE.parents[1] / "shared" / "datasets" / "srd"


def subset_config(work: Path, reviews: int | None) -> Path:
    """The srd config itself, or a copy restricted to the first `reviews` reviews (absolute paths)."""
    if reviews is None:
        return CONFIG
    names = sorted(p.name for p in SHARED.iterdir() if p.is_dir())[:reviews]
    entries = "".join(f'\n[[collections]]\npath = "{SHARED / name}"\n' for name in names)
    text = CONFIG.read_text(encoding="utf-8")
    head, _, rest = text.partition("[[collections]]")
    review = rest[rest.index("[review]") :]
    path = work / "subset.toml"
    path.write_text(head + entries + "\n" + review, encoding="utf-8")
    return path


def timed_sweep(config: Path, out: Path, jobs: int) -> float:
    # A fresh feature cache per timing (inside OUT), so that every timing builds the features as it says.
    command = [
        "tarsim",
        "sweep",
        str(config),
        "--jobs",
        str(jobs),
        "--out",
        str(out),
        "--cache-dir",
        str(out / "cache"),
    ]
    print("$", " ".join(command), flush=True)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--reviews", type=int, help="time only the first N srd reviews")
    args = parser.parse_args()
    if not SHARED.exists():
        print(f"{SHARED} is absent: the srd collections sit in ../shared/datasets beside the checkout", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="tarsim-sweep-speed-"))
    try:
        config = subset_config(work, args.reviews)
        seconds, runs = {}, None
        for jobs in args.jobs:
            out = work / f"jobs{jobs}"
            seconds[jobs] = timed_sweep(config, out, jobs)
            runs = len(list((out / "ledgers").glob("*.jsonl")))
        print(f"\n{runs} runs per sweep, {os.cpu_count()} cores")
        print(f"{'workers':>8} {'seconds':>9} {'runs/min':>9} {'speed-up':>9}")
        base = seconds[args.jobs[0]]
        for jobs, value in seconds.items():
            print(f"{jobs:>8} {value:>9.1f} {runs / value * 60:>9.1f} {base / value:>9.2f}")
        first = work / f"jobs{args.jobs[0]}"
        for jobs in args.jobs[1:]:
            other = work / f"jobs{jobs}"
            same = (
                filecmp.cmp(first / "results.csv", other / "results.csv", shallow=False)
                and not filecmp.dircmp(first / "ledgers", other / "ledgers").diff_files
            )
            print(f"results with {args.jobs[0]} and {jobs} worker(s) byte-identical: {same}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
