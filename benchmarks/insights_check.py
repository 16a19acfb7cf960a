"""Cross-check tarsim's Insights measures (tarsim.metrics.insights, `tarsim metrics`) against ASReview Insights
itself, run in its own venv on the same screening orders.

    python benchmarks/insights_check.py --insights-python /work/INSIGHTS/bin/python [--topics 3] [--seeds 2]

It reviews the smallest srd topics with `tarsim simulate` (or reads `--ledgers DIR`), and for each ledger and each
priors convention derives the label sequence as ASReview Insights 1.6.1 does for a project (its
`get_simulation_labels`: the labels of the non-prior records in screening order, padded with zeros to the records
in the data minus the priors; with --priors, all of them padded to N). To exercise the priors, a second copy of
every ledger marks its first two judgments `"prior": true`. Insights' own functions (asreviewcontrib.insights
.metrics: _recall, _wss, _erf, _time_to_discovery) score the sequences in a subprocess; tarsim scores the
ledgers; the script prints the largest absolute difference per measure and exits 1 if any exceeds 1e-12.

With --asreview-project FILE (an ASReview 3 project, e.g. from `asreview simulate -o FILE`), the label sequences
come from ASReview's own API instead (run with --asreview-python: Project.load, the results table with and without
priors, the records of the data store), so tarsim's reader of .asreview files is checked too; the TD's record ids
are the data file's record_id at each record's dataset_row (the file read by ASReview's own reader) when it has
that column, as tarsim names them.

Insights' time to discovery ignores --priors (get_metrics calls time_to_discovery without it, so TD always
leaves priors out); tarsim's TD follows the priors convention, so TD and ATD are compared with priors excluded.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from tarsim.data.ledger import Ledger, iter_ledger_paths, read_ledger
from tarsim.metrics.insights import metrics_document

SRD = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "srd"
MEASURES = {"rrf_5": ("recall", 0.05), "rrf_10": ("recall", 0.10), "wss_95": ("wss", 0.95)}
MEASURES |= {"wss_100": ("wss", 1.0), "erf_10": ("erf", 0.10)}

ASREVIEW_SCRIPT = r"""
import json, sys, tempfile
from asreview import Project
from asreview.data.loader import _get_reader
with tempfile.TemporaryDirectory() as tmp:
    project = Project.load(sys.argv[1], tmp)
    n_records, n_priors = len(project.db.input), len(project.db.get_priors())
    # tarsim names a record by the data file's record_id column where there is one (ASReview drops that column and
    # numbers the rows from 0): the file's record_id at the record's dataset_row, the data read by ASReview's reader
    # (which reads numbers: an id like 007 would read as 7 here and as 007 in tarsim; the srd files' ids are plain)
    data = _get_reader(project.input_data_fp).read_data(project.input_data_fp)
    data.columns = [str(column).lower().strip() for column in data.columns]
    row_of = {record.record_id: record.dataset_row for record in project.db.input.get_records()}
    def name(record_id):
        if "record_id" not in data.columns:
            return str(record_id)
        return str(data["record_id"].iloc[row_of[record_id]])
    out = {}
    for priors in (False, True):
        # groups=True: every screened record, duplicates too, as `asreview simulate` screens them and tarsim's
        # project reader counts them (ASReview 3's default, groups=False, would keep base records only)
        table = project.db.get_results_table(columns=["record_id", "label"], priors=priors, groups=True)
        labels = [int(v) for v in table["label"]]
        used = n_records - (0 if priors else n_priors)
        ids = [name(int(r)) for r in table["record_id"]]
        out[str(priors)] = {"labels": labels + [0] * (used - len(labels)), "ids": ids, "raw": labels}
    project.close()
print(json.dumps(out))
"""

INSIGHTS_SCRIPT = r"""
import json, sys
from asreviewcontrib.insights.metrics import _erf, _recall, _time_to_discovery, _wss, _average_time_to_discovery
functions = {"recall": _recall, "wss": _wss, "erf": _erf}
out = []
for case in json.load(sys.stdin):
    labels = [float(v) for v in case["labels"]]
    row = {name: float(functions[kind](labels, x)) for name, (kind, x) in case["measures"].items()}
    if case["td"] is not None:
        td = _time_to_discovery(case["td"]["ids"], case["td"]["labels"])
        row["td"] = [[str(i), int(p)] for i, p in td]
        row["atd"] = _average_time_to_discovery(td)
    out.append(row)
