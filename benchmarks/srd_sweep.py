"""The srd comparison study in one command, and its small commit-worthy summary.

Runs `tarsim sweep benchmarks/srd_sweep.toml` (14 reviews x relevance/uncertainty/random x document/document and
sentence/document x 3 seeds = 252 runs) into a work directory outside the repository (ledgers are large), times
it, and writes to benchmarks/results/srd_sweep/:
  summary.csv   mean and standard deviation over reviews and seeds of every measure, per policy x strategy
  summary.md    the headline tables (Recall@aR+b, WSS@95, effort to 95% recall, stopping rules) and the wall time
  plots (PNG)   when tarsim.reporting.plots is available.

    python benchmarks/srd_sweep.py [--jobs 2] [--work DIR] [--resume]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from extras import require_extras  # same folder

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "srd_sweep.toml"
RESULTS = HERE / "results" / "srd_sweep"
SHARED = HERE.parents[1] / "shared" / "datasets" / "srd"
GROUP = ["policy", "strategy", "effort_model", "stopping", "measure"]


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard deviation and count over reviews and seeds of every measure."""
    frame = table.fillna({"effort_model": "", "stopping": ""})
    summary = frame.groupby(GROUP, sort=True, dropna=False)["value"].agg(["mean", "std", "count"]).reset_index()
    return summary.round(4)


def _pivot(summary: pd.DataFrame, rows: pd.Series, index: str, value: str = "mean") -> pd.DataFrame:
    part = summary[rows].copy()
    part["run"] = part["policy"] + " " + part["strategy"]
    return part.pivot_table(index=index, columns="run", values=value, aggfunc="first", sort=False)


def markdown(summary: pd.DataFrame, seconds: float, runs: int, jobs: int) -> str:
    """The headline tables as markdown."""
    s = summary
    lines = [
        "# srd sweep: 14 reviews x 3 policies x 2 strategies x 3 seeds",
        "",
        f"`tarsim sweep benchmarks/srd_sweep.toml --jobs {jobs}`: {runs} runs in {seconds:.0f} s wall time "
        f"({runs / seconds * 60:.1f} runs/min) on {os.cpu_count()} cores ({platform.machine()}).",
        'Means over the 14 reviews and 3 seeds; every run reviews the whole collection (`until = "exhausted"`),',
        "so stopping rules are replayed on complete ledgers.",
        "",
    ]
    for model in ("judge", "sent"):
        rows = (s["effort_model"] == model) & s["measure"].str.startswith("recall@") & (s["stopping"] == "")
        table = _pivot(s, rows, "measure")
        lines += [f"## Mean Recall@E, E = aR+b in `{model}` units", "", table.to_markdown(floatfmt=".3f"), ""]
    rows = s["measure"].isin(["wss_95", "rrf_10", "erf_10"]) | (
        (s["effort_model"] == "judge") & s["measure"].isin(["effort_to_80", "effort_to_95", "effort_to_100"])
    )
    lines += ["## TAR measures (judgments)", "", _pivot(s, rows, "measure").to_markdown(floatfmt=".3f"), ""]
    for measure, title in (
        ("stopped", "Share of runs in which the rule fired"),
        ("recall_at_stop", "Recall at stop"),
        ("target_met", "Share of runs reaching recall 0.8 at the stop"),
    ):
        rows = s["measure"] == measure
        lines += [f"## {title}", "", _pivot(s, rows, "stopping").to_markdown(floatfmt=".3f"), ""]
    rows = (s["measure"] == "effort_at_stop") & (s["effort_model"] == "judge")
    lines += ["## Judgments at stop", "", _pivot(s, rows, "stopping").to_markdown(floatfmt=".1f"), ""]
    return "\n".join(lines)


def plots(work: Path, out: Path) -> list[Path]:
    """Recall-effort figures of the sweep, drawn by `tarsim plot` from the ledgers alone."""
    ledgers = str(work / "ledgers")
    figures = [
        (out / "recall_judge.png", ["--effort", "judge", "--stopping", "knee", "--stopping", "nonrel:50"]),
        (out / "recall_sent.png", ["--effort", "sent"]),
        (out / "recall_sent_log.png", ["--effort", "sent", "--xscale", "log"]),
        (out / "recall_judge_per_review.png", ["--effort", "judge", "--per-topic", "--columns", "4"]),
    ]
    for path, options in figures:
        command = ["tarsim", "plot", ledgers, "--out", str(path), *options]
        print("$", " ".join(command), flush=True)
        subprocess.run(command, check=True)
    return [path for path, _ in figures]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "tarsim-srd-sweep")
    parser.add_argument(
        "--resume", action="store_true", help="keep finished runs of an earlier call (time is then partial)"
    )
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args()
    require_extras(__file__, "tabulate")  # before any work (the figures are drawn only when matplotlib is there)
    if not SHARED.exists():
        print(f"{SHARED} is absent: the srd collections sit in ../shared/datasets beside the checkout", file=sys.stderr)
        return 2
    command = ["tarsim", "sweep", str(CONFIG), "--jobs", str(args.jobs), "--out", str(args.work)]
    if args.resume:
        command.append("--resume")
    print("$", " ".join(command), flush=True)
    started = time.perf_counter()
    subprocess.run(command, check=True)
    seconds = time.perf_counter() - started
    table = pd.read_parquet(args.work / "results.parquet")
    runs = table["run_id"].nunique()
    args.results.mkdir(parents=True, exist_ok=True)
    summary = summarise(table)
    summary.to_csv(args.results / "summary.csv", index=False, lineterminator="\n")
    (args.results / "summary.md").write_text(markdown(summary, seconds, runs, args.jobs) + "\n", encoding="utf-8")
    timing = {
        "runs": int(runs),
        "jobs": args.jobs,
        "wall_seconds": round(seconds, 1),
        "resumed": args.resume,
        "cpu_count": os.cpu_count(),
    }
    (args.results / "timing.json").write_text(json.dumps(timing, indent=2) + "\n", encoding="utf-8")
    figures = plots(args.work, args.results)
    print(
        f"{runs} runs in {seconds:.1f} s ({runs / seconds * 60:.1f} runs/min); "
        f"summary.csv, summary.md, timing.json{' and ' + str(len(figures)) + ' figure(s)' if figures else ''} "
        f"in {args.results}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
