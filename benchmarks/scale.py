"""Scale: review a planted topic to 100% recall on synthetic collections of 100k, 300k and 1M documents.

Each size runs in its own process (so its peak memory is its own): generate the collection's features
(tarsim.datasets.synthetic.make_scale_collection), then BMI CAL with document feedback, the ledger streamed to a file.
Prints per size: generation time, rounds, judgments, review time, time per round (mean and sampled rounds,
split into the training/scoring step and the reviewing of the batch), peak memory and the ledger's sha256
(same seed and size -> same digest, whatever the speed-ups).

    /work/venv/bin/python benchmarks/scale.py                      # 100k, 300k, 1M
    /work/venv/bin/python benchmarks/scale.py --sizes 20000 --prevalence 0.02
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from machine_info import describe_machine  # same folder
from tarsim.config.review import ReviewConfig
from tarsim.datasets.synthetic import ScaleSpec, make_scale_collection
from tarsim.simulator.ledger import LedgerWriter
from tarsim.simulator.oracle import SentenceLabels
from tarsim.simulator.review import ReviewSimulation, TopicReview


class TimedReview(ReviewSimulation):
    """A ReviewSimulation that records, per training round, the wall time of training + scoring the collection."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.round_times: list[dict] = []

    def _train(self):
        start = time.perf_counter()
        labelled = self.state.completed
        result = super()._train()
        self.round_times.append({"start": start, "train": time.perf_counter() - start, "labelled": labelled})
        return result


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def one_size(n: int, prevalence: float, seed: int) -> dict:
    """Generate and review one size in this process; returns the figures as a dict."""
    t0 = time.perf_counter()
    collection = make_scale_collection(ScaleSpec(n_documents=n, prevalence=prevalence, seed=seed))
    features = collection.features
    generated = time.perf_counter() - t0
    grades = collection.relevant.astype(np.int64)
    review = TopicReview(
        collection.topic, collection.query, grades, SentenceLabels(collection.sentence_labels), collection.docids
    )
    config = ReviewConfig(seed=seed, features=features.settings)
    with tempfile.TemporaryDirectory(prefix="tarsim-scale-") as tmp:
        path = Path(tmp) / "planted.jsonl"
        writer = LedgerWriter(path, {"topic": collection.topic, "relevant": int(grades.sum()), "collection_size": n})
        simulation = TimedReview(features, review, config, writer)
        t1 = time.perf_counter()
        end = simulation.run()
        reviewed = time.perf_counter() - t1
        ledger_bytes = path.stat().st_size
        ledger_sha256 = _sha256(path)  # streamed: the 1M ledger is ~180 MB, and peak memory is measured
    rounds = simulation.round_times
    starts = [r["start"] for r in rounds] + [t1 + reviewed]
    for r, nxt in zip(rounds, starts[1:], strict=True):
        r["round"] = nxt - r["start"]
    return {
        "documents": n,
        "nnz_documents": int(features.documents.nnz),
        "sentences": int(features.sentences.shape[0]),
        "relevant": int(grades.sum()),
        "generate_s": generated,
        "review_s": reviewed,
        "judgments": end["judgments"],
        "stop": end["reason"],
        "rounds": [{k: r[k] for k in ("labelled", "train", "round")} for r in rounds],
        "ledger_mb": ledger_bytes / 1e6,
        "ledger_sha256": ledger_sha256,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run_child(n: int, prevalence: float, seed: int) -> dict:
    """Run one size in a fresh process and read back its JSON line."""
    command = [sys.executable, __file__, "--one", str(n), "--prevalence", str(prevalence), "--seed", str(seed)]
    start = time.perf_counter()
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    result = json.loads(output.strip().splitlines()[-1])
    result["wall_s"] = time.perf_counter() - start
    return result


def report(results: list[dict]) -> str:
    lines = [
        f"{'documents':>10} {'R':>6} {'generate s':>10} {'rounds':>6} {'judged':>7} {'review s':>8} "
        f"{'train+score ms/round':>20} {'per 100k docs':>13} {'round ms (mean)':>15} {'peak MB':>8} {'total s':>8}"
    ]
    for r in results:
        train = np.array([x["train"] for x in r["rounds"]]) * 1000
        whole = np.array([x["round"] for x in r["rounds"]]) * 1000
        lines.append(
            f"{r['documents']:>10} {r['relevant']:>6} {r['generate_s']:>10.1f} {len(r['rounds']):>6} "
            f"{r['judgments']:>7} {r['review_s']:>8.1f} {train.mean():>20.1f} "
            f"{train.mean() / (r['documents'] / 1e5):>13.1f} {whole.mean():>15.1f} {r['peak_mb']:>8.0f} "
            f"{r['wall_s']:>8.1f}"
        )
    lines.append("sampled rounds (round: labelled documents, train+score ms, whole round ms incl. judging the batch):")
    for r in results:
        picks = sorted(
            {0, 9, len(r["rounds"]) // 4, len(r["rounds"]) // 2, 3 * len(r["rounds"]) // 4, len(r["rounds"]) - 1}
        )
        cells = [
            f"#{i + 1}: {r['rounds'][i]['labelled']}, {r['rounds'][i]['train'] * 1000:.0f}, "
            f"{r['rounds'][i]['round'] * 1000:.0f}"
            for i in picks
            if i < len(r["rounds"])
        ]
        lines.append(f"  {r['documents']:>8}: " + " | ".join(cells))
    lines.extend(round_cost_split(results))
    return "\n".join(lines)


def round_cost_split(results: list[dict]) -> list[str]:
    """The two parts of a round's cost, each against what it should grow with.

    A round scores the whole collection (linear in N) and fits the classifier on the labelled set. A review to
    100% recall judges a larger share of a larger collection, so the mean round mixes the two; rounds with
    fewer than 1,000 labelled documents show the scoring part, the last round the fit on the largest labelled set.
    """
    lines = ["round cost split (early: rounds with < 1,000 labelled documents; last: the final round):"]
    early_means = []
    for r in results:
        early = [x["round"] * 1000 for x in r["rounds"] if x["labelled"] < 1000] or [r["rounds"][0]["round"] * 1000]
        last = r["rounds"][-1]
        early_means.append(float(np.mean(early)))
        lines.append(
            f"  {r['documents']:>8}: early {early_means[-1]:6.1f} ms ({early_means[-1] / (r['documents'] / 1e5):4.1f} "
            f"per 100k docs) | last {last['round'] * 1000:7.0f} ms for {last['labelled']} labelled "
            f"({last['round'] * 1000 / (last['labelled'] / 1e5):5.0f} per 100k labelled) | judged "
            f"{r['judgments'] / r['documents']:.0%} of the collection"
        )
    if len(results) > 1:
        sizes = np.log([r["documents"] for r in results])
        slope = np.polyfit(sizes, np.log(early_means), 1)[0]
        lines.append(f"  early-round time grows as N^{slope:.2f} over these sizes (1.00 = linear)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000, 1_000_000])
    parser.add_argument("--prevalence", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the full figures (every round) to this file")
    parser.add_argument("--report", type=Path, metavar="JSON", help="print the tables of a --json file again")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.report:
        print(report(json.loads(args.report.read_text())))
        return 0
    if args.one:
        print(json.dumps(one_size(args.one, args.prevalence, args.seed)))
        return 0
    print(f"machine: {describe_machine()}; prevalence {args.prevalence}, seed {args.seed}")
    results = []
    for n in args.sizes:
        results.append(run_child(n, args.prevalence, args.seed))
        print(report(results[-1:]).splitlines()[1], flush=True)
        print(f"  ledger sha256 {results[-1]['ledger_sha256']}", flush=True)
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
