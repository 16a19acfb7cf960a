"""How much of a study's review time is the learner's fitting: srd reviews x prior seeds run in one process with a
preset, timing every call of the learner's `fit` (issue 13: the floor under a whole study's time).

    /work/venv/bin/python benchmarks/fit_share.py --presets asreview-logistic asreview-logistic-warm-start

Each preset runs the same reviews from the same priors (1 relevant + 1 non-relevant record per prior seed, as
benchmarks/study_vs_peers.py draws them); features come from a scratch cache filled by an untimed first pass, so
the figures are warm reviews without the process's start-up. Printed per preset: seconds of all reviews, seconds
inside `fit`, its share, fits, and the mean Recall@2R+100 of the orders.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from machine_info import describe_machine  # same folder
from reproduce_peers import recall_2r100
from tarsim.api import review as api
from tarsim.learners import estimators
from vs_peers import DATASETS, SRD_REVIEWS

DEFAULT_REVIEWS = ["Cohen_2006_ACEInhibitors", "Cohen_2006_BetaBlockers", "Cohen_2006_Opiods", "Cohen_2006_ADHD"]


class FitClock:
    """Wraps ASReviewModel.fit (every ASReview-style learner's fit) to add up its calls and seconds."""

    def __init__(self) -> None:
        self.seconds, self.calls = 0.0, 0
        self.original = estimators.ASReviewModel.fit

    def __enter__(self) -> FitClock:
        clock, original = self, self.original

        def timed_fit(model, X, y):
            start = time.perf_counter()
            try:
                return original(model, X, y)
            finally:
                clock.seconds += time.perf_counter() - start
                clock.calls += 1

        estimators.ASReviewModel.fit = timed_fit
        return self

    def __exit__(self, *exc: object) -> None:
        estimators.ASReviewModel.fit = self.original


def run_reviews(preset: str, reviews: list[str], seeds: int, cache: Path) -> list[float]:
    """Every review x prior seed with the preset; the Recall@2R+100 (judgments) of each."""
    recalls = []
    for review in reviews:
        for seed in range(seeds):
            result = api.simulate(
                DATASETS / "srd" / review,
                preset=preset,
                until="all-relevant",
                n_prior_included=1,
                n_prior_excluded=1,
                prior_seed=seed,
                cache_dir=cache,
            )
            recalls += [recall_2r100(ledger) for ledger in result.ledgers.values()]
    return recalls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presets", nargs="+", default=["asreview-logistic", "asreview-logistic-warm-start"])
    parser.add_argument("--reviews", nargs="+", default=DEFAULT_REVIEWS, choices=SRD_REVIEWS, metavar="REVIEW")
    parser.add_argument("--seeds", type=int, default=3, help="prior seeds 0..N-1 (default 3)")
    args = parser.parse_args(argv)
    threadpool_limits(1)  # one BLAS/OpenMP thread, as every benchmark here gives every tool
    print(f"machine: {describe_machine()}; {len(args.reviews)} reviews x {args.seeds} prior seeds; BLAS threads: 1")
    print(f"{'preset':<30} {'seconds':>8} {'in fit':>8} {'share':>6} {'fits':>6} {'R@2R+100':>9}")
    with tempfile.TemporaryDirectory(prefix="tarsim-fit-share-") as tmp:
        cache = Path(tmp)
        run_reviews(args.presets[0], args.reviews, 1, cache)  # untimed: features built, modules imported
        for preset in args.presets:
            with FitClock() as clock:
                start = time.perf_counter()
                recalls = run_reviews(preset, args.reviews, args.seeds, cache)
                seconds = time.perf_counter() - start
            print(
                f"{preset:<30} {seconds:>8.2f} {clock.seconds:>8.2f} {clock.seconds / seconds:>6.1%} "
                f"{clock.calls:>6} {np.mean(recalls):>9.4f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
