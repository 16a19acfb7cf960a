"""BMI on the ten CLEF TAR 2017 topics of ../shared/datasets/clef2017 (10 seeds each), measured as the TAR and
stopping literature reports it: Recall@E at aR + b, WSS@95 and CLEF's last_rel per topic as means over the seeds with
percentile-bootstrap 95% intervals, then the stopping rules replayed at recall targets 0.8, 0.9 and 0.95.

    python benchmarks/clef2017_study.py [--out DIR] [--seeds 10] [--jobs 2]

Runs `tarsim sweep benchmarks/clef2017_study.toml` into DIR (kept and reused), then prints markdown tables and
writes them to benchmarks/results/clef2017_study/ (tables.md; the stopping study's tables and figures are in
DIR/stopping/ and copied there too). docs/benchmarks.md shows the tables.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "clef2017_study.toml"
RESULTS = HERE / "results" / "clef2017_study"
LEVELS = ((1, 0), (1, 100), (2, 100), (4, 1000))


def topic_rows(ledgers) -> list[dict]:
    """One row per topic: N, R, and each measure's mean [low, high] over the topic's seeds."""
    from tarsim.metrics.clef import evaluate_ledger
    from tarsim.metrics.recall_effort import recall_at_effort, wss
    from tarsim.stopping.aggregate import mean_interval

    by_topic: dict[str, list] = {}
    for ledger in ledgers:
        by_topic.setdefault(ledger.topic, []).append(ledger)
    rows = []
    for topic in sorted(by_topic):
        runs = by_topic[topic]
        values: dict[str, list[float]] = {}
        for ledger in runs:
            for row in recall_at_effort(ledger, "judge", grid_a=(1, 2, 4), grid_b=(0, 100, 1000)):
                if (row["a"], row["b"]) in LEVELS:
                    values.setdefault(f"R@{row['a']:g}R+{row['b']:g}", []).append(row["recall"])
            values.setdefault("WSS@95", []).append(wss(ledger, 0.95))
            values.setdefault("last_rel", []).append(evaluate_ledger(ledger).values["last_rel"])
        row = {"topic": topic, "N": runs[0].collection_size, "R": runs[0].relevant, "seeds": len(runs)}
        for name, series in values.items():
            row[name] = mean_interval(np.array([np.nan if v is None else v for v in series], dtype=np.float64))
        rows.append(row)
    return rows


def markdown(rows: list[dict]) -> str:
    names = [name for name in rows[0] if name not in ("topic", "N", "R", "seeds")]
    head = "| topic | N | R | seeds | " + " | ".join(names) + " |"
    rule = "| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in names) + " |"
    lines = [head, rule]
    for row in rows:
        cells = []
        for name in names:
            mean, low, high = row[name]
            digits = 0 if name == "last_rel" else 3
            cells.append(f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]")
        lines.append(f"| {row['topic']} | {row['N']} | {row['R']} | {row['seeds']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/tarsim-clef2017-study"))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    from tarsim.cli import main as tarsim
    from tarsim.data.ledger import iter_ledger_paths, read_ledger

    started = time.perf_counter()
    if tarsim(["sweep", str(CONFIG), "--jobs", str(args.jobs), "--out", str(args.out), "--resume"]) != 0:
        return 1
    print(f"sweep and stopping study: {time.perf_counter() - started:.0f} s")
    ledgers = [read_ledger(path) for path in iter_ledger_paths(args.out / "ledgers")]
    table = markdown(topic_rows(ledgers))
    print(table)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "tables.md").write_text(table, encoding="utf-8")
    for name in ("stop_summary.csv", "stop_tests.csv", "stop_recall_cost.png", "stop_reliability.png"):
        if (args.out / "stopping" / name).exists():
            shutil.copy(args.out / "stopping" / name, RESULTS / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
