"""Where tarsim's Recall@2R+100 differs from ASReview's on the srd reviews: an ablation from BMI's defaults to
ASReview's logistic set-up, one change at a time, over several prior draws, with paired tests.

    python benchmarks/recall_gap.py --seeds 5 --peers-python /work/peers-venv/bin/python

For each of the 14 srd reviews and each prior seed s (RandomState(s) draws one relevant and one non-relevant
record, as benchmarks/vs_peers.py does for every tool), it runs tarsim under the configurations below and, when
--peers-python is given, `asreview simulate -c logistic -q max -b balanced -e tfidf --n-query 10` from the same
priors (kept in results/recall_gap/asreview_logistic.jsonl, so a re-run only runs what is missing; --asreview-only
fills that file without the tarsim runs). Steps, cumulative:

  BMI                BMI defaults: the topic's query as seed document, batches 1, +ceil(B/10), 100 presumed
                     non-relevant, liblinear C = 1/(lambda n), stemmed (1 + ln tf) idf features with df >= 2
  + priors           seeded with the peers' prior records instead of the query
  + batch 10         fixed batches of 10 (ASReview's --n-query 10)
  + no presumed      no presumed non-relevant documents (ASReview trains on the labelled records only)
  + C=1 learner      learner "logistic": scikit-learn's LogisticRegression(C=1, class_weight="balanced"),
                     ASReview's `logistic` classifier with its `balanced` sample weights (n / (2 n_class))
  + raw tf-idf       unstemmed, raw tf, df >= 1 (ASReview's TfidfVectorizer defaults). Left different:
                     tarsim's tokens are letters only and its idf is ln(N/df); scikit-learn's tokens are 2+
                     word characters (digits too) and its smooth idf is ln((1+N)/(1+df)) + 1

It prints the mean over reviews and seeds of Recall@2R+100 for each step and ASReview, and paired tests
(t-test and randomisation, paired by review and seed) of each step against ASReview and against the step before.
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
from pathlib import Path

import numpy as np

from tarsim.datasets import load_dataset
from tarsim.features.cache import cached_features
from tarsim.features.matrices import FeatureSettings
from tarsim.metrics import recall_at_effort
from tarsim.metrics.significance import paired_tests
from tarsim.policies import SeedingChoice
from tarsim.simulator import ReviewConfig, review_topics
from vs_peers import peer_priors, prepare, run_asreview  # same folder: the priors and ASReview command

SRD = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "srd"
CACHE = Path(__file__).resolve().parent / "results" / "recall_gap" / "asreview_logistic.jsonl"
STEPS = ("BMI", "+ priors", "+ batch 10", "+ no presumed", "+ C=1 learner", "+ raw tf-idf")
RAW_TFIDF = FeatureSettings(stem=False, min_df=1, sublinear_tf=False)


def recall_2r100(ledger) -> float:
    """Recall@2R+100 in judgments."""
    return next(row["recall"] for row in recall_at_effort(ledger) if (row["a"], row["b"]) == (2, 100))


def tarsim_steps(directory: Path, seed: int, cache: Path) -> list[float]:
    """Recall@2R+100 of each ablation step for one review and one prior seed."""
    dataset = load_dataset(directory)
    topic = directory.name
    docids = dataset.collection.docids
    relevant = np.array([dataset.qrels[topic].get(docid, 0) > 0 for docid in docids])
    priors = SeedingChoice("documents", tuple(docids[i] for i in peer_priors(relevant, seed)))
    bmi = cached_features(dataset.collection, cache)
    raw = cached_features(dataset.collection, cache, RAW_TFIDF)
    asreview_like = {"seeding": priors, "batch": "10", "presumed_nonrelevant": 0}
    runs = [
        (ReviewConfig(seed=seed), bmi),
        (ReviewConfig(seed=seed, seeding=priors), bmi),
        (ReviewConfig(seed=seed, seeding=priors, batch="10"), bmi),
        (ReviewConfig(seed=seed, **asreview_like), bmi),
        (ReviewConfig(seed=seed, learner="logistic", **asreview_like), bmi),
        (ReviewConfig(seed=seed, learner="logistic", features=RAW_TFIDF, **asreview_like), raw),
    ]
    values = []
    for config, features in runs:
        batch = review_topics(dataset, config, [topic], features=features)
        values.append(recall_2r100(batch.ledgers[topic]))
    return values


def asreview_recall(directory: Path, seed: int, peers_python: str | None, cached: dict) -> float | None:
    """ASReview logistic's Recall@2R+100 from the cache, or by running it when --peers-python is given."""
    key = f"{directory.name}/{seed}"
    if key in cached or peers_python is None:
        return cached.get(key)
    args = argparse.Namespace(peers_python=peers_python, seed=seed, until="all", timeout=3600.0)
    with tempfile.TemporaryDirectory(prefix="tarsim-gap-asreview-") as work:
        job = prepare(f"srd:{directory.name}", Path(work), seed)
        outcome = run_asreview(job, Path(work), args, "logistic")
    if outcome.failed:
        raise SystemExit(f"ASReview failed on {key}: {outcome.failed}")
    cached[key] = recall_2r100(outcome.ledger)
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    with open(CACHE, "a", encoding="utf-8") as handle:
        record = {"review": directory.name, "seed": seed, "recall_2R+100": cached[key], "seconds": outcome.seconds}
        handle.write(json.dumps(record) + "\n")
    return cached[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="prior draws per review (seeds 0..N-1)")
    parser.add_argument("--peers-python", help="python with asreview installed (else only cached ASReview runs)")
    parser.add_argument("--asreview-only", action="store_true", help="only run (and cache) the ASReview runs")
    args = parser.parse_args()
    if args.asreview_only and not args.peers_python:
        parser.error("--asreview-only needs --peers-python")
    cached = {}
    if CACHE.exists():
        for line in CACHE.read_text().splitlines():
            record = json.loads(line)
            cached[f"{record['review']}/{record['seed']}"] = record["recall_2R+100"]
    feature_cache = Path(tempfile.gettempdir()) / "tarsim-feature-cache"
    scores: dict[str, dict[str, float]] = {step: {} for step in (*STEPS, "ASReview")}
    reviews = sorted(p for p in SRD.iterdir() if p.is_dir())
    if not args.asreview_only:
        print(f"{'review':40} {'seed':>4} " + " ".join(f"{step:>14}" for step in (*STEPS, "ASReview")), flush=True)
    for directory in reviews:
        for seed in range(args.seeds):
            key = f"{directory.name}/{seed}"
            theirs = asreview_recall(directory, seed, args.peers_python, cached)
            if args.asreview_only:
                print(f"{key}: ASReview {theirs:.3f}", flush=True)
                continue
            values = tarsim_steps(directory, seed, feature_cache)
            for step, value in zip(STEPS, values, strict=True):
                scores[step][key] = value
            if theirs is not None:
                scores["ASReview"][key] = theirs
            cells = " ".join(f"{v:14.3f}" for v in values) + (f" {theirs:14.3f}" if theirs is not None else "")
            print(f"{directory.name:40} {seed:>4} {cells}", flush=True)
    if args.asreview_only:
        return
    if scores["ASReview"]:  # compare on the pairs every system has
        common = set(scores["ASReview"])
        scores = {name: {k: v for k, v in values.items() if k in common} for name, values in scores.items()}
    n = len(scores[STEPS[0]])
    print(f"\nmean Recall@2R+100 over {n} (review, prior seed) pairs:")
    for step, values in scores.items():
        if values:
            print(f"  {step:16} {np.mean(list(values.values())):.3f}")
    print("\npaired tests (diff = mean of the row minus the column system):")
    print(f"  {'step':16} {'vs':16} {'diff':>7} {'p (t)':>8} {'p (rand)':>9}")
    for before, step in itertools.pairwise(STEPS):
        _print_test(step, before, scores)
    if scores["ASReview"]:
        for step in STEPS:
            _print_test(step, "ASReview", scores)


def _print_test(step: str, against: str, scores: dict[str, dict[str, float]]) -> None:
    test = paired_tests(scores[against], scores[step])
    print(f"  {step:16} {against:16} {test['diff']:+7.3f} {test['p_t']:8.3f} {test['p_rand']:9.3f}")


if __name__ == "__main__":
    main()