print(json.dumps(out))
"""


def simulate(topics: list[str], seeds: int, workdir: Path) -> list[Ledger]:
    """Review each srd topic with tarsim's defaults for each seed; return the ledgers."""
    ledgers = []
    for topic in topics:
        for seed in range(seeds):
            out = workdir / f"{topic}-{seed}"
            command = [
                sys.executable,
                "-m",
                "tarsim.cli",
                "simulate",
                "--collection",
                str(SRD / topic),
                "--effort",
                "judge",
            ]
            subprocess.run([*command, "--seed", str(seed), "--out", str(out)], check=True, capture_output=True)
            ledgers.extend(read_ledger(p) for p in iter_ledger_paths(out / "ledgers"))
    return ledgers


def with_priors(ledger: Ledger, count: int = 2) -> Ledger:
    """The same review with its first `count` judgments marked as priors."""
    prior = np.zeros(len(ledger), dtype=bool)
    prior[:count] = True
    return replace(ledger, prior=prior)


def insights_labels(ledger: Ledger, priors: bool) -> list[int]:
    """The label sequence Insights' get_simulation_labels builds from the same review (see the module docstring)."""
    keep = [i for i in range(len(ledger)) if priors or not ledger.prior[i]]
    labels = [int(ledger.truth[i] > 0) for i in keep]
    n_used = ledger.collection_size - (0 if priors else int(ledger.prior.sum()))
    return labels + [0] * (n_used - len(labels))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--insights-python", default="/work/INSIGHTS/bin/python")
    parser.add_argument("--ledgers", type=Path, help="use these ledgers instead of simulating")
    parser.add_argument("--topics", type=int, default=3, help="the N smallest srd topics")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--asreview-project", type=Path, nargs="*", default=[], help="ASReview 3 project files")
    parser.add_argument("--asreview-python", default="/work/PEERS/bin/python", help="python with ASReview 3")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.ledgers:
            ledgers = [read_ledger(p) for p in sorted(args.ledgers.rglob("*.jsonl")) if not p.name.startswith(".")]
        else:
            folders = [d for d in SRD.iterdir() if d.is_dir()]
            sizes = sorted((len((d / "qrels.txt").read_text().splitlines()), d.name) for d in folders)
            ledgers = simulate([name for _, name in sizes[: args.topics]], args.seeds, Path(tmp))
    reviews = [ledger for plain in ledgers for ledger in (plain, with_priors(plain))]
    cases, ours = [], []
    for ledger in reviews:
        for priors in (False, True):
            labels = insights_labels(ledger, priors)
            td = None
            if not priors:
                keep = [i for i in range(len(ledger)) if not ledger.prior[i]]
                td = {"ids": [ledger.docids[i] for i in keep], "labels": [int(ledger.truth[i] > 0) for i in keep]}
            cases.append({"labels": labels, "measures": MEASURES, "td": td})
            row = metrics_document([ledger], "include" if priors else "exclude")["reviews"][0]
            ours.append(row)
    for project in args.asreview_project:
        from tarsim.interop.asreview_project import read_asreview_project

        peer = subprocess.run(
            [args.asreview_python, "-c", ASREVIEW_SCRIPT, str(project)], capture_output=True, text=True, check=True
        )
        sequences = json.loads(peer.stdout)
        ledger = read_asreview_project(project)
        for priors in (False, True):
            sequence = sequences[str(priors)]
            td = None if priors else {"ids": sequence["ids"], "labels": sequence["raw"]}
            cases.append({"labels": sequence["labels"], "measures": MEASURES, "td": td})
            ours.append(metrics_document([ledger], "include" if priors else "exclude")["reviews"][0])
            reviews.append(ledger)
    answer = subprocess.run(
        [args.insights_python, "-c", INSIGHTS_SCRIPT], input=json.dumps(cases), capture_output=True, text=True
    )
    if answer.returncode:
        print(answer.stderr, file=sys.stderr)
        return 2
    theirs = json.loads(answer.stdout)
    worst: dict[str, float] = {}
    for mine, reference in zip(ours, theirs, strict=True):
        for name, value in reference.items():
            if name == "td":
                worst["td"] = max(worst.get("td", 0.0), 0.0 if mine["td"] == value else 1.0)
                continue
            worst[name] = max(worst.get(name, 0.0), abs((mine[name] if mine[name] is not None else np.nan) - value))
    print(f"{len(ledgers)} ledgers, each also with 2 priors, and {len(args.asreview_project)} ASReview project(s)")
    print(f"{len(cases)} label sequences (2 priors conventions each) scored by tarsim and by ASReview Insights")
    for name, difference in worst.items():
        print(f"  {name:8s} max |tarsim - Insights| = {difference:.3g}")
    return 0 if all(d <= 1e-12 for d in worst.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
