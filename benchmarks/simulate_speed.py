"""Simulator speed on Reuters: review `acq` to 100% recall with document feedback (BMI CAL).

Prints wall time, documents judged per second and peak memory, then time per round against round number and
labelled-set size: the scoring part (one sparse product over the collection) is flat, the fit grows with the
labelled set, and nothing grows with the judgments in a way that loops over documents in Python.

    /work/venv/bin/python benchmarks/simulate_speed.py [--topic acq] [--every 5]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path
from typing import ClassVar

import numpy as np

from tarsim.config.review import ReviewConfig
from tarsim.datasets import load_dataset
from tarsim.features.cache import cached_features
from tarsim.simulator.review import ReviewSimulation
from tarsim.simulator.run import review_topics

REUTERS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "reuters21578"


class TimedReview(ReviewSimulation):
    """Records the wall time of each round's training + scoring, and when each round starts."""

    log: ClassVar[list[dict]] = []

    def _train(self):
        start = time.perf_counter()
        labelled = self.state.completed
        result = super()._train()
        TimedReview.log.append({"start": start, "train": time.perf_counter() - start, "labelled": labelled})
        return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topic", default="acq")
    parser.add_argument("--every", type=int, default=5, help="print every k-th round")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "tarsim-speed-cache")
    args = parser.parse_args(argv)
    if not REUTERS.is_dir():
        raise SystemExit(f"{REUTERS} not found")
    dataset = load_dataset(REUTERS)
    t0 = time.perf_counter()
    features = cached_features(dataset.collection, args.cache)
    built = time.perf_counter() - t0
    w = np.ones(features.documents.shape[1], dtype=np.float32)
    t0 = time.perf_counter()
    for _ in range(20):
        features.documents @ w
    product_ms = (time.perf_counter() - t0) / 20 * 1000

    import tarsim.simulator.run as run_module

    run_module.ReviewSimulation = TimedReview  # time rounds without changing what the review does
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        batch = review_topics(dataset, ReviewConfig(), [args.topic], Path(out), features=features)
        wall = time.perf_counter() - t0
    ledger = batch.ledgers[args.topic]
    log = TimedReview.log
    starts = [r["start"] for r in log] + [t0 + wall]
    print(f"Reuters-21578 {args.topic}: {features.n_documents} documents, R = {ledger.relevant}")
    print(
        f"features: {built:.2f} s (cached at {args.cache} after the first run); one documents @ w: {product_ms:.2f} ms"
    )
    print(
        f"review to 100% recall: {len(ledger)} judged, {len(log)} rounds, {wall:.2f} s wall, "
        f"{len(ledger) / wall:,.0f} documents judged/s, peak memory "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )
    print(f"{'round':>5} {'labelled':>8} {'train+score ms':>14} {'whole round ms':>14}")
    for i, r in enumerate(log):
        if i % args.every == 0 or i == len(log) - 1:
            print(
                f"{i + 1:>5} {r['labelled']:>8} {r['train'] * 1000:>14.1f} {(starts[i + 1] - r['start']) * 1000:>14.1f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
